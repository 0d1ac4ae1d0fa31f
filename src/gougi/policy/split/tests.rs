use super::*;

fn mv(s: &str) -> UsiMove {
    s.parse().expect("a USI move")
}

fn line(s: &str) -> Vec<UsiMove> {
    s.split_whitespace().map(mv).collect()
}

/// Five moves for the root's side, four for the other: enough for rests of two or more.
fn legal(path: &[UsiMove]) -> Vec<UsiMove> {
    if path.len() % 2 == 0 {
        line("7g7f 2g2f 5g5f 1g1f 9g9f")
    } else {
        line("3c3d 8c8d 5c5d 1c1d")
    }
}

fn grow(lines: &[&str], members: usize) -> Tree {
    let lines: Vec<Vec<UsiMove>> = lines.iter().map(|l| line(l)).collect();
    let p = Prediction::from_lines(lines.iter().map(Vec::as_slice));
    Tree::grow(&p, members, &mut |path| legal(path))
}

/// The leaves as text: `7g7f 3c3d` for a position, `7g7f *5c5d,1c1d` for a rest (its moves).
fn shape(t: &Tree) -> Vec<String> {
    t.leaves()
        .into_iter()
        .map(|n| {
            let path = t.path(n).iter().map(|m| m.to_string()).collect::<Vec<_>>();
            match &t.nodes[n].step {
                Some(Step::Rest(moves)) => {
                    let rest: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
                    let mut s = path.join(" ");
                    if !s.is_empty() {
                        s.push(' ');
                    }
                    s + "*" + &rest.join(",")
                }
                _ => path.join(" "),
            }
        })
        .collect()
}

const MULTIPV: [&str; 2] = ["7g7f 3c3d 2g2f 8c8d", "2g2f 8c8d"];

#[test]
fn lines_rank_moves_in_order_and_continue_below() {
    let p = Prediction::from_lines(
        [line("7g7f 3c3d"), line("2g2f"), line("7g7f 8c8d 2g2f")]
            .iter()
            .map(Vec::as_slice),
    );
    let at = |path: &str| -> Vec<String> {
        p.at(&line(path))
            .map(|q| q.moves.iter().map(|(m, _)| m.to_string()).collect())
            .unwrap_or_default()
    };
    assert_eq!(at(""), ["7g7f", "2g2f"]);
    assert_eq!(at("7g7f"), ["3c3d", "8c8d"]);
    assert_eq!(at("7g7f 8c8d"), ["2g2f"]);
    assert!(p.at(&line("5g5f")).is_none());
}

#[test]
fn the_tree_grows_along_the_top_two_moves_until_each_member_has_a_leaf() {
    assert_eq!(shape(&grow(&MULTIPV, 1)), [""]);
    // Room for one more leaf only: the best move and the rest (the second best first in it).
    assert_eq!(shape(&grow(&MULTIPV, 2)), ["7g7f", "*2g2f,5g5f,1g1f,9g9f"]);
    assert_eq!(
        shape(&grow(&MULTIPV, 3)),
        ["7g7f", "2g2f", "*5g5f,1g1f,9g9f"]
    );
    // The best move (weight 1/2) grows next: its predicted reply and the other replies.
    assert_eq!(
        shape(&grow(&MULTIPV, 4)),
        [
            "7g7f 3c3d",
            "7g7f *8c8d,5c5d,1c1d",
            "2g2f",
            "*5g5f,1g1f,9g9f"
        ]
    );
    // Then 2g2f (1/4, shallower than 7g7f 3c3d at 1/4), then the principal line.
    assert_eq!(
        shape(&grow(&MULTIPV, 5)),
        [
            "7g7f 3c3d",
            "7g7f *8c8d,5c5d,1c1d",
            "2g2f 8c8d",
            "2g2f *3c3d,5c5d,1c1d",
            "*5g5f,1g1f,9g9f"
        ]
    );
    assert_eq!(
        shape(&grow(&MULTIPV, 6)),
        [
            "7g7f 3c3d 2g2f",
            "7g7f 3c3d *7g7f,5g5f,1g1f,9g9f",
            "7g7f *8c8d,5c5d,1c1d",
            "2g2f 8c8d",
            "2g2f *3c3d,5c5d,1c1d",
            "*5g5f,1g1f,9g9f"
        ]
    );
    // Nothing predicted beyond the lines: eight members find seven leaves.
    let t = grow(&MULTIPV, 8);
    assert_eq!(t.leaves().len(), 7);
    assert_eq!(shape(&t)[0], "7g7f 3c3d 2g2f 8c8d");
}

#[test]
fn a_second_reply_from_another_line_splits_that_node_three_ways() {
    // The line played last move predicts 8c8d after 7g7f too.
    let t = grow(&[MULTIPV[0], MULTIPV[1], "7g7f 8c8d"], 5);
    assert_eq!(
        shape(&t),
        [
            "7g7f 3c3d",
            "7g7f 8c8d",
            "7g7f *5c5d,1c1d",
            "2g2f",
            "*5g5f,1g1f,9g9f"
        ]
    );
}

#[test]
fn without_a_prediction_the_root_stays_one_leaf_and_illegal_moves_are_not_followed() {
    assert_eq!(shape(&grow(&[], 4)), [""]);
    // 4a4b is not legal at the root: the line is not followed past it.
    assert_eq!(shape(&grow(&["4a4b 3c3d"], 4)), [""]);
    // A single other move is a move of its own, not a rest.
    let p = Prediction::from_lines([line("7g7f"), line("2g2f")].iter().map(Vec::as_slice));
    let t = Tree::grow(&p, 4, &mut |_| line("7g7f 2g2f 5g5f"));
    assert_eq!(shape(&t), ["7g7f", "2g2f", "5g5f"]);
}

#[test]
fn members_take_the_heaviest_leaves_and_rests_go_to_members_with_searchmoves() {
    let t = grow(&MULTIPV, 4);
    let leaves = t.leaves();
    // Weights: 7g7f 3c3d 1/4, 7g7f rest 1/4, 2g2f 1/4, rest 1/4: in tree order.
    let by = |sm: &[bool]| -> Vec<usize> {
        t.assign(sm)
            .iter()
            .map(|l| leaves.iter().position(|x| x == l).unwrap())
            .collect()
    };
    assert_eq!(by(&[true; 4]), [0, 1, 2, 3]);
    // E2 cannot take searchmoves: 7g7f's rest goes to E3, 2g2f to E2.
    assert_eq!(by(&[true, false, true, true]), [0, 2, 1, 3]);
    // The heaviest first: with 3 members, 7g7f (1/2) to E1.
    let t = grow(&MULTIPV, 3);
    assert_eq!(t.assign(&[true; 3]), t.leaves());
    // More members than leaves: the heaviest again.
    let one = grow(&[], 3);
    assert_eq!(one.assign(&[true; 3]), [ROOT; 3]);
}

fn found(v: Option<i64>, m: &str) -> Option<Found> {
    Some(Found {
        value: v,
        mv: Some(mv(m)),
    })
}

#[test]
fn values_back_up_by_negamax_over_what_is_in() {
    let t = grow(&MULTIPV, 4);
    let leaf_of = t.assign(&[true; 4]);
    // Leaves as assigned: E1 7g7f 3c3d (ours), E2 7g7f's other replies (the opponent's
    // view), E3 2g2f (the opponent's), E4 the root's rest (ours).
    let mut f = vec![
        found(Some(40), "2g2f"),
        found(Some(-35), "8c8d"),
        found(Some(-30), "8c8d"),
        found(Some(10), "5g5f"),
    ];
    let b = backup(&t, &leaf_of, &f);
    // 7g7f: the opponent's best is min(40, 35) = 35 for us; 2g2f 30; rest 10.
    assert_eq!(b.value(), Some(35));
    assert_eq!(b.played(&t, &f), Some(mv("7g7f")));
    assert_eq!(b.leaf(), Some(leaf_of[1]));
    let text = render(&t, &b, &f, &|n| {
        let who: Vec<String> = (0..4)
            .filter(|&m| leaf_of[m] == n)
            .map(|m| format!("E{}", m + 1))
            .collect();
        who.join("+")
    });
    assert_eq!(
        text,
        "7g7f 35 {3c3d 40 E1, *8c8d 35 E2}, 2g2f 30 E3, *5g5f 10 E4"
    );
    // E2 died: 7g7f backs up its reply 3c3d alone (40), still the best.
    f[1] = None;
    let b = backup(&t, &leaf_of, &f);
    assert_eq!((b.value(), b.played(&t, &f)), (Some(40), Some(mv("7g7f"))));
    // E1 late too: 7g7f has no value; 2g2f is played.
    f[0] = None;
    let b = backup(&t, &leaf_of, &f);
    assert_eq!((b.value(), b.played(&t, &f)), (Some(30), Some(mv("2g2f"))));
    assert_eq!(
        render(&t, &b, &f, &|_| "E".into()),
        "7g7f ? {3c3d ? E, * ? E}, 2g2f 30 E, *5g5f 10 E"
    );
    // The rest is best: its member's move is played.
    f[3] = found(Some(90), "9g9f");
    let b = backup(&t, &leaf_of, &f);
    assert_eq!(b.played(&t, &f), Some(mv("9g9f")));
    // Nothing in: no value, nothing to play.
    let none = vec![None; 4];
    let b = backup(&t, &leaf_of, &none);
    assert_eq!(
        (b.value(), b.played(&t, &none), b.leaf()),
        (None, None, None)
    );
}

#[test]
fn ties_go_to_the_predicted_order_and_mates_count_plies() {
    let t = grow(&MULTIPV, 3);
    let leaf_of = t.assign(&[true; 3]);
    // 7g7f and 2g2f both worth 20: the predicted best is played.
    let f = vec![found(Some(-20), "3c3d"), found(Some(-20), "8c8d"), None];
    let b = backup(&t, &leaf_of, &f);
    assert_eq!(b.played(&t, &f), Some(mv("7g7f")));
    // After 2g2f the opponent is mated in 2: 2g2f mates in 3 and beats any cp.
    let f = vec![
        found(Some(900), "3c3d"),
        found(Some(-(i64::from(Eval::MATE) - 2)), "8c8d"),
        None,
    ];
    let b = backup(&t, &leaf_of, &f);
    assert_eq!(b.played(&t, &f), Some(mv("2g2f")));
    assert_eq!(b.value(), Some(i64::from(Eval::MATE) - 3));
    assert_eq!(
        render(&t, &b, &f, &|_| "E".into()),
        "7g7f -900 E, 2g2f mate 3 E, * ? E"
    );
}

#[test]
fn members_sharing_a_leaf_give_the_best_of_their_values() {
    let t = grow(&[], 3);
    let leaf_of = t.assign(&[true; 3]);
    let f = vec![
        found(Some(20), "7g7f"),
        found(Some(50), "2g2f"),
        found(Some(50), "5g5f"),
    ];
    let b = backup(&t, &leaf_of, &f);
    assert_eq!((b.value(), b.by[ROOT]), (Some(50), Some(1)));
    assert_eq!(b.played(&t, &f), Some(mv("2g2f")));
    assert_eq!(
        render(&t, &b, &f, &|_| "E1+E2+E3".into()),
        "2g2f 50 E1+E2+E3"
    );
}
