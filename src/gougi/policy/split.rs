//! `split` (最善手予測分割, best-move-prediction split): the master's tree and its minimax.
//!
//! After Kaneko & Tanaka (GPW 2010), as GPS将棋 ran it on a cluster: the master predicts the
//! best moves, grows a tree along them until every member has one leaf, each member searches
//! its leaf with an unmodified engine, and the master backs the leaves' values up by minimax.
//!
//! - **Prediction** ([`Prediction`]): lines ranked best first (the first member's shallow
//!   MultiPV lines, then the line the consultation played last move, from where the opponent's
//!   reply left it). A line's first move is ranked at the root after those already there, its
//!   second move first after it, and so on down the line.
//! - **Growth** ([`Tree::grow`]): each leaf has a weight, its share of the chance that the
//!   principal line runs through it (the root: 1). The heaviest position leaf with a prediction
//!   (ties: the shallower, then the earlier) is expanded into its predicted best move (half the
//!   weight), its second best when it has one and there is room, and "all other moves" as one
//!   leaf (a *rest*), the other half shared equally. A single other move is a move of its own,
//!   not a rest. Growth stops at one leaf per member, or when no leaf can grow; members beyond
//!   the leaves share the heaviest ones ([`Tree::assign`]).
//! - **Backup** ([`backup`]): a leaf's value is its member's score, from the side to move in
//!   the position it searched (a rest: its parent's position, restricted to the rest's moves).
//!   A node takes the best of its valued children for its side to move (negamax: a move is
//!   worth minus the reply, a mate one ply longer); ties go to the earlier child, in predicted
//!   order. A leaf whose member died or answered late has no value and is left out: the node
//!   backs up what is in, and a node with no valued child has no value. Several members on one
//!   leaf: the best of their values, the earlier member on a tie.
//!
//! The functions here are pure; the coordinator (`coordinator/split.rs`) runs the searches.

use std::cmp::Ordering;

pub use super::decision::SplitFinding as Finding;
use super::leader::value_of_reply;
use crate::gougi::answer::Eval;
use crate::usi::UsiMove;

/// Predicted best moves: at a position, its moves ranked best first, each with the prediction
/// for the position after it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prediction {
    pub moves: Vec<(UsiMove, Prediction)>,
}

impl Prediction {
    /// Lines ranked best first, each added in turn ([`Prediction::add_line`]).
    pub fn from_lines<'a>(lines: impl IntoIterator<Item = &'a [UsiMove]>) -> Prediction {
        let mut p = Prediction::default();
        for line in lines {
            p.add_line(line);
        }
        p
    }

    /// The line's first move ranks after the moves already predicted here (unless it is one of
    /// them), and the rest of the line is predicted after it in the same way.
    pub fn add_line(&mut self, line: &[UsiMove]) {
        let Some((&first, rest)) = line.split_first() else {
            return;
        };
        let k = match self.moves.iter().position(|(m, _)| *m == first) {
            Some(k) => k,
            None => {
                self.moves.push((first, Prediction::default()));
                self.moves.len() - 1
            }
        };
        self.moves[k].1.add_line(rest);
    }

    /// The prediction after `path`, if the path was predicted.
    pub fn at(&self, path: &[UsiMove]) -> Option<&Prediction> {
        let mut p = self;
        for m in path {
            p = &p.moves.iter().find(|(x, _)| x == m)?.1;
        }
        Some(p)
    }
}

/// How a node is reached from its parent.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// One move: the node is the position after it.
    Move(UsiMove),
    /// Every other legal move of the parent's position, in this order (at least two): a leaf,
    /// searched with `go searchmoves` or as the position after each move.
    Rest(Vec<UsiMove>),
}

/// One node of the master's tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub parent: Option<usize>,
    /// `None` for the root.
    pub step: Option<Step>,
    pub children: Vec<usize>,
    /// Its share of the chance that the principal line runs through it (the root: 1).
    pub weight: f64,
    /// Plies from the root to the position it is searched in (a rest: its parent's).
    pub plies: usize,
}

/// The master's tree; node 0 is the root, and every child comes after its parent.
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    pub nodes: Vec<Node>,
}

/// The root's index.
pub const ROOT: usize = 0;

impl Tree {
    /// The root alone: one leaf, the position itself.
    pub fn root() -> Tree {
        Tree {
            nodes: vec![Node {
                parent: None,
                step: None,
                children: Vec::new(),
                weight: 1.0,
                plies: 0,
            }],
        }
    }

    /// Grows the tree along `prediction` until it has `members` leaves or no leaf can grow (see
    /// the module doc). `legal(path)` gives the legal moves after `path` (from the root) in a
    /// fixed order; predicted moves that are not among them are not followed.
    pub fn grow(
        prediction: &Prediction,
        members: usize,
        legal: &mut dyn FnMut(&[UsiMove]) -> Vec<UsiMove>,
    ) -> Tree {
        let mut tree = Tree::root();
        let mut tried = vec![false];
        loop {
            let leaves = tree.leaves().len();
            if leaves >= members {
                break;
            }
            let pick = (0..tree.nodes.len())
                .filter(|&n| tree.nodes[n].children.is_empty() && !tried[n] && !tree.is_rest(n))
                .max_by(|&a, &b| tree.priority(a, b));
            let Some(n) = pick else { break };
            tried[n] = true;
            let path = tree.path(n);
            let here = legal(&path);
            let predicted: Vec<UsiMove> = prediction
                .at(&path)
                .map(|p| p.moves.iter().map(|(m, _)| *m))
                .into_iter()
                .flatten()
                .filter(|m| here.contains(m))
                .collect();
            if predicted.is_empty() {
                continue;
            }
            // The children: k predicted moves, then the other moves as one rest (or one move
            // when a single one is left). Expanding a leaf into c children adds c − 1 leaves.
            let room = members - leaves;
            let children = |k: usize| k + (here.len() - k).min(1);
            let mut k = predicted.len().min(2);
            while k > 1 && children(k) - 1 > room {
                k -= 1;
            }
            let mut steps: Vec<Step> = predicted[..k].iter().map(|&m| Step::Move(m)).collect();
            let others: Vec<UsiMove> = predicted[k..]
                .iter()
                .copied()
                .chain(here.iter().copied().filter(|m| !predicted.contains(m)))
                .collect();
            match others.len() {
                0 => {}
                1 => steps.push(Step::Move(others[0])),
                _ => steps.push(Step::Rest(others)),
            }
            tree.expand(n, steps);
            tried.resize(tree.nodes.len(), false);
        }
        tree
    }

    /// Which of two leaves grows first: the heavier, then the shallower, then the earlier.
    fn priority(&self, a: usize, b: usize) -> Ordering {
        let (x, y) = (&self.nodes[a], &self.nodes[b]);
        x.weight
            .total_cmp(&y.weight)
            .then(y.plies.cmp(&x.plies))
            .then(b.cmp(&a))
    }

    /// Gives leaf `n` these children: the first gets half its weight, the others share the
    /// other half (a single child gets it all).
    fn expand(&mut self, n: usize, steps: Vec<Step>) {
        let w = self.nodes[n].weight;
        let count = steps.len();
        let plies = self.nodes[n].plies;
        for (k, step) in steps.into_iter().enumerate() {
            let weight = match (count, k) {
                (1, _) => w,
                (_, 0) => w / 2.0,
                _ => w / 2.0 / (count - 1) as f64,
            };
            let plies = match step {
                Step::Move(_) => plies + 1,
                Step::Rest(_) => plies,
            };
            let id = self.nodes.len();
            self.nodes.push(Node {
                parent: Some(n),
                step: Some(step),
                children: Vec::new(),
                weight,
                plies,
            });
            self.nodes[n].children.push(id);
        }
    }

    pub fn is_rest(&self, n: usize) -> bool {
        matches!(self.nodes[n].step, Some(Step::Rest(_)))
    }

    /// The moves from the root to the position node `n` is searched in (a rest: its parent's).
    pub fn path(&self, n: usize) -> Vec<UsiMove> {
        let mut moves = Vec::new();
        let mut at = Some(n);
        while let Some(k) = at {
            if let Some(Step::Move(m)) = self.nodes[k].step {
                moves.push(m);
            }
            at = self.nodes[k].parent;
        }
        moves.reverse();
        moves
    }

    /// The leaves, in tree order (children in predicted order, the rest last).
    pub fn leaves(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![ROOT];
        while let Some(n) = stack.pop() {
            let children = &self.nodes[n].children;
            if children.is_empty() {
                out.push(n);
            }
            stack.extend(children.iter().rev());
        }
        out
    }

    /// The leaf each member searches, members in order (`searchmoves[m]`: member m takes `go
    /// searchmoves`). Leaves go heaviest first (then in tree order, so the principal line's
    /// leaf comes first among equals) to the first member not yet given one; a rest goes to the
    /// first such member that takes `searchmoves`, if any. Members beyond the leaves get them
    /// again, in the same order.
    pub fn assign(&self, searchmoves: &[bool]) -> Vec<usize> {
        let mut order = self.leaves();
        order.sort_by(|&a, &b| self.nodes[b].weight.total_cmp(&self.nodes[a].weight));
        let mut leaf_of = vec![ROOT; searchmoves.len()];
        let mut free: Vec<usize> = (0..searchmoves.len()).collect();
        for &leaf in order.iter().cycle() {
            if free.is_empty() {
                break;
            }
            let k = if self.is_rest(leaf) {
                free.iter().position(|&m| searchmoves[m]).unwrap_or(0)
            } else {
                0
            };
            leaf_of[free.remove(k)] = leaf;
        }
        leaf_of
    }

    /// A child's value for the side to move at its parent, from the values of the nodes.
    fn for_parent(&self, c: usize, values: &[Option<i64>]) -> Option<i64> {
        match self.nodes[c].step {
            Some(Step::Rest(_)) => values[c],
            _ => values[c].map(|v| value_of_reply(eval(v))),
        }
    }

    /// The child of `n` with the best value for `n`'s side to move (the first on a tie), if
    /// any child has a value.
    fn best_child(&self, n: usize, values: &[Option<i64>]) -> Option<usize> {
        let mut best: Option<(usize, i64)> = None;
        for &c in &self.nodes[n].children {
            if let Some(v) = self.for_parent(c, values) {
                if best.is_none_or(|(_, b)| v > b) {
                    best = Some((c, v));
                }
            }
        }
        best.map(|(c, _)| c)
    }
}

/// A value as an [`Eval`] (values come from `Eval`s and [`value_of_reply`], so they fit).
fn eval(v: i64) -> Eval {
    Eval(v.clamp(-i64::from(Eval::MATE), i64::from(Eval::MATE)) as i32)
}

/// What one member found at its leaf.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// Its value, from the side to move in the position it searched (calibrated).
    pub value: Option<i64>,
    /// Its best move there (for a rest: the rest's move).
    pub mv: Option<UsiMove>,
}

/// The tree's values and its best line.
#[derive(Clone, Debug, PartialEq)]
pub struct Backup {
    /// Each node's value for the side to move at its position (a rest: its parent's side).
    pub values: Vec<Option<i64>>,
    /// At each leaf, the member whose value it holds.
    pub by: Vec<Option<usize>>,
    /// The best line's nodes, from a child of the root down to a leaf (empty when the root is
    /// a leaf, or has no value).
    pub line: Vec<usize>,
}

/// Backs up what the members found (`found[m]`, member m at leaf `leaf_of[m]`; `None`: no
/// answer) by minimax.
pub fn backup(tree: &Tree, leaf_of: &[usize], found: &[Option<Found>]) -> Backup {
    let n = tree.nodes.len();
    let mut values: Vec<Option<i64>> = vec![None; n];
    let mut by = vec![None; n];
    for (m, &leaf) in leaf_of.iter().enumerate() {
        if let Some(Some(Found { value: Some(v), .. })) = found.get(m) {
            if values[leaf].is_none_or(|b| *v > b) {
                values[leaf] = Some(*v);
                by[leaf] = Some(m);
            }
        }
    }
    // Children come after their parents: from the last node back, each is final when read.
    for k in (0..n).rev() {
        if !tree.nodes[k].children.is_empty() {
            values[k] = tree
                .best_child(k, &values)
                .and_then(|c| tree.for_parent(c, &values));
        }
    }
    let mut line = Vec::new();
    let mut at = ROOT;
    while let Some(c) = tree.best_child(at, &values) {
        line.push(c);
        at = c;
    }
    Backup { values, by, line }
}

impl Backup {
    /// The root's value, for its side to move.
    pub fn value(&self) -> Option<i64> {
        self.values[ROOT]
    }

    /// The leaf the best line ends in (the root when it is a leaf), when the root has a value.
    pub fn leaf(&self) -> Option<usize> {
        self.value()?;
        Some(self.line.last().copied().unwrap_or(ROOT))
    }

    /// The move to play: the best line's first move, or the move its member found when the
    /// line starts at a rest or the root is a leaf.
    pub fn played(&self, tree: &Tree, found: &[Option<Found>]) -> Option<UsiMove> {
        let first = self.line.first().copied().or_else(|| self.leaf())?;
        match &tree.nodes[first].step {
            Some(Step::Move(m)) => Some(*m),
            _ => found.get(self.by[first]?)?.as_ref()?.mv,
        }
    }
}

/// The tree as the `[why]` line shows it: the root's children in predicted order, each as its
/// move (a rest: `*` and the move its member found), its value from the root's side (the
/// side to move: gougi's moves take the largest, the opponent's the smallest; `?` for none),
/// then its member (`leaf(n)`, e.g. `E3`) or its own children in braces:
/// `7g7f 35 {3c3d 40 E1, *8c8d 35 E2}, 2g2f 30 E3, *5g5f 10 E4`. A root that is a leaf is its
/// best member's move, value and members.
pub fn render(
    tree: &Tree,
    backup: &Backup,
    found: &[Option<Found>],
    leaf: &dyn Fn(usize) -> String,
) -> String {
    let show = |v: Option<i64>| v.map_or("?".to_string(), |v| eval(v).to_string());
    let found_move = |n: usize| {
        backup.by[n]
            .and_then(|m| found.get(m)?.as_ref()?.mv)
            .map_or(String::new(), |m| m.to_string())
    };
    if tree.nodes[ROOT].children.is_empty() {
        let mv = found_move(ROOT);
        let mv = if mv.is_empty() { "-".to_string() } else { mv };
        return format!("{mv} {} {}", show(backup.values[ROOT]), leaf(ROOT));
    }
    let mut out = String::new();
    write_children(tree, backup, ROOT, &show, &found_move, leaf, &mut out);
    out
}

fn write_children(
    tree: &Tree,
    backup: &Backup,
    n: usize,
    show: &dyn Fn(Option<i64>) -> String,
    found_move: &dyn Fn(usize) -> String,
    leaf: &dyn Fn(usize) -> String,
    out: &mut String,
) {
    // The root's side moves at even plies.
    let sign = if tree.nodes[n].plies % 2 == 0 { 1 } else { -1 };
    for (k, &c) in tree.nodes[n].children.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        match &tree.nodes[c].step {
            Some(Step::Move(m)) => out.push_str(m.as_str()),
            _ => {
                out.push('*');
                out.push_str(&found_move(c));
            }
        }
        let v = tree.for_parent(c, &backup.values).map(|v| v * sign);
        out.push(' ');
        out.push_str(&show(v));
        if tree.nodes[c].children.is_empty() {
            out.push(' ');
            out.push_str(&leaf(c));
        } else {
            out.push_str(" {");
            write_children(tree, backup, c, show, found_move, leaf, out);
            out.push('}');
        }
    }
}

/// What `split` remembers over a game.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    /// The line played last move, as a prediction: the `position` command (its text) the
    /// opponent's expected reply leads to, and the moves predicted from there.
    pub line: Option<(String, Vec<UsiMove>)>,
    /// The member asked for its prediction's `MultiPV` lines and not set back yet: its slot
    /// and process instance (a new process holds its usual value).
    pub multipv: Option<(usize, u64)>,
    /// Members (numbers) the GUI was told ignore `go searchmoves`.
    pub ignores: Vec<u32>,
}

// The tests are a file of their own, so that this file stays well within the 600-line bound.
#[cfg(test)]
mod tests;
