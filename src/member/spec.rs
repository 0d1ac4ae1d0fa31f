//! [`MemberSpec`]: what to run for one member, and the per-member switches it carries
//! ([`NodesRule`], [`OptionFilter`], [`MemberOption`]). The config fills them in
//! (`Config::member_specs`, from `Engine<N>.*` and `MateEngine.*`); this module does not read
//! the config, so the arrow between the two goes one way (config → member).
//!
//! Numbers follow the original GougiShogi: normal members keep their configured `N` (option
//! prefix `E<N>_`), the mate engine is 0 (`E0_`), PV mate engines take the numbers
//! `Config::pv_mate_numbers` gives (`E11_`, `E12_`, … when N ≤ 10).

use std::path::PathBuf;

use super::command::{Builtin, EngineCommand};

/// The flag `builtin:search` members get (`gougi search --member`): defaults for an engine
/// whose time gougi manages (no network latency margins, see `search::engine::Options::member`).
pub const SEARCH_MEMBER_FLAG: &str = "--member";

/// How `nodes` limits reach one member (`Engine<N>.Nodes`). Some engines cannot take
/// `go … nodes` at all (Debian's gpsusi aborts on it; its own `--node-count-hard-limit` bounds
/// it instead), others should search a fixed budget whatever the GUI asks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NodesRule {
    /// The default: the GUI's `go` is passed on as it is (with its `nodes`, if any).
    #[default]
    Gui,
    /// Every `go` this member gets carries `nodes <n>` instead of the GUI's node limit.
    Fixed(u64),
    /// The member never gets `nodes`: a GUI `go nodes` reaches it as
    /// `go btime 0 wtime 0 byoyomi 1000`, and its own limits decide.
    Off,
}

/// `Engine<N>.ShowOptions` / `Engine<N>.HideOptions`: regular expressions (searched anywhere in
/// the option's name; anchor with `^…$`) choosing which of a member's options reach the GUI's
/// dialog as `E<N>_<name>`: those that match `show` (all when absent) and not `hide`. Three real
/// members bring over a hundred rows; the hidden ones keep the member's defaults. Checked when
/// the config is read, so a bad pattern is a config error naming its line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OptionFilter {
    pub show: Option<String>,
    pub hide: Option<String>,
}

impl OptionFilter {
    /// The filter as a predicate on option names (patterns compiled once).
    pub fn matcher(&self) -> impl Fn(&str) -> bool {
        let compile = |p: &Option<String>| p.as_deref().and_then(|p| regex::Regex::new(p).ok());
        let (show, hide) = (compile(&self.show), compile(&self.hide));
        move |name: &str| {
            show.as_ref().is_none_or(|r| r.is_match(name))
                && !hide.as_ref().is_some_and(|r| r.is_match(name))
        }
    }
}

/// `Engine<N>.Option.<Name>=<value>`: a config default for one of a member's USI options, or
/// (`solo`) `Engine<N>.SoloOption.<Name>=<value>`, its value in the rounds where it plays alone.
/// Whether the member declares it is known only at its `usiok`, so that check is the
/// coordinator's (a warning, not an error: the member may be another build or version).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberOption {
    pub name: String,
    pub value: String,
    /// From `Engine<N>.SoloOption.*` rather than `Engine<N>.Option.*`.
    pub solo: bool,
    /// The config file and line, for the warning about a name the member does not declare.
    pub file: PathBuf,
    pub line: usize,
}

impl MemberOption {
    /// Where the value was set, for messages: `file:line`, or `environment variable GOUGI_…`
    /// (then `file` holds that and `line` is 0).
    pub fn origin(&self) -> String {
        if self.line == 0 {
            self.file.display().to_string()
        } else {
            format!("{}:{}", self.file.display(), self.line)
        }
    }

    /// `Engine<N>.Option.<Name>` (or `Engine<N>.SoloOption.<Name>`), the key as written.
    pub fn key(&self, number: u32) -> String {
        let table = if self.solo { "SoloOption" } else { "Option" };
        format!("Engine{number}.{table}.{}", self.name)
    }
}

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
    /// `Engine<N>.SearchMoves` (default true). False: the member ignores `go searchmoves`, so
    /// the `split` type gives it the position after each move of a rest leaf instead.
    pub searchmoves: bool,
    /// `Engine<N>.Nodes` (default [`NodesRule::Gui`]). Mate members keep the default.
    pub nodes: NodesRule,
    /// `Engine<N>.MinCores`: under a clock the member is asked only on a machine with at least
    /// this many logical CPUs (0, the default: always). The guard's mate member has
    /// `MateEngine.MinCores`; other mate members keep the default.
    pub min_cores: u32,
    /// `Engine<N>.ShowOptions`/`HideOptions`: which options the GUI sees (all by default).
    pub option_filter: OptionFilter,
    /// `Engine<N>.Option.<Name>=<value>`: the config's defaults for the member's options.
    pub options: Vec<MemberOption>,
    /// `Engine<N>.SoloOption.<Name>=<value>`: its options' values in the rounds where it is the
    /// only normal member asked (the coordinator switches them). Mate members have none.
    pub solo_options: Vec<MemberOption>,
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
            searchmoves: true,
            nodes: NodesRule::Gui,
            min_cores: 0,
            option_filter: Default::default(),
            options: Vec::new(),
            solo_options: Vec::new(),
        }
    }

    /// A member running a resolved command line, with the default switches (`builtin:search`
    /// also gets [`SEARCH_MEMBER_FLAG`]).
    pub fn from_command(number: u32, role: Role, command: &EngineCommand) -> MemberSpec {
        let mut args = command.args.clone();
        if command.builtin == Some(Builtin::Search) {
            // Right after the subcommand, before the user's own words (`builtin:search …`).
            args.insert(1.min(args.len()), SEARCH_MEMBER_FLAG.to_owned());
        }
        MemberSpec {
            args,
            working_dir: command.working_dir.clone(),
            ..MemberSpec::new(number, role, command.program.clone(), &[])
        }
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
    use crate::config::Config;
    use std::path::Path;

    #[test]
    fn member_specs_numbers_and_roles() {
        let text = "Gougi.Type=mate-pv\nEngine3.Path=builtin:search\nEngine3.Name=S\n\
                    Engine3.Weight=2\nMateEngine.Path=builtin:mate\nMateEngine.forPV.Count=2\n";
        let config = Config::parse(text, Path::new("/tmp/SimpleGougi.config")).unwrap();
        let specs = config.member_specs();
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
                    Engine1.Nodes=off\nEngine2.Path=builtin:search\nEngine2.Nodes=20000\n\
                    Engine2.SearchMoves=false\n";
        let config = Config::parse(text, Path::new("/tmp/SimpleGougi.config")).unwrap();
        let specs = config.member_specs();
        assert_eq!(
            specs
                .iter()
                .map(|s| (s.ponder, s.nodes, s.searchmoves))
                .collect::<Vec<_>>(),
            vec![
                (false, NodesRule::Off, true),
                (true, NodesRule::Fixed(20000), false)
            ]
        );
    }

    #[test]
    fn mate_engine_left_out_when_the_type_ignores_it() {
        let text =
            "Gougi.Type=optimistic\nEngine1.Path=builtin:search\nMateEngine.Path=builtin:mate\n";
        let config = Config::parse(text, Path::new("/tmp/SimpleGougi.config")).unwrap();
        let specs = config.member_specs();
        assert_eq!(specs.len(), 1);
        assert!(specs[0].command_text().ends_with(" search --member"));
    }
}
