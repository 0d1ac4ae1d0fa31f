//! `Engine<N>.SoloOption.<Name>`: a member's option values for the rounds where it is the only
//! normal member asked — the others sit out under a clock (`Engine<N>.MinCores`), are down, or
//! there is no other.
//!
//! Why: some settings pay only in company. Evaluation noise makes copies of one engine disagree
//! usefully (consulting noisy copies beats one clean search by about +86 Elo at equal nodes),
//! but a noisy member thinking alone only loses strength (−16.5 Elo measured); and a member
//! alone on the machine can use the cores the others leave (`Threads`). So before a member gets
//! a round's `position`/`go` (`members::sync`, from `start_search`), the options it has solo values for
//! are switched with `setoption` to what the round wants: the solo value when it plays alone,
//! its usual value otherwise — the last one in `Slot::settings` (the GUI's `E<N>_<Name>`, the
//! shared `Threads`/`USI_Hash` share, or `Engine<N>.Option.<Name>`), else its declared default.
//! A `setoption` goes out only when the value the member holds differs from the round's, so a
//! run of solo rounds (or of shared ones) sends nothing.
//!
//! Which options hold their solo value is tracked per option (`Solo::held`, in `state.rs`): a (re)started
//! member holds none (the replay of its settings gives the usual values), and a GUI `setoption`
//! of one of them replaces it (the member then holds the GUI's value).
//!
//! Values are checked against the member's declaration at each `usiok`, as `Engine<N>.Option`'s
//! are: a name it does not declare, a value it refuses, or an option with no usual value to go
//! back to is a warning naming the config line (said at the first start only) and is never sent.
//! The GUI hears nothing else: stdout is the USI channel; the switches are logged.
//!
//! This file holds the check at `usiok`. The switch itself (`sync`, `usual`) lives in
//! `members.rs` beside `start_search`, which calls it, and `Solo` lives in `state.rs` as a field
//! of `Slot`: the coordinator's files then import each other one way only (no circle, issue 67).

use tracing::warn;

use crate::usi::SetOption;

use super::members::{self, usual};
use super::Coordinator;

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
