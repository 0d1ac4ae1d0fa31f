//! The two start-up exchanges, for many members at once: `usi` → `id`/`option`… `usiok`
//! ([`handshake_all`]) and `isready` → `readyok` ([`ready_all`]).
//!
//! Why all at once: Shogidokoro wants `usiok` within seconds of `usi`, and the reference waited
//! for its members one after another (up to 60 s each, `reference/gougishogi-behaviour.md` §3.3).
//! Here the command goes to every member first, then one loop reads the shared event channel and
//! routes each event to its member's state, so the total wait is the slowest member's, bounded by
//! one deadline. A member that exits or misses the deadline gets its own error; the others are
//! unaffected.
//!
//! While members initialise after `isready` (NN engines take long), YaneuraOu-style GUIs need an
//! empty line every 5 s ([`KEEPALIVE_INTERVAL`], `reference/usi-notes.md`); [`ready_all`] calls
//! the caller's hook at that rhythm, so the proxy (the only stdout writer) can print it.
//!
//! The functions own the event receiver while they run: events of members not in the slice, and
//! lines that do not belong to the exchange (banners, `info`), are logged and dropped.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::{interval_at, sleep_until, Instant, MissedTickBehavior};

use super::actor::{MemberEvent, MemberHandle};
use super::error::{MemberError, Phase};
use crate::usi::{EngineMessage, GuiCommand, OptionDecl};

/// Default wait for `usiok` (ShogiHome's own limit is 10 s from launch).
pub const DEFAULT_USI_TIMEOUT: Duration = Duration::from_secs(10);

/// Default wait for `readyok` (the reference's 60 s; NN engines load for a while).
pub const DEFAULT_READY_TIMEOUT: Duration = Duration::from_secs(60);

/// How often a keep-alive empty line should reach the GUI while waiting for `readyok`.
pub const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(5);

/// What a member said between `usi` and `usiok`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Handshake {
    /// `id name` (the last one, if repeated).
    pub name: Option<String>,
    /// `id author`.
    pub author: Option<String>,
    /// `option` declarations, in the member's order.
    pub options: Vec<OptionDecl>,
}

/// Sends `usi` to every member and collects each one's `id` and `option` lines until its
/// `usiok`. One result per member, in slice order: `Timeout { phase: Usi }` if `usiok` did not
/// come within `timeout` (of the call), `Exited` if the member ended first.
pub async fn handshake_all(
    members: &[MemberHandle],
    events: &mut mpsc::UnboundedReceiver<MemberEvent>,
    timeout: Duration,
) -> Vec<Result<Handshake, MemberError>> {
    let mut partial = vec![Handshake::default(); members.len()];
    let results = exchange(
        members,
        events,
        &GuiCommand::Usi,
        Phase::Usi,
        timeout,
        None,
        |i, message| match message {
            EngineMessage::IdName(name) => {
                partial[i].name = Some(name);
                false
            }
            EngineMessage::IdAuthor(author) => {
                partial[i].author = Some(author);
                false
            }
            EngineMessage::Option(decl) => {
                partial[i].options.push(decl);
                false
            }
            EngineMessage::UsiOk => true,
            other => {
                tracing::debug!(member = members[i].number(), line = %other, "ignored before usiok");
                false
            }
        },
    )
    .await;
    results
        .into_iter()
        .zip(partial)
        .map(|(r, h)| r.map(|()| h))
        .collect()
}

/// Sends `isready` to every member and waits for each one's `readyok`, calling `on_keepalive`
/// every `keepalive_every` while any is still pending (pass [`KEEPALIVE_INTERVAL`] and a hook
/// that prints an empty line to the GUI). One result per member, in slice order.
pub async fn ready_all(
    members: &[MemberHandle],
    events: &mut mpsc::UnboundedReceiver<MemberEvent>,
    timeout: Duration,
    keepalive_every: Duration,
    mut on_keepalive: impl FnMut(),
) -> Vec<Result<(), MemberError>> {
    exchange(
        members,
        events,
        &GuiCommand::IsReady,
        Phase::IsReady,
        timeout,
        Some((keepalive_every, &mut on_keepalive)),
        |i, message| match message {
            EngineMessage::ReadyOk => true,
            other => {
                tracing::debug!(member = members[i].number(), line = %other, "ignored before readyok");
                false
            }
        },
    )
    .await
}

/// Sends `command` to all members, then routes events to `on_message(index, message)` (which
/// returns true when that member is done) until all are done or the deadline passes.
async fn exchange(
    members: &[MemberHandle],
    events: &mut mpsc::UnboundedReceiver<MemberEvent>,
    command: &GuiCommand,
    phase: Phase,
    timeout: Duration,
    mut keepalive: Option<(Duration, &mut dyn FnMut())>,
    mut on_message: impl FnMut(usize, EngineMessage) -> bool,
) -> Vec<Result<(), MemberError>> {
    let mut results: Vec<Option<Result<(), MemberError>>> = members
        .iter()
        .map(|m| m.send(command).err().map(Err))
        .collect();
    let deadline = Instant::now() + timeout;
    // With no keep-alive, the ticker's period is irrelevant: its branch is disabled.
    let period = keepalive
        .as_ref()
        .map_or(Duration::from_secs(3600), |(every, _)| *every)
        .max(Duration::from_millis(1));
    let mut ticker = interval_at(Instant::now() + period, period);
    ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);

    while results.iter().any(Option::is_none) {
        tokio::select! {
            event = events.recv() => {
                let Some(event) = event else {
                    // Every actor (and sender) is gone: nothing more can arrive.
                    for r in results.iter_mut().filter(|r| r.is_none()) {
                        *r = Some(Err(MemberError::Exited { code: None }));
                    }
                    break;
                };
                let member = event.member();
                let Some(i) = members.iter().position(|m| m.number() == member) else {
                    tracing::debug!(member, ?event, "event of a member outside this {phase} exchange dropped");
                    continue;
                };
                if results[i].is_some() {
                    tracing::debug!(member, ?event, "late event after {phase} dropped");
                    continue;
                }
                match event {
                    MemberEvent::Message { message, .. } => {
                        if on_message(i, message) {
                            results[i] = Some(Ok(()));
                        }
                    }
                    MemberEvent::Exited { code, .. } => {
                        tracing::warn!(member, ?code, "member exited during {phase}");
                        results[i] = Some(Err(MemberError::Exited { code }));
                    }
                }
            }
            // The one deadline for every member of this exchange.
            _ = sleep_until(deadline) => {
                for (i, r) in results.iter_mut().enumerate().filter(|(_, r)| r.is_none()) {
                    tracing::warn!(member = members[i].number(), "no answer to {phase} in time");
                    *r = Some(Err(MemberError::Timeout { phase }));
                }
                break;
            }
            // Keep the GUI from giving up on us while members initialise.
            _ = ticker.tick(), if keepalive.is_some() => {
                if let Some((_, hook)) = keepalive.as_mut() {
                    hook();
                }
            }
        }
    }
    results
        .into_iter()
        .map(|r| r.unwrap_or(Err(MemberError::Timeout { phase })))
        .collect()
}
