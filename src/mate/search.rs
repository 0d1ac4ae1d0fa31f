//! Depth-first proof-number search (df-pn) with a mate-length bound.
//!
//! One node is searched by [`Dfpn::search`]: it expands the node once (every child probed in
//! the table, or estimated), then loops — pick the most-proving child, search it with
//! thresholds derived from the second-best child (Nagai's df-pn), update its cached numbers —
//! until the node's numbers cross its thresholds or it is proven or disproven.
//!
//! Bounded search: every call carries `bound`, the longest mate (in plies from this node) that
//! counts. A node is *proven* when a mate of length ≤ `bound` is known and *disproven* when no
//! mate shorter than `bound + 1` exists. The first search uses `LEN_UNBOUNDED`; the
//! shortest-mate driver ([`super::solver`]) then re-searches with `bound = L - 2` until that
//! fails, which proves the length `L` minimal under plain minimax. Lengths are kept as an
//! interval per node: `upper` (a proven mate length) and `lower` (no mate shorter than it),
//! combined as `1 + min` at OR nodes and `1 + max` at AND nodes.
//!
//! Further pieces:
//! - df-pn+ initial estimates: a check's pn starts at the number of the defender's replies
//!   (counting them is also the 1-ply mate test: zero replies is mate), and a reply's dn at
//!   twice the number of the attacker's checks after it (zero checks is a disproof);
//! - a position with no checks is a disproof found at expansion (no-mate-possible leaf);
//! - proof pieces (証明駒): OR node = the proving child's proof hand plus the dropped piece,
//!   minus the captured one; AND node = the union of its children's proof hands, plus every
//!   attacker piece of a kind the defender lacks when the check could be blocked by a drop;
//!   disproof pieces (反証駒): a node with no check holds for more pieces of every kind
//!   already in hand; OR node = per kind the least of its children's disproof hands carried
//!   back across the checks (none of a kind not in hand); AND node = the refuting evasion's,
//!   with a kind the defender drops kept at the node's count (a bigger attacker hand would
//!   leave the defender without it). Stored as "no mate within the bound" for that hand;
//!   the exact hand keeps its full lower bound. Path-dependent (repetition) disproofs keep
//!   the node's own hand;
//! - repetition (千日手) is a failure for the attacker. Such a disproof depends on the path:
//!   results carry `rep_depth`, the shallowest ancestor their failure goes through. A result
//!   whose cycle closes at or below the node itself is path-independent; anything else is
//!   never stored in the table as a disproof (the graph-history-interaction (GHI) problem),
//!   it lives only in the parent's local child list;
//! - the 1+ε trick for child thresholds (ε = 1/4): without it, nikami_kongo_shtsume.txt
//!   takes about ten times more nodes (measured with `gougi bench mate`);
//! - delayed expansion (after KomoringHeights): drops on the same interposition square, and the
//!   non-promoting form of a pawn/bishop/rook move, wait until the previous one is resolved,
//!   so futile interpositions do not inflate an AND node's proof number;
//! - double counting in DAGs (the summed number of a node counts a shared descendant once per
//!   route), an option (`DoubleCount`, off by default: on the benchmark files it cost more
//!   nodes than it saved — BENCHMARKS.md): every unresolved table entry links to the node
//!   that last searched it. When the child a node is about to search was found in the table
//!   under another parent, the links are followed upwards; if they reach a node on the
//!   current path (the *branch root*) and the summed number did not jump on the way (a jump
//!   means other branches dominate it, so the overlap hardly matters), the branch root adds
//!   the two children that lead to the shared node by their maximum instead of their sum. The
//!   flags live in the branch root's local child list (found by its depth); the detection
//!   follows KomoringHeights' idea. Sums are kept finite (below infinity) while no child is
//!   resolved, so an unresolved root never passes for a resolved one;
//! - threshold control (TCA, Kishimoto 2010): when a node has a child on the current path, its
//!   thresholds are raised just above its numbers so it keeps searching instead of bouncing
//!   between ancestors with unchanged numbers. Kishimoto's full form also hands the raise down
//!   to the nodes below until a new node is expanded; built and measured, it cost 9 % more
//!   nodes on 寿 (611 plies) and nothing on the nikami file, so the raise stays at the node;
//! - the recursion runs on a thread with a large stack (see [`super::solver`]); depth is
//!   bounded by [`MAX_DEPTH`], beyond which a node reports "unknown" (never stored).
//!
//! References: Nagai 2002 (df-pn); Kishimoto & Müller 2005 (GHI, df-pn+); Kishimoto 2010
//! (TCA); Pawlewicz & Lew 2007 (1+ε); Kaneko et al. (proof/disproof pieces); KomoringHeights
//! (design study only, no code taken).

use crate::shogi::zobrist::KeyHasher;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::board::MateBoard;
use super::pndn::{len_plus_one, pn_add, Len, PnDn, LEN_INFINITE, PN_INFINITE};
use super::tt::{MateTable, NodeId};
use crate::shogi::{Hand, PieceKind};

/// The deepest ply the search goes to (the 1,525-ply problems need about 1,600).
pub const MAX_DEPTH: u32 = 6000;

/// `rep_depth` of a path-independent result.
pub const REP_NONE: u32 = u32::MAX;

/// `rep_depth` of a result cut by [`MAX_DEPTH`]: never becomes path-independent.
const REP_DEPTH_CUT: u32 = 0;

/// What a search of one node returns.
#[derive(Clone, Copy, Debug)]
pub struct NodeResult {
    pub pn: PnDn,
    pub dn: PnDn,
    /// A proven mate length (valid for hands ≥ `proof_hand`), or `LEN_INFINITE`.
    pub upper: Len,
    /// No mate shorter than this.
    pub lower: Len,
    pub proof_hand: Hand,
    /// The shallowest ancestor depth a disproof depends on, or [`REP_NONE`].
    pub rep_depth: u32,
}

/// One child in a node's local list.
struct Child<M> {
    mv: M,
    /// The child this one waits for (delayed expansion), or `NO_PRED`.
    pred: u32,
    pn: PnDn,
    dn: PnDn,
    upper: Len,
    lower: Len,
    proof_hand: Hand,
    rep_depth: u32,
    dropped: Option<PieceKind>,
    captured: Option<PieceKind>,
    /// The child position (board key, attacker hand).
    id: NodeId,
    /// Whether the child's δ (dn at an OR node, pn at an AND node) is added to its siblings';
    /// false once it is known to share descendants with another child (double count).
    sum: bool,
    /// The parent the table named for the child when it was expanded, if another node.
    tt_parent: Option<NodeId>,
}

const NO_PRED: u32 = u32::MAX;

/// A node's numbers from its children: its (pn, dn), the part of its δ that is a sum (the
/// children flagged `sum`; the others add only their maximum), the most-proving child and the
/// second-best φ among the others.
struct Scan {
    pn: PnDn,
    dn: PnDn,
    delta_sum: PnDn,
    best: usize,
    second: PnDn,
}

/// The key of a node on the path. Board and attacker hand identify a position inside one
/// problem: the pieces are conserved, so the defender's hand follows from them.
#[inline]
fn path_key((board, hand): NodeId) -> u64 {
    board
        ^ u64::from(hand.raw())
            .wrapping_add(1)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// Following table parents towards the branch root stops when a node's summed number exceeds
/// its child's by more than this: the node then owes its number mostly to other branches.
const DC_JUMP: PnDn = 3;

/// A double count found below a branch root: the node at `depth` on the path should take
/// the maximum, not the sum, over the child leading to `tt_child` and the child on the path
/// (`path_child`, or the child being searched when `None`).
#[derive(Clone, Copy)]
struct DcMark {
    depth: u32,
    tt_child: NodeId,
    path_child: Option<NodeId>,
}

/// Whether child `i` takes part yet: not delayed, resolved itself (a resolved child always
/// counts), or its predecessor is resolved.
#[inline]
fn active<M>(children: &[Child<M>], i: usize) -> bool {
    let me = &children[i];
    let p = me.pred;
    p == NO_PRED || me.pn == 0 || me.dn == 0 || {
        let c = &children[p as usize];
        c.pn == 0 || c.dn == 0
    }
}

/// Progress figures for `info` lines.
pub struct Progress<'a, M> {
    pub nodes: u64,
    pub elapsed_ms: u64,
    pub hashfull: u32,
    pub line: &'a [M],
}

/// The progress callback: called about once a second with the figures for an `info` line.
pub type Reporter<'a, M> = &'a mut dyn FnMut(&Progress<'_, M>);

/// Tests only: a hook on the solver's phases (see [`Dfpn`]).
#[cfg(test)]
pub(crate) type PhaseHook<'a> = &'a mut dyn FnMut(&'static str, &mut MateTable);

/// The 1+ε trick (Pawlewicz & Lew 2007): let the best child run until its φ exceeds the
/// second-best by a factor, not by one, so siblings with close numbers do not alternate
/// (the seesaw effect) and re-expand the same subtrees over and over.
#[inline]
fn epsilon_threshold(second: PnDn) -> PnDn {
    pn_add(pn_add(second, second / EPSILON_DIVISOR), 1)
}

/// ε = 1 / EPSILON_DIVISOR.
const EPSILON_DIVISOR: PnDn = 4;

/// How often (in nodes) the clock and the stop flag are looked at: about 1 ms of search at
/// 0.5-1 M nodes/s, so `stop` is answered within a few ms; the poll itself (an atomic load and
/// a clock read) costs nothing measurable at this rate.
const POLL_INTERVAL: u64 = 1024;

/// The df-pn searcher over one board and one table.
pub struct Dfpn<'a, B: MateBoard> {
    pub board: &'a mut B,
    pub tt: &'a mut MateTable,
    /// Path keys (see [`path_key`]) on the current path → their depth (first occurrence).
    path: std::collections::HashMap<u64, u32, KeyHasher>,
    /// The nodes searched by [`Dfpn::search`] on the current path, outermost first.
    frames: Vec<NodeId>,
    /// Double counts waiting for their branch root to take them in.
    dc_marks: Vec<DcMark>,
    /// Whether double counts are looked for (see the module doc; off by default: on the
    /// benchmark files it costs more nodes than it saves, BENCHMARKS.md).
    pub double_count: bool,
    /// The moves of the current path (for `info … pv`).
    line: Vec<B::Move>,
    /// Spare move and child lists for [`Dfpn::search`] (see there).
    move_pool: Vec<Vec<B::Move>>,
    child_pool: Vec<Vec<Child<B::Move>>>,
    pub nodes: u64,
    start: Instant,
    deadline: Option<Instant>,
    stop: &'a AtomicBool,
    pub aborted: bool,
    /// Abort once this many nodes are searched (checked exactly: the next poll is due then).
    max_nodes: Option<u64>,
    next_poll: u64,
    next_report_ms: u64,
    report: Option<Reporter<'a, B::Move>>,
    /// Tests only: called with the node count at every node (e.g. to raise `stop` at an exact
    /// node, so a test of the stop paths does not depend on timing).
    #[cfg(test)]
    pub(crate) on_node: Option<&'a mut dyn FnMut(u64)>,
    /// Tests only: (phase name, node count) at the start of each solver phase.
    #[cfg(test)]
    pub(crate) phases: Vec<(&'static str, u64)>,
    /// Tests only: called at the start of each solver phase with its name and the table (e.g.
    /// to clear it, as if a small table had lost the proof).
    #[cfg(test)]
    pub(crate) on_phase: Option<PhaseHook<'a>>,
}

impl<'a, B: MateBoard> Dfpn<'a, B> {
    /// A searcher; `deadline` and `stop` end the search early (`aborted` is then set).
    pub fn new(
        board: &'a mut B,
        tt: &'a mut MateTable,
        deadline: Option<Instant>,
        stop: &'a AtomicBool,
        report: Option<Reporter<'a, B::Move>>,
    ) -> Self {
        Dfpn {
            board,
            tt,
            path: std::collections::HashMap::default(),
            frames: Vec::new(),
            dc_marks: Vec::new(),
            double_count: false,
            line: Vec::new(),
            move_pool: Vec::new(),
            child_pool: Vec::new(),
            nodes: 0,
            start: Instant::now(),
            deadline,
            stop,
            aborted: false,
            max_nodes: None,
            next_poll: POLL_INTERVAL,
            next_report_ms: 1000,
            report,
            #[cfg(test)]
            on_node: None,
            #[cfg(test)]
            phases: Vec::new(),
            #[cfg(test)]
            on_phase: None,
        }
    }

    /// Abort after `max` nodes (none: no node budget).
    pub fn set_max_nodes(&mut self, max: Option<u64>) {
        self.max_nodes = max;
        if let Some(max) = max {
            self.next_poll = self.next_poll.min(max.max(1));
        }
    }

    fn current_path_key(&self) -> u64 {
        path_key((self.board.board_key(), self.board.attacker_hand()))
    }

    /// Mark the current position as being on the path at `depth` (the root is depth 1).
    pub fn push_path(&mut self, depth: u32) {
        let key = self.current_path_key();
        self.path.entry(key).or_insert(depth);
    }

    /// Undo [`push_path`](Self::push_path) for the current position at `depth`.
    pub fn pop_path(&mut self, depth: u32) {
        let key = self.current_path_key();
        if self.path.get(&key) == Some(&depth) {
            self.path.remove(&key);
        }
    }

    /// Whether the current position is already on the path; its depth if so.
    pub fn on_path(&self) -> Option<u32> {
        self.path.get(&self.current_path_key()).copied()
    }

    /// Record a move made outside the search (PV walking), for `info` lines.
    pub fn push_line(&mut self, m: B::Move) {
        self.line.push(m);
    }

    pub fn pop_line(&mut self) {
        self.line.pop();
    }

    /// Look at `stop`, the clock and the report timer. Every phase of a solve (the proof, the
    /// shortest-mate re-searches, the line walk) searches through here, and none is exempt:
    /// `stop` and the deadline end all of them within [`POLL_INTERVAL`] nodes (a few ms). Once
    /// set, `aborted` stays set for the rest of the solve.
    fn poll(&mut self) {
        self.next_poll = self.nodes + POLL_INTERVAL;
        if self.stop.load(Ordering::Relaxed) {
            self.aborted = true;
        }
        if let Some(max) = self.max_nodes {
            if self.nodes >= max {
                self.aborted = true;
            }
            self.next_poll = self.next_poll.min(max.max(self.nodes + 1));
        }
        let now = Instant::now();
        if let Some(deadline) = self.deadline {
            if now >= deadline {
                self.aborted = true;
            }
        }
        let elapsed_ms = now.duration_since(self.start).as_millis() as u64;
        if elapsed_ms >= self.next_report_ms {
            self.next_report_ms = elapsed_ms + 1000;
            let hashfull = self.tt.hashfull();
            if let Some(report) = self.report.as_mut() {
                report(&Progress {
                    nodes: self.nodes,
                    elapsed_ms,
                    hashfull,
                    line: &self.line,
                });
            }
        }
    }

    /// The attacker's hand after adjusting a child's proof hand back across move `c`.
    fn or_proof_hand(c: &Child<B::Move>) -> Hand {
        let mut h = c.proof_hand;
        if let Some(k) = c.dropped {
            h.add_saturating(k);
        }
        if let Some(k) = c.captured {
            h.remove_if_any(k);
        }
        h
    }

    /// The largest attacker hand for which "no check at all" still holds: more pieces of a
    /// kind already in hand add no drop squares; a kind not in hand would.
    fn no_check_disproof_hand(hand: Hand) -> Hand {
        let mut d = hand;
        for k in PieceKind::HAND {
            if hand.count(k) > 0 {
                d.set(k, u32::MAX);
            }
        }
        d
    }

    /// Disproof pieces (反証駒) of a disproven OR node: per kind, the least of its children's
    /// disproof hands carried back across each check (a dropped piece added back, a captured
    /// one taken away), and none of a kind not in hand (holding one would allow its drops).
    fn or_disproof_hand(children: &[Child<B::Move>], hand: Hand) -> Hand {
        let mut d = Hand::EMPTY;
        for k in PieceKind::HAND {
            if hand.count(k) == 0 {
                continue;
            }
            let least = children
                .iter()
                .map(|c| Self::or_proof_hand(c).count(k))
                .min()
                .unwrap_or(u32::MAX);
            d.set(k, least.max(hand.count(k)));
        }
        d
    }

    /// Disproof pieces of an AND node refuted by the evasion `c`: the child's, except that a
    /// dropped kind stays at the node's count (a bigger attacker hand would leave the defender
    /// without that piece).
    fn and_disproof_hand(c: &Child<B::Move>, hand: Hand) -> Hand {
        let mut d = c.proof_hand;
        if let Some(k) = c.dropped {
            d.set(k, d.count(k).min(hand.count(k)));
        }
        d
    }

    /// At an AND node, extend a proof hand so that the defender cannot gain interposing pieces.
    fn and_proof_hand(&self, union: Hand, hand: Hand) -> Hand {
        let mut out = union;
        if self.board.check_is_blockable() {
            let defender = self.board.defender_hand();
            for k in PieceKind::HAND {
                if defender.count(k) == 0 {
                    out.set(k, hand.count(k));
                }
            }
        }
        out
    }

    /// A mated AND node: proven with length 0.
    fn mated_result(&self, hand: Hand) -> NodeResult {
        NodeResult {
            pn: 0,
            dn: PN_INFINITE,
            upper: 0,
            lower: 0,
            proof_hand: self.and_proof_hand(Hand::EMPTY, hand),
            rep_depth: REP_NONE,
        }
    }

    fn leaf(pn: PnDn, dn: PnDn, upper: Len, lower: Len, hand: Hand, rep: u32) -> NodeResult {
        NodeResult {
            pn,
            dn,
            upper,
            lower,
            proof_hand: hand,
            rep_depth: rep,
        }
    }

    /// Search the current position (an OR node when `or_node`) at `depth` until its numbers
    /// reach the thresholds, it is resolved under `bound`, or the search is aborted.
    pub fn search(
        &mut self,
        or_node: bool,
        depth: u32,
        thpn: PnDn,
        thdn: PnDn,
        bound: Len,
    ) -> NodeResult {
        if self.frames.is_empty() {
            // A new top-level search: nothing pending from an earlier one.
            self.dc_marks.clear();
        }
        let hand = self.board.attacker_hand();
        let key = self.board.board_key();
        self.frames.push((key, hand));
        // Move and child lists are reused from a pool (one pair per depth in use), not
        // allocated per node.
        let mut moves = self.move_pool.pop().unwrap_or_default();
        let mut children = self.child_pool.pop().unwrap_or_default();
        let node = (key, hand);
        let r = self.search_node(
            or_node,
            depth,
            (thpn, thdn),
            bound,
            node,
            &mut moves,
            &mut children,
        );
        self.move_pool.push(moves);
        self.child_pool.push(children);
        self.frames.pop();
        r
    }

    #[allow(clippy::too_many_arguments)]
    fn search_node(
        &mut self,
        or_node: bool,
        depth: u32,
        (mut thpn, mut thdn): (PnDn, PnDn),
        bound: Len,
        (key, hand): NodeId,
        moves: &mut Vec<B::Move>,
        children: &mut Vec<Child<B::Move>>,
    ) -> NodeResult {
        self.nodes += 1;
        #[cfg(test)]
        if let Some(hook) = self.on_node.as_mut() {
            hook(self.nodes);
        }
        if self.nodes >= self.next_poll {
            self.poll();
        }
        let nodes_at_entry = self.nodes;
        let min_len: Len = if or_node { 1 } else { 2 };

        // Step 1. The node's own entry may already settle it.
        let own = self.tt.probe(key, hand);
        if own.upper <= bound {
            return Self::leaf(
                0,
                PN_INFINITE,
                own.upper,
                own.lower,
                own.proof_hand,
                REP_NONE,
            );
        }
        if own.lower > bound {
            return Self::leaf(
                PN_INFINITE,
                0,
                own.upper,
                own.lower,
                own.disproof_hand,
                REP_NONE,
            );
        }
        if depth >= MAX_DEPTH {
            return Self::leaf(PN_INFINITE, 0, LEN_INFINITE, 0, hand, REP_DEPTH_CUT);
        }

        // Step 2. Generate moves; terminal nodes.
        moves.clear();
        if or_node {
            self.board.generate_or_moves(moves);
            if moves.is_empty() {
                let d = Self::no_check_disproof_hand(hand);
                self.tt.store_lower(key, d, LEN_INFINITE, 1);
                return Self::leaf(PN_INFINITE, 0, LEN_INFINITE, LEN_INFINITE, d, REP_NONE);
            }
        } else {
            self.board.generate_and_moves(moves);
            if moves.is_empty() {
                let r = self.mated_result(hand);
                self.tt.store_proof(key, r.proof_hand, 0, 1);
                return r;
            }
        }
        if bound < min_len {
            // Not resolved within the bound; a trivial lower bound, not worth a table slot.
            return Self::leaf(PN_INFINITE, 0, own.upper, min_len, hand, REP_NONE);
        }
        let child_bound = bound - 1;

        // Step 3. Expand: probe or estimate every child. The children's keys come without
        // playing the moves, and every bucket is prefetched before the first probe, so the
        // cache misses overlap instead of queueing.
        children.clear();
        let mut has_path_child = false;
        let mut groups: Vec<(u16, u32)> = Vec::new();
        for &mv in moves.iter() {
            let dropped = self.board.dropped_kind(mv);
            let captured = self.board.captured_kind(mv);
            let child_key = self.board.board_key_after(mv);
            // Only the attacker's own moves change his hand (a defender's capture goes to
            // the defender's hand).
            let mut child_hand = hand;
            if or_node {
                if let Some(k) = dropped {
                    child_hand.remove(k);
                }
                if let Some(k) = captured {
                    child_hand.add(k);
                }
            }
            if moves.len() > 1 {
                self.tt.prefetch(child_key);
            }
            if cfg!(debug_assertions) {
                self.board.do_move(mv);
                let id = (self.board.board_key(), self.board.attacker_hand());
                self.board.undo_move(mv);
                debug_assert_eq!(id, (child_key, child_hand), "child id of {mv}");
            }
            children.push(Child {
                mv,
                pred: NO_PRED,
                pn: 1,
                dn: 1,
                upper: LEN_INFINITE,
                lower: 0,
                proof_hand: child_hand,
                rep_depth: REP_NONE,
                dropped,
                captured,
                id: (child_key, child_hand),
                sum: true,
                tt_parent: None,
            });
        }
        let mut expanded = 0;
        while expanded < children.len() {
            let i = expanded;
            expanded += 1;
            let mv = children[i].mv;
            self.expand_child(or_node, &mut children[i], child_bound);
            if let Some(group) = self.board.delay_group(mv) {
                match groups.iter_mut().find(|(g, _)| *g == group) {
                    Some((_, last)) => {
                        children[i].pred = *last;
                        *last = i as u32;
                    }
                    None => groups.push((group, i as u32)),
                }
            }
            let child = &children[i];
            if child.rep_depth != REP_NONE && child.rep_depth != REP_DEPTH_CUT {
                has_path_child = true;
            }
            if or_node && child.pn == 0 && child.upper == 0 {
                // A mate in one is as short as it gets; no need to look further.
                break;
            }
        }
        children.truncate(expanded);

        if self.double_count {
            // Like KomoringHeights, look only at the child about to be searched first: the
            // walk up the table costs probes, and most transpositions are harmless.
            let Scan { pn, dn, best, .. } = Self::scan(or_node, children);
            if pn != 0 && dn != 0 {
                let c = &children[best];
                if let Some(parent) = c.tt_parent {
                    let (id, pndn) = (c.id, (c.pn, c.dn));
                    self.find_double_count(id, pndn, parent, or_node, depth);
                    self.take_marks(depth, children, None);
                }
            }
        }

        // Step 4. The df-pn loop.
        loop {
            let Scan {
                pn,
                dn,
                delta_sum,
                best,
                second,
            } = Self::scan(or_node, children);
            if pn == 0 || dn == 0 || self.aborted {
                break;
            }
            if has_path_child {
                // TCA: a child on the path makes the numbers unreliable; search a little
                // beyond them rather than returning with nothing learnt.
                thpn = thpn.max(pn_add(pn, 1)).min(PN_INFINITE);
                thdn = thdn.max(pn_add(dn, 1)).min(PN_INFINITE);
                has_path_child = false;
            }
            if pn >= thpn || dn >= thdn {
                break;
            }
            let c = &children[best];
            // The child's δ threshold: the value at which this node's δ reaches its own.
            let (th_delta, delta, c_delta) = if or_node {
                (thdn, dn, c.dn)
            } else {
                (thpn, pn, c.pn)
            };
            let c_th_delta = if c.sum {
                (th_delta - delta).saturating_add(c_delta).min(PN_INFINITE)
            } else {
                th_delta.saturating_sub(delta_sum)
            };
            let (c_thpn, c_thdn) = if or_node {
                (thpn.min(epsilon_threshold(second)), c_th_delta)
            } else {
                (c_th_delta, thdn.min(epsilon_threshold(second)))
            };
            let mv = c.mv;
            let pushed_key = path_key(c.id);
            self.board.do_move(mv);
            self.line.push(mv);
            self.path.insert(pushed_key, depth + 1);
            let r = self.search(!or_node, depth + 1, c_thpn, c_thdn, child_bound);
            self.path.remove(&pushed_key);
            self.line.pop();
            self.board.undo_move(mv);
            let c = &mut children[best];
            c.pn = r.pn;
            c.dn = r.dn;
            c.upper = r.upper;
            c.lower = r.lower;
            c.proof_hand = r.proof_hand;
            c.rep_depth = r.rep_depth;
            self.take_marks(depth, children, Some(best));
        }

        // Step 5. Summarise and store.
        let amount = (self.nodes - nodes_at_entry + 1).min(u64::from(u32::MAX)) as u32;
        let Scan { pn, dn, .. } = Self::scan(or_node, children);
        if pn == 0 {
            let (upper, proof_hand) = if or_node {
                let c = children
                    .iter()
                    .filter(|c| c.pn == 0)
                    .min_by_key(|c| c.upper)
                    .expect("a proven OR node has a proven child");
                (len_plus_one(c.upper), Self::or_proof_hand(c))
            } else {
                let upper = children.iter().map(|c| c.upper).max().unwrap_or(0);
                let union = children
                    .iter()
                    .fold(Hand::EMPTY, |acc, c| acc.union(c.proof_hand));
                (len_plus_one(upper), self.and_proof_hand(union, hand))
            };
            self.tt.store_proof(key, proof_hand, upper, amount);
            return NodeResult {
                pn: 0,
                dn: PN_INFINITE,
                upper,
                lower: own.lower,
                proof_hand,
                rep_depth: REP_NONE,
            };
        }
        if dn == 0 {
            // A child's failure is path-independent here if it never went through a
            // repetition, or its cycle closes at this node or below.
            let indep = |c: &Child<B::Move>| {
                c.rep_depth == REP_NONE || (c.rep_depth != REP_DEPTH_CUT && c.rep_depth >= depth)
            };
            let rep_depth = if or_node {
                children
                    .iter()
                    .filter(|c| !indep(c))
                    .map(|c| c.rep_depth)
                    .min()
                    .unwrap_or(REP_NONE)
            } else if children.iter().any(|c| c.dn == 0 && indep(c)) {
                REP_NONE
            } else {
                children
                    .iter()
                    .filter(|c| c.dn == 0)
                    .map(|c| c.rep_depth)
                    .min()
                    .unwrap_or(REP_NONE)
            };
            let mut disproof_hand = hand;
            let lower = if rep_depth == REP_NONE {
                let from_children = if or_node {
                    children
                        .iter()
                        .map(|c| c.lower)
                        .min()
                        .unwrap_or(LEN_INFINITE)
                } else {
                    children
                        .iter()
                        .filter(|c| indep(c))
                        .map(|c| c.lower)
                        .max()
                        .unwrap_or(0)
                };
                let lower = len_plus_one(from_children)
                    .max(min_len)
                    .max(own.lower)
                    .max(bound.saturating_add(1));
                // Disproof pieces: the disproof under `bound` holds for a bigger attacker
                // hand too. Only "no mate within `bound`" is known there; the exact hand keeps
                // the full lower bound (the children's lengths are for their own hands).
                disproof_hand = if or_node {
                    Self::or_disproof_hand(children, hand)
                } else {
                    children
                        .iter()
                        .find(|c| c.dn == 0 && indep(c))
                        .map_or(hand, |c| Self::and_disproof_hand(c, hand))
                };
                debug_assert!(disproof_hand.is_superior_or_equal(hand));
                let bounded = bound.saturating_add(1).max(min_len);
                if disproof_hand != hand {
                    self.tt.store_lower(key, disproof_hand, bounded, amount);
                }
                if disproof_hand == hand || lower > bounded {
                    self.tt.store_lower(key, hand, lower, amount);
                }
                lower
            } else {
                bound.saturating_add(1)
            };
            return NodeResult {
                pn: PN_INFINITE,
                dn: 0,
                upper: own.upper,
                lower,
                proof_hand: disproof_hand,
                rep_depth,
            };
        }
        if !self.aborted || amount > 1 {
            let parent = self.frames.len().checked_sub(2).map(|i| self.frames[i]);
            self.tt.store_pndn(key, hand, pn, dn, amount, parent);
        }
        NodeResult {
            pn,
            dn,
            upper: own.upper,
            lower: own.lower,
            proof_hand: hand,
            rep_depth: REP_NONE,
        }
    }

    /// Probe or estimate child `c` (its move, id and defaults filled in; the board is at the
    /// parent). The move is played only when the child itself must be looked at (the
    /// df-pn+ estimate of a check counts the defender's replies).
    fn expand_child(&mut self, parent_or: bool, c: &mut Child<B::Move>, child_bound: Len) {
        let (board_key, hand) = c.id;
        if let Some(&d) = self.path.get(&path_key(c.id)) {
            c.pn = PN_INFINITE;
            c.dn = 0;
            c.lower = LEN_INFINITE;
            c.rep_depth = d;
            return;
        }
        let probe = self.tt.probe(board_key, hand);
        c.upper = probe.upper;
        c.lower = probe.lower;
        if probe.upper <= child_bound {
            c.pn = 0;
            c.dn = PN_INFINITE;
            c.proof_hand = probe.proof_hand;
            return;
        }
        if probe.lower > child_bound {
            c.pn = PN_INFINITE;
            c.dn = 0;
            c.proof_hand = probe.disproof_hand;
            return;
        }
        if let Some((pn, dn)) = probe.pndn {
            c.pn = pn.max(1);
            c.dn = dn.max(1);
            if let Some(parent) = probe.parent {
                let here = *self.frames.last().expect("expanding inside a search");
                if parent != here {
                    c.tt_parent = Some(parent);
                }
            }
            return;
        }
        if parent_or {
            // df-pn+: the defender's reply count is the initial pn; zero replies is mate.
            // Under a bound that leaves no room for another check, only "any reply?" matters.
            let limit = if child_bound < 2 { 1 } else { usize::MAX };
            let replies = self.board.count_and_moves_after(c.mv, limit);
            // Mate: the proof pieces need the position itself (can a drop block the check?).
            let mated = (replies == 0).then(|| {
                self.board.do_move(c.mv);
                let r = self.mated_result(hand);
                self.board.undo_move(c.mv);
                r
            });
            if let Some(r) = mated {
                self.tt.store_proof(board_key, r.proof_hand, 0, 1);
                c.pn = 0;
                c.dn = PN_INFINITE;
                c.upper = 0;
                c.proof_hand = r.proof_hand;
                return;
            }
            c.lower = c.lower.max(2);
            if child_bound < 2 {
                c.pn = PN_INFINITE;
                c.dn = 0;
                return;
            }
            c.pn = replies as PnDn;
        } else {
            // df-pn+ on the defender's side: twice the attacker's check count is the initial
            // dn (a reply that leaves few checks is the likeliest refutation; an OR node's dn
            // becomes the sum of its checks' as soon as it is expanded). With the plain count
            // the no-mate problems took half the nodes and nikami two thirds; doubling it
            // (each check is worth more than the unit an unexpanded leaf gets) took 10 % more
            // off both and off 寿 (BENCHMARKS.md). The piece-set test first: it settles most
            // check-less replies without generating anything.
            let checks = if self.board.may_check_after(c.mv) {
                self.board.count_or_moves_after(c.mv)
            } else {
                0
            };
            if checks == 0 {
                // The attacker has no check there: disproven for any length, as the child's
                // own visit would find (Step 2), but without expanding the siblings ahead of
                // it first.
                let d = Self::no_check_disproof_hand(hand);
                self.tt.store_lower(board_key, d, LEN_INFINITE, 1);
                c.pn = PN_INFINITE;
                c.dn = 0;
                c.lower = LEN_INFINITE;
                c.proof_hand = d;
            } else {
                c.lower = c.lower.max(1);
                c.dn = 2 * checks as PnDn;
            }
        }
    }

    /// The node's numbers from its children in one pass (the df-pn loop needs both the
    /// numbers and the child to search after every child search).
    fn scan(or_node: bool, children: &[Child<B::Move>]) -> Scan {
        let mut best = 0;
        let mut best_phi = PN_INFINITE;
        let mut best_delta = PN_INFINITE;
        let mut second = PN_INFINITE;
        let mut sum: PnDn = 0;
        let mut max: PnDn = 0;
        let mut resolved = false;
        for (i, c) in children.iter().enumerate() {
            if !active(children, i) {
                continue;
            }
            let (p, d) = if or_node { (c.pn, c.dn) } else { (c.dn, c.pn) };
            if p < best_phi || (p == best_phi && d < best_delta) {
                second = second.min(best_phi);
                best = i;
                best_phi = p;
                best_delta = d;
            } else {
                second = second.min(p);
            }
            if c.sum {
                sum = pn_add(sum, d);
            } else {
                max = max.max(d);
            }
            resolved |= d >= PN_INFINITE;
        }
        let mut delta = pn_add(sum, max);
        if !resolved {
            // A sum of finite numbers stays finite: only a resolved child makes it infinite.
            // Otherwise an unresolved node could look resolved to the `>= threshold` test at
            // the root (threshold infinity) and the search would spin without progress.
            delta = delta.min(PN_INFINITE - 1);
            sum = sum.min(PN_INFINITE - 1);
        }
        let (pn, dn) = if or_node {
            (best_phi, delta)
        } else {
            (delta, best_phi)
        };
        Scan {
            pn,
            dn,
            delta_sum: sum,
            best,
            second,
        }
    }

    /// Follow the table's parent links up from `child` (numbers `pndn`, parent `parent`, found
    /// below the node at `depth`, an OR node when `or_node`) and record a double count if they
    /// lead to a node on the current path without a jump in the number summed there.
    fn find_double_count(
        &mut self,
        child: NodeId,
        pndn: (PnDn, PnDn),
        parent: NodeId,
        or_node: bool,
        depth: u32,
    ) {
        let (mut node, (mut pn, mut dn), mut parent, mut or_node) = (child, pndn, parent, or_node);
        let (mut pn_flag, mut dn_flag) = (true, true);
        let (mut last_pn, mut last_dn) = (PN_INFINITE, PN_INFINITE);
        for _ in 0..depth {
            if pn > last_pn.saturating_add(DC_JUMP) {
                pn_flag = false;
            }
            if dn > last_dn.saturating_add(DC_JUMP) {
                dn_flag = false;
            }
            if let Some(&root_depth) = self.path.get(&path_key(parent)) {
                // `or_node` is the branch root's kind: an OR node sums dn, an AND node pn.
                // Only a node this search holds a child list for can take the mark in.
                let outermost = (depth + 1).saturating_sub(self.frames.len() as u32);
                if root_depth >= outermost && ((or_node && dn_flag) || (!or_node && pn_flag)) {
                    self.dc_marks.push(DcMark {
                        depth: root_depth,
                        tt_child: node,
                        path_child: (root_depth == depth).then_some(child),
                    });
                }
                return;
            }
            if !(pn_flag || dn_flag) {
                return;
            }
            let p = self.tt.probe(parent.0, parent.1);
            let (Some((ppn, pdn)), Some(grand)) = (p.pndn, p.parent) else {
                return;
            };
            (last_pn, last_dn) = (pn, dn);
            (node, pn, dn, parent, or_node) = (parent, ppn, pdn, grand, !or_node);
        }
    }

    /// Take in the double counts whose branch root is the node at `depth`: the child towards
    /// the shared node found through the table, and the one on the path (`best`, the child
    /// just searched, unless the mark names it), stop adding their δ.
    fn take_marks(&mut self, depth: u32, children: &mut [Child<B::Move>], best: Option<usize>) {
        let mut i = 0;
        while i < self.dc_marks.len() {
            let m = self.dc_marks[i];
            if m.depth != depth {
                i += 1;
                continue;
            }
            self.dc_marks.swap_remove(i);
            for c in children.iter_mut() {
                if c.id == m.tt_child || Some(c.id) == m.path_child {
                    c.sum = false;
                }
            }
            if let (None, Some(b)) = (m.path_child, best) {
                children[b].sum = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::graph_tests::{Graph, To};
    use super::*;

    const A: u64 = 100;
    const X: u64 = 200;
    const Y1: u64 = 301;
    const Y2: u64 = 302;
    const S: u64 = 400;

    fn child(id: u64, pn: PnDn, dn: PnDn) -> Child<To> {
        Child {
            mv: To(0),
            pred: NO_PRED,
            pn,
            dn,
            upper: LEN_INFINITE,
            lower: 0,
            proof_hand: Hand::EMPTY,
            rep_depth: REP_NONE,
            dropped: None,
            captured: None,
            id: (id, Hand::EMPTY),
            sum: true,
            tt_parent: None,
        }
    }

    /// The path A (OR, depth 1) → X (AND, 2) → Y2 (OR, 3); Y2 is about to search S, which the
    /// table says Y1 (X's other child) searched before. Returns the marks found.
    fn detect(y1_pn: PnDn) -> Vec<(u32, u64)> {
        let mut g = Graph::new(&[&[]]);
        let mut tt = MateTable::with_parent_links(1, true);
        let stop = AtomicBool::new(false);
        let e = Hand::EMPTY;
        tt.store_pndn(Y1, e, y1_pn, 1, 10, Some((X, e)));
        tt.store_pndn(S, e, 3, 1, 10, Some((Y1, e)));
        let mut dfpn = Dfpn::new(&mut g, &mut tt, None, &stop, None);
        for (depth, key) in [(1, A), (2, X), (3, Y2)] {
            dfpn.frames.push((key, e));
            dfpn.path.insert(path_key((key, e)), depth);
        }
        dfpn.find_double_count((S, e), (3, 1), (Y1, e), true, 3);
        dfpn.dc_marks
            .iter()
            .map(|m| (m.depth, m.tt_child.0))
            .collect()
    }

    #[test]
    fn a_shared_grandchild_makes_the_branch_root_take_the_maximum() {
        assert_eq!(
            detect(3),
            vec![(2, Y1)],
            "X (AND) sums pn over Y1 and Y2, both reach S"
        );
        // Y1's pn far above S's: Y1 owes its pn to other children, no double count worth fixing.
        assert_eq!(detect(10), vec![]);

        // X takes the mark in: after searching Y2 (best), Y1 and Y2 add by maximum.
        let mut g = Graph::new(&[&[]]);
        let mut tt = MateTable::new(1);
        let stop = AtomicBool::new(false);
        let mut dfpn = Dfpn::new(&mut g, &mut tt, None, &stop, None);
        let mut children = vec![child(Y1, 3, 1), child(Y2, 3, 1), child(500, 2, 1)];
        type D<'a> = Dfpn<'a, Graph>;
        let s = D::scan(false, &children);
        assert_eq!((s.pn, s.dn, s.delta_sum), (8, 1, 8));
        dfpn.dc_marks.push(DcMark {
            depth: 2,
            tt_child: (Y1, Hand::EMPTY),
            path_child: None,
        });
        dfpn.take_marks(7, &mut children, Some(1));
        assert_eq!(dfpn.dc_marks.len(), 1, "a mark waits for its own depth");
        dfpn.take_marks(2, &mut children, Some(1));
        assert!(dfpn.dc_marks.is_empty());
        assert_eq!(
            children.iter().map(|c| c.sum).collect::<Vec<_>>(),
            [false, false, true]
        );
        // pn = 2 (summed) + max(3, 3); the summed part alone is 2.
        let s = D::scan(false, &children);
        assert_eq!((s.pn, s.dn, s.delta_sum), (5, 1, 2));
    }
}
