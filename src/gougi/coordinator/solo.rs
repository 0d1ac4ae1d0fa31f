//! `Engine<N>.SoloOption.<Name>`: a member's option values for the rounds where it is the only
//! normal member asked — the others sit out under a clock (`Engine<N>.MinCores`), are down, or
//! there is no other.
//!
//! Why: some settings pay only in company. Evaluation noise makes copies of one engine disagree
//! usefully (consulting noisy copies beats one clean search by about +86 Elo at equal nodes),
//! but a noisy member thinking alone only loses strength (−16.5 Elo measured); and a member
//! alone on the machine can use the cores the others leave (`Threads`). So before a member gets
//! a round's `position`/`go` ([`sync`], from `start_search`), the options it has solo values for
//! are switched with `setoption` to what the round wants: the solo value when it plays alone,
//! its usual value otherwise — the last one in `Slot::settings` (the GUI's `E<N>_<Name>`, the
//! shared `Threads`/`USI_Hash` share, or `Engine<N>.Option.<Name>`), else its declared default.
//! A `setoption` goes out only when the value the member holds differs from the round's, so a
//! run of solo rounds (or of shared ones) sends nothing.
//!
//! Which options hold their solo value is tracked per option ([`Solo::held`]): a (re)started
//! member holds none (the replay of its settings gives the usual values), and a GUI `setoption`
//! of one of them replaces it (the member then holds the GUI's value).
//!
//! Values are checked against the member's declaration at each `usiok`, as `Engine<N>.Option`'s
//! are: a name it does not declare, a value it refuses, or an option with no usual value to go
//! back to is a warning naming the config line (said at the first start only) and is never sent.
//! The GUI hears nothing else: stdout is the USI channel; the switches are logged.

use std::collections::HashSet;

use tracing::{debug, info, warn};

use crate::usi::{GuiCommand, SetOption};

use super::members::send;
use super::state::Slot;
use super::{members, Coordinator};

/// One member's solo options and what it holds now.
#[derive(Debug, Default)]
pub(super) struct Solo {
    /// The `Engine<N>.SoloOption.*` values the member accepts, checked at its last `usiok`, in
    /// the config's order.
    pub(super) values: Vec<SetOption>,
    /// The names whose solo value the member's process holds now.
    pub(super) held: HashSet<String>,
    /// The current round asks this member alone.
    pub(super) wanted: bool,
    /// The solo values were logged at info level once (the first switch of the session).
    pub(super) logged: bool,
}

impl<W: std::io::Write> Coordinator<W> {
    /// At member `i`'s `usiok` (after the config's `Engine<N>.Option`s are applied, so that the
    /// declared defaults are the usual values): its solo options checked against what it
    /// declares. The process holds none of them yet.
    pub(super) fn check_solo_options(&mut self, i: usize) {
        let first_start = self.slots[i].restarts == 0;
        let slot = &mut self.slots[i];
        slot.solo.held.clear();
        slot.solo.values.clear();
        let mut warnings = Vec::new();
        for o in &slot.spec.solo_options {
            let value = match members::checked_config_value(slot, o) {
                Ok((_, v)) => v,
                Err(w) => {
                    warnings.push(w);
                    continue;
                }
            };
            if usual(slot, &o.name).is_none() {
                warnings.push(format!(
                    "{}: {}: {} declares no default for {} and none is set, so its usual \
                     value could not be restored; not sent",
                    o.origin(),
                    o.key(slot.spec.number),
                    slot.label(),
                    o.name
                ));
                continue;
            }
            slot.solo.values.push(SetOption {
                name: o.name.clone(),
                value: value.to_value_text(),
            });
        }
        if first_start {
            for w in warnings {
                warn!("{w}");
                self.say(format!("info string [Warning] {w}"));
            }
        }
    }
}

/// The value member `slot` has outside solo rounds: its last setting of `name`, else the
/// declared default (which `Engine<N>.Option.<Name>` has replaced, when set).
fn usual(slot: &Slot, name: &str) -> Option<SetOption> {
    if let Some(o) = slot.settings.iter().rev().find(|o| o.name == name) {
        return Some(o.clone());
    }
    let decl = slot.options.iter().find(|d| d.name == name)?;
    Some(SetOption {
        name: name.to_owned(),
        value: decl.default_value()?.to_value_text(),
    })
}

/// Before a round's `position`/`go` reaches `slot`: the `setoption`s that bring its solo options
/// to what the round wants ([`Solo::wanted`]), only for those it does not hold already.
pub(super) fn sync(slot: &mut Slot) {
    if slot.solo.values.is_empty() {
        return;
    }
    let wanted = slot.solo.wanted;
    let mut sent = Vec::new();
    for solo in slot.solo.values.clone() {
        if slot.solo.held.contains(&solo.name) == wanted {
            continue;
        }
        let o = if wanted {
            slot.solo.held.insert(solo.name.clone());
            solo
        } else {
            slot.solo.held.remove(&solo.name);
            // Checked at `usiok`; a setting never goes away, so the usual value is known.
            let Some(o) = usual(slot, &solo.name) else {
                continue;
            };
            o
        };
        sent.push(format!("{}={}", o.name, o.value.as_deref().unwrap_or("")));
        send(slot, &GuiCommand::SetOption(o));
    }
    if sent.is_empty() {
        return;
    }
    let sent = sent.join(" ");
    if wanted && !slot.solo.logged {
        slot.solo.logged = true;
        info!(
            member = slot.spec.number,
            options = %sent,
            "{} plays alone: its SoloOption values are applied",
            slot.label()
        );
    } else {
        debug!(
            member = slot.spec.number,
            alone = wanted,
            options = %sent,
            "solo options switched"
        );
    }
}
