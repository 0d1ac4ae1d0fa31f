//! [`MemberSpec`]: what to run for one member, built from the validated [`Config`].
//!
//! Numbers follow the original GougiShogi: normal members keep their configured `N` (option
//! prefix `E<N>_`), the mate engine is 0 (`E0_`), PV mate engines take the numbers
//! [`Config::pv_mate_numbers`] gives (`E11_`, `E12_`, … when N ≤ 10).

use std::path::PathBuf;

use super::command::{Builtin, EngineCommand};
use crate::config::Config;
pub use crate::config::NodesRule;

/// The flag `builtin:search` members get (`gougi search --member`): defaults for an engine
/// whose time gougi manages (no network latency margins, see `search::engine::Options::member`).
pub const SEARCH_MEMBER_FLAG: &str = "--member";

/// What a member is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A normal (playing) engine, `Engine<N>.Path`.
    Normal,
    /// The mate engine searching the current position, `MateEngine.Path`.
    Mate,
    /// A mate engine searching positions along the PV (type `mate-pv`).
    PvMate,
}

/// One member to spawn.
#[derive(Clone, Debug, PartialEq)]
pub struct MemberSpec {
    /// The member number: `N` for normal members, 0 for the mate engine, 11… for PV mate engines.
    pub number: u32,
    pub role: Role,
    pub program: PathBuf,
    pub args: Vec<String>,
    /// `None`: the proxy's working directory.
    pub working_dir: Option<PathBuf>,
    /// `Engine<N>.Name`, overriding the member's `id name`.
    pub display_name: Option<String>,
    /// Vote weight (1 unless configured).
    pub weight: f64,
    /// Score calibration (`Engine<N>.Scale`), if configured.
    pub scale: Option<f64>,
    /// `Engine<N>.ScoreView=black`: scores come from Black's side, not the side to move.
    pub black_view_scores: bool,
    /// `Engine<N>.Ponder` (default true). False: the member never gets `go ponder`; at
    /// `ponderhit` it is started with a normal `go`. Mate members keep the default.
    pub ponder: bool,
    /// `Engine<N>.Nodes` (default [`NodesRule::Gui`]). Mate members keep the default.
    pub nodes: NodesRule,
    /// `Engine<N>.ShowOptions`/`HideOptions`: which options the GUI sees (all by default).
    pub option_filter: crate::config::OptionFilter,
    /// `Engine<N>.Option.<Name>=<value>`: the config's defaults for the member's options.
    pub options: Vec<crate::config::MemberOption>,
}

impl MemberSpec {
    /// A member running `program args…` in the proxy's working directory.
    pub fn new(number: u32, role: Role, program: impl Into<PathBuf>, args: &[&str]) -> MemberSpec {
        MemberSpec {
            number,
            role,
            program: program.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            working_dir: None,
            display_name: None,
            weight: 1.0,
            scale: None,
            black_view_scores: false,
            ponder: true,
            nodes: NodesRule::Gui,
            option_filter: Default::default(),
            options: Vec::new(),
        }
    }

    fn from_command(number: u32, role: Role, command: &EngineCommand) -> MemberSpec {
        let mut args = command.args.clone();
        if command.builtin == Some(Builtin::Search) {
            // Right after the subcommand, before the user's own words (`builtin:search …`).
            args.insert(1.min(args.len()), SEARCH_MEMBER_FLAG.to_owned());
        }
        MemberSpec {
            number,
            role,
            program: command.program.clone(),
            args,
            working_dir: command.working_dir.clone(),
            display_name: None,
            weight: 1.0,
            scale: None,
            black_view_scores: false,
            ponder: true,
            nodes: NodesRule::Gui,
            option_filter: Default::default(),
            options: Vec::new(),
        }
    }

    /// Every member the config asks for: normal members by number, then (for the mate types)
    /// the mate engine, then (for `mate-pv`) the PV mate engines.
    pub fn from_config(config: &Config) -> Vec<MemberSpec> {
        let mut specs: Vec<MemberSpec> = config
            .engines
            .iter()
            .map(|e| MemberSpec {
                display_name: e.name.clone(),
                weight: e.weight,
                scale: e.scale,
                black_view_scores: e.black_view_scores,
                ponder: e.ponder,
                nodes: e.nodes,
                option_filter: e.option_filter.clone(),
                options: e.options.clone(),
                ..MemberSpec::from_command(e.number, Role::Normal, &e.command)
            })
            .collect();
        if config.runs_mate_engine() {
            if let Some(mate) = &config.mate_engine {
                specs.push(MemberSpec::from_command(0, Role::Mate, mate));
                for n in config.pv_mate_numbers() {
                    specs.push(MemberSpec::from_command(n, Role::PvMate, mate));
                }
            }
        }
        specs
    }

    /// The option prefix, `E<N>_`.
    pub fn prefix(&self) -> String {
        format!("E{}_", self.number)
    }

    /// The command line as one string, for logs.
    pub fn command_text(&self) -> String {
        let mut s = self.program.display().to_string();
        for a in &self.args {
            s.push(' ');
            s.push_str(a);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn from_config_numbers_and_roles() {
        let text = "Gougi.Type=mate-pv\nEngine3.Path=builtin:search\nEngine3.Name=S\n\
                    Engine3.Weight=2\nMateEngine.Path=builtin:mate\nMateEngine.forPV.Count=2\n";
        let config = Config::parse(text, Path::new("/tmp/SimpleGougi.config")).unwrap();
        let specs = MemberSpec::from_config(&config);
        let summary: Vec<(u32, Role, String)> = specs
            .iter()
            .map(|s| (s.number, s.role, s.prefix()))
            .collect();
        assert_eq!(
            summary,
            vec![
                (3, Role::Normal, "E3_".to_owned()),
                (0, Role::Mate, "E0_".to_owned()),
                (11, Role::PvMate, "E11_".to_owned()),
                (12, Role::PvMate, "E12_".to_owned()),
            ]
        );
        assert_eq!(specs[0].display_name.as_deref(), Some("S"));
        assert_eq!(specs[0].weight, 2.0);
        assert_eq!(specs[0].args, vec!["search", SEARCH_MEMBER_FLAG]);
        assert_eq!(specs[1].args, vec!["mate"]);
        assert_eq!(specs[0].program, std::env::current_exe().unwrap());
        assert!(specs.iter().all(|s| s.ponder && s.nodes == NodesRule::Gui));
    }

    #[test]
    fn ponder_and_nodes_reach_the_spec() {
        let text = "Gougi.Type=majority\nEngine1.Path=builtin:search\nEngine1.Ponder=false\n\
                    Engine1.Nodes=off\nEngine2.Path=builtin:search\nEngine2.Nodes=20000\n";
        let config = Config::parse(text, Path::new("/tmp/SimpleGougi.config")).unwrap();
        let specs = MemberSpec::from_config(&config);
        assert_eq!(
            specs
                .iter()
                .map(|s| (s.ponder, s.nodes))
                .collect::<Vec<_>>(),
            vec![(false, NodesRule::Off), (true, NodesRule::Fixed(20000))]
        );
    }

    #[test]
    fn mate_engine_left_out_when_the_type_ignores_it() {
        let text =
            "Gougi.Type=optimistic\nEngine1.Path=builtin:search\nMateEngine.Path=builtin:mate\n";
        let config = Config::parse(text, Path::new("/tmp/SimpleGougi.config")).unwrap();
        let specs = MemberSpec::from_config(&config);
        assert_eq!(specs.len(), 1);
        assert!(specs[0].command_text().ends_with(" search --member"));
    }
}
