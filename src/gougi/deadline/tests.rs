use super::*;
use crate::usi::GoLimits;

fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

#[test]
fn byoyomi_only() {
    let p = plan(
        Clock {
            main: 0,
            opponent_main: 0,
            byoyomi: 1000,
            inc: 0,
        },
        120,
    );
    assert_eq!((p.member_main, p.member_byoyomi), (0, 880));
    assert_eq!(ms(p.soft), 880);
    assert_eq!(ms(p.hard), 940);
    assert!(ms(p.hard) < 1000);
}

#[test]
fn short_byoyomi_keeps_a_reserve() {
    let p = plan(
        Clock {
            main: 0,
            opponent_main: 0,
            byoyomi: 200,
            inc: 0,
        },
        120,
    );
    // The margin is capped at half the clock: 100 ms for members, decided by 150 ms.
    assert_eq!(p.member_byoyomi, 100);
    assert_eq!(ms(p.soft), 100);
    assert_eq!(ms(p.hard), 150);
    // A clock below twice the margin: the margin shrinks to half the clock.
    let p = plan(
        Clock {
            main: 0,
            opponent_main: 0,
            byoyomi: 100,
            inc: 0,
        },
        300,
    );
    assert_eq!(p.member_byoyomi, 50);
    assert_eq!((ms(p.soft), ms(p.hard)), (50, 75));
}

#[test]
fn main_time_absorbs_the_margin_first() {
    let p = plan(
        Clock {
            main: 60_000,
            opponent_main: 50_000,
            byoyomi: 10_000,
            inc: 0,
        },
        500,
    );
    assert_eq!((p.member_main, p.member_byoyomi), (59_500, 10_000));
    assert_eq!(ms(p.soft), 25_000); // a quarter of the main time plus byoyomi
    assert_eq!(ms(p.hard), 25_250);
    let p = plan(
        Clock {
            main: 300,
            opponent_main: 0,
            byoyomi: 1000,
            inc: 0,
        },
        500,
    );
    assert_eq!((p.member_main, p.member_byoyomi), (0, 800));
}

#[test]
fn sudden_death_caps_a_hung_member() {
    let p = plan(
        Clock {
            main: 600_000,
            opponent_main: 600_000,
            byoyomi: 0,
            inc: 0,
        },
        200,
    );
    assert_eq!(p.member_main, 599_800);
    assert_eq!(ms(p.soft), 150_000);
    assert_eq!(ms(p.hard), 150_100);
    let p = plan(
        Clock {
            main: 1_000,
            opponent_main: 0,
            byoyomi: 0,
            inc: 0,
        },
        200,
    );
    assert!(ms(p.hard) < 1_000);
}

#[test]
fn fischer_counts_the_increment_in_the_soft_cap_only() {
    let p = plan(
        Clock {
            main: 10_000,
            opponent_main: 10_000,
            byoyomi: 0,
            inc: 5_000,
        },
        200,
    );
    assert_eq!(p.member_main, 9_800);
    assert_eq!(ms(p.soft), 7_500);
    assert!(ms(p.hard) < 10_000);
}

/// The built-in member (whose `NetworkDelay2` goes back on its clock, [`give_back`]) is not
/// stopped by gougi before its own time manager's hard limit (to within the margin): with the cap at `main/10` it
/// was, at 2 s + 0.1 s, after 300 ms where `gougi search` alone thinks 600 ms.
#[test]
fn the_soft_cap_lets_the_builtin_member_think_as_long_as_alone() {
    use crate::search::timeman;
    assert_eq!(SOFT_CAP_DIVISOR, timeman::MAX_CLOCK_DIVISOR);
    let opt = timeman::TimeOptions::default();
    for (main, byoyomi, inc) in [
        (2_000, 0, 100),
        (10_000, 0, 1_000),
        (60_000, 0, 0),
        (600_000, 10_000, 0),
        (30_000, 1_000, 0),
        (0, 300, 0),
    ] {
        let clock = Clock {
            main,
            opponent_main: main,
            byoyomi,
            inc,
        };
        let p = plan(clock, DEFAULT_MARGIN_MS);
        let told = give_back(
            &crate::usi::GoLimits {
                btime: Some(p.member_main),
                wtime: Some(main),
                byoyomi: (byoyomi > 0).then_some(p.member_byoyomi),
                binc: Some(inc),
                winc: Some(inc),
                ..Default::default()
            },
            true,
            opt.network_delay2,
        );
        for ply in [1, 40, 120] {
            let alone = timeman::plan(
                timeman::Clock {
                    time: told.btime.unwrap_or(0),
                    byoyomi: told.byoyomi.unwrap_or(0),
                    inc,
                },
                ply,
                &opt,
            );
            // Within the margin: with byoyomi, the margin taken from the main time goes
            // back on the byoyomi, so the member's quarter is of a clock `margin` shorter.
            assert!(
                alone.maximum <= ms(p.soft) + DEFAULT_MARGIN_MS,
                "{clock:?} ply {ply}: member may think {} ms, gougi stops it at {:?}",
                alone.maximum,
                p.soft
            );
        }
    }
}

/// Values a GUI or a setoption can send: zero, small, around the margin, 32-bit edges, and
/// the u64 extremes that used to overflow the sums (issue #17, defect 6).
const EXTREMES: [u64; 12] = [
    0,
    1,
    2,
    119,
    120,
    1_000,
    600_000,
    i32::MAX as u64,
    u32::MAX as u64 + 1,
    u64::MAX / 2,
    u64::MAX - 1,
    u64::MAX,
];

#[test]
fn extreme_clocks_give_a_sane_plan() {
    for main in EXTREMES {
        for byoyomi in EXTREMES {
            for inc in EXTREMES {
                for margin in EXTREMES {
                    let clock = Clock {
                        main,
                        opponent_main: u64::MAX,
                        byoyomi,
                        inc,
                    };
                    let p = plan(clock, margin);
                    let (soft, hard) = (ms(p.soft), ms(p.hard));
                    let available = main.saturating_add(byoyomi);
                    let why = format!("{clock:?} margin {margin}: {p:?}");
                    assert!(soft <= hard, "{why}");
                    assert!(hard <= available, "{why}");
                    assert!(hard <= 2 * MAX_CLOCK_MS, "{why}");
                    assert!(p.member_main <= main.min(MAX_CLOCK_MS), "{why}");
                    assert!(p.member_byoyomi <= byoyomi.min(MAX_CLOCK_MS), "{why}");
                }
            }
        }
    }
    // The issue's `go btime 18446744073709551615 wtime 0 byoyomi 1000`: a clock beyond
    // MAX_CLOCK_MS plans as MAX_CLOCK_MS, not as a wrapped sum.
    let huge = plan(
        Clock {
            main: u64::MAX,
            opponent_main: 0,
            byoyomi: 1000,
            inc: 0,
        },
        120,
    );
    let capped = plan(
        Clock {
            main: MAX_CLOCK_MS,
            opponent_main: 0,
            byoyomi: 1000,
            inc: 0,
        },
        120,
    );
    assert_eq!(huge, capped);
    assert!(ms(huge.soft) >= 1000, "{huge:?}");
}

#[test]
fn extreme_movetimes_give_a_sane_plan() {
    for movetime in EXTREMES {
        for margin in EXTREMES {
            let (member, soft, hard) = plan_movetime(movetime, margin);
            let why = format!("movetime {movetime} margin {margin}");
            assert!(member <= movetime && member <= MAX_CLOCK_MS, "{why}");
            assert_eq!(ms(soft), member, "{why}");
            assert!(ms(hard) >= member && ms(hard) <= movetime, "{why}");
        }
    }
}

#[test]
fn only_main_time_without_byoyomi_is_banked() {
    let fischer = Clock {
        main: 60_000,
        opponent_main: 0,
        byoyomi: 0,
        inc: 1_000,
    };
    assert_eq!(banked_main(&fischer, 59_940, 50), Some(29_970));
    assert_eq!(banked_main(&fischer, 59_940, 0), None);
    assert_eq!(banked_main(&fischer, u64::MAX, 90), Some(MAX_CLOCK_MS / 10));
    let byoyomi = Clock {
        byoyomi: 1_000,
        ..fischer
    };
    assert_eq!(banked_main(&byoyomi, 59_940, 50), None);
    let flagged = Clock { main: 0, ..fischer };
    assert_eq!(banked_main(&flagged, 0, 50), None);
}

#[test]
fn a_members_own_margin_is_given_back() {
    use crate::usi::GoLimits;
    let byo = GoLimits {
        btime: Some(0),
        wtime: Some(0),
        byoyomi: Some(940),
        ..Default::default()
    };
    assert_eq!(give_back(&byo, true, 1120).byoyomi, Some(2060));
    assert_eq!(give_back(&byo, true, 0), byo);
    let fischer = GoLimits {
        btime: Some(9_940),
        wtime: Some(10_000),
        binc: Some(2_000),
        winc: Some(2_000),
        ..Default::default()
    };
    let g = give_back(&fischer, false, 100);
    assert_eq!((g.btime, g.wtime), (Some(9_940), Some(10_100)));
    let nodes = GoLimits {
        nodes: Some(1000),
        ..Default::default()
    };
    assert_eq!(give_back(&nodes, true, 1120), nodes);
    let movetime = GoLimits {
        movetime: Some(940),
        ..Default::default()
    };
    assert_eq!(give_back(&movetime, true, 1120), movetime);
    // Saturating at the cap.
    let huge = GoLimits {
        byoyomi: Some(u64::MAX),
        ..Default::default()
    };
    assert_eq!(give_back(&huge, true, u64::MAX).byoyomi, Some(MAX_CLOCK_MS));
}

#[test]
fn movetime() {
    let (m, soft, hard) = plan_movetime(1000, 120);
    assert_eq!(m, 880);
    assert_eq!(ms(soft), 880);
    assert_eq!(ms(hard), 940);
}

#[test]
fn go_mate_gives_members_the_limit_less_the_margin_and_answers_by_half_the_margin() {
    let (m, soft, hard) = plan_mate(10_000, 60);
    assert_eq!((m, ms(soft), ms(hard)), (9_940, 9_940, 9_970));
    // A margin larger than the limit: members get half, gougi answers at the limit less
    // half the margin, never before the members' share.
    let (m, soft, hard) = plan_mate(100, 60);
    assert_eq!((m, ms(soft), ms(hard)), (50, 50, 70));
    let (m, _, hard) = plan_mate(40, 200);
    assert_eq!((m, ms(hard)), (20, 20));
    // Capped like every clock.
    let (m, _, hard) = plan_mate(u64::MAX, u64::MAX);
    assert!(m <= MAX_CLOCK_MS && ms(hard) <= MAX_CLOCK_MS);
    // On a long limit the hard deadline is plan_movetime's; they differ only when the
    // margin is large against the limit.
    assert_eq!(plan_mate(10_000, 60), plan_movetime(10_000, 60));
}

#[test]
fn exchange_phases_split_the_clock() {
    let (soft, hard) = exchange_phase1(Duration::from_millis(10_000));
    assert_eq!((ms(soft), ms(hard)), (4_500, 5_000));
    // Phase 2: 90 % of what is left after half the margin; answers by a quarter margin
    // before the round's hard deadline.
    let (budget, hard) = exchange_phase2(Duration::from_millis(5_030), 60);
    assert_eq!((ms(budget), ms(hard)), (4_500, 5_015));
    assert_eq!(
        exchange_phase2(Duration::from_millis(10), 60),
        (Duration::ZERO, Duration::ZERO)
    );
}

#[test]
fn leader_phases_split_the_clock() {
    assert_eq!(ms(leader_phase1(Duration::from_millis(10_000))), 7_500);
    // Three re-searches to run in 3.03 s: 0.9 s each.
    assert_eq!(ms(leader_share(Duration::from_millis(3_030), 60, 3)), 900);
    assert_eq!(
        leader_share(Duration::from_millis(3_030), 60, 0),
        exchange_phase2(Duration::from_millis(3_030), 60).0
    );
}

#[test]
fn a_lag_within_half_the_margin_costs_nothing() {
    assert_eq!(lag_extra(0, 60), 0);
    assert_eq!(lag_extra(30, 60), 0);
    assert_eq!(lag_extra(95, 60), 65);
    assert_eq!(lag_extra(95, 0), 95);
    assert_eq!(lag_extra(u64::MAX, u64::MAX), u64::MAX - MAX_CLOCK_MS / 2);
}

#[test]
fn the_lag_comes_off_the_end_of_the_clock_and_never_more_than_half_of_it() {
    let byoyomi = crate::usi::GoLimits {
        btime: Some(0),
        wtime: Some(0),
        byoyomi: Some(940),
        ..Default::default()
    };
    let l = take_lag(&byoyomi, true, 65);
    assert_eq!((l.byoyomi, l.btime, l.wtime), (Some(875), Some(0), Some(0)));
    assert_eq!(take_lag(&byoyomi, true, 5_000).byoyomi, Some(470));
    assert_eq!(take_lag(&byoyomi, false, 0), byoyomi);
    // Main time and byoyomi: the byoyomi is the end of the clock.
    let both = crate::usi::GoLimits {
        btime: Some(60_000),
        wtime: Some(50_000),
        byoyomi: Some(10_000),
        ..Default::default()
    };
    let l = take_lag(&both, false, 100);
    assert_eq!(
        (l.btime, l.wtime, l.byoyomi),
        (Some(60_000), Some(50_000), Some(9_900))
    );
    // Sudden death: our own main time, not the opponent's.
    let fischer = crate::usi::GoLimits {
        btime: Some(60_000),
        wtime: Some(50_000),
        binc: Some(1_000),
        winc: Some(1_000),
        ..Default::default()
    };
    let l = take_lag(&fischer, false, 100);
    assert_eq!((l.btime, l.wtime), (Some(60_000), Some(49_900)));
    let movetime = crate::usi::GoLimits {
        movetime: Some(200),
        ..Default::default()
    };
    assert_eq!(take_lag(&movetime, true, 300).movetime, Some(100));
    // No clock, nothing to take.
    let nodes = crate::usi::GoLimits {
        nodes: Some(10_000),
        ..Default::default()
    };
    assert_eq!(take_lag(&nodes, true, 300), nodes);
}

#[test]
fn a_members_answer_is_due_at_the_end_of_the_clock_it_was_told_less_its_own_margin() {
    let l = crate::usi::GoLimits {
        btime: Some(0),
        wtime: Some(0),
        byoyomi: Some(1_060),
        ..Default::default()
    };
    assert_eq!(answer_due(&l, true, 120), Some(940));
    let both = crate::usi::GoLimits {
        btime: Some(3_000),
        wtime: Some(50_000),
        byoyomi: Some(1_000),
        ..Default::default()
    };
    assert_eq!(answer_due(&both, true, 0), Some(4_000));
    let movetime = crate::usi::GoLimits {
        movetime: Some(500),
        ..Default::default()
    };
    assert_eq!(answer_due(&movetime, true, 100), Some(500));
    let nodes = crate::usi::GoLimits {
        nodes: Some(1),
        ..Default::default()
    };
    assert_eq!(answer_due(&nodes, true, 0), None);
    let infinite = crate::usi::GoLimits {
        infinite: true,
        ..Default::default()
    };
    assert_eq!(answer_due(&infinite, true, 0), None);
}

#[test]
fn leaders_node_budget_holds_its_re_searches() {
    // 10k, three members, G_LeaderNodes 3,000: a quarter (2,500) is less than three
    // re-searches could use (9,000), so the clock's split stands.
    assert_eq!(leader_nodes(10_000, 3, 3_000), (7_500, 2_500));
    // 60k: a quarter (15,000) is more than 3 × 3,000; the first phase keeps the rest.
    assert_eq!(leader_nodes(60_000, 3, 3_000), (51_000, 9_000));
    // Odd budgets: the first phase is floored, the two add up to the budget.
    assert_eq!(leader_nodes(1_001, 2, 3_000), (750, 251));
    assert_eq!(leader_nodes(1, 2, 3_000), (1, 0));
    // The reserve is shared: equal parts of what is left, the last taking the remainder.
    let mut left = 2_500;
    let mut given = Vec::new();
    for searches in (1..=3).rev() {
        let n = leader_nodes_share(left, searches, 3_000);
        left -= n;
        given.push(n);
    }
    assert_eq!((given, left), (vec![833, 833, 834], 0));
    // Never over G_LeaderNodes, never over what is left, at least 1 while any is.
    assert_eq!(leader_nodes_share(9_000, 2, 3_000), 3_000);
    assert_eq!(leader_nodes_share(2, 3, 3_000), 1);
    assert_eq!(leader_nodes_share(1, 0, 3_000), 1);
}

#[test]
fn leaders_bank_is_what_the_first_phase_would_have_taken_on_the_whole_clock() {
    let ms = |d: Duration| d.as_millis() as u64;
    // 50 % banked: the first phase took half of a move, the re-searches get a whole move.
    assert_eq!(ms(leader_bank(Duration::from_millis(100), 50)), 200);
    // 25 %: three quarters of a move took 300 ms, so a whole one is 400.
    assert_eq!(ms(leader_bank(Duration::from_millis(300), 25)), 400);
    // The option's maximum, 90: ten times the first phase.
    assert_eq!(ms(leader_bank(Duration::from_millis(30), 90)), 300);
    // Shared equally among the searches left, never below the floor.
    assert_eq!(ms(bank_share(Duration::from_millis(200), 2)), 100);
    assert_eq!(ms(bank_share(Duration::from_millis(200), 0)), 200);
    assert_eq!(ms(bank_share(Duration::ZERO, 3)), LEADER_BANK_MIN_MS);
}

#[test]
fn a_turnaround_is_spent_from_main_time_first_then_byoyomi() {
    use crate::usi::GoLimits;
    let both = GoLimits {
        btime: Some(30),
        wtime: Some(5_000),
        byoyomi: Some(200),
        ..Default::default()
    };
    // Black: 30 ms of main time, then 20 of the byoyomi; White's clock is untouched.
    let l = spent(&both, true, 50);
    assert_eq!(
        (l.btime, l.wtime, l.byoyomi),
        (Some(0), Some(5_000), Some(180))
    );
    // White: all from its main time.
    let l = spent(&both, false, 50);
    assert_eq!(
        (l.btime, l.wtime, l.byoyomi),
        (Some(30), Some(4_950), Some(200))
    );
    // More than the whole clock: nothing left, never below zero.
    let l = spent(&both, true, 5_000);
    assert_eq!((l.btime, l.byoyomi), (Some(0), Some(0)));
    // Fischer: the increment is added after the move, so it is not spent.
    let fischer = GoLimits {
        btime: Some(1_000),
        wtime: Some(1_000),
        binc: Some(100),
        winc: Some(100),
        ..Default::default()
    };
    let l = spent(&fischer, true, 40);
    assert_eq!((l.btime, l.binc), (Some(960), Some(100)));
    // movetime is the whole clock; no clock at all (nodes, infinite, mate): unchanged.
    let movetime = GoLimits {
        movetime: Some(500),
        ..Default::default()
    };
    assert_eq!(spent(&movetime, true, 40).movetime, Some(460));
    let nodes = GoLimits {
        nodes: Some(10_000),
        ..Default::default()
    };
    assert_eq!(spent(&nodes, true, 40), nodes);
    assert_eq!(spent(&both, true, 0), both);
}

#[test]
fn the_guis_delay_comes_off_the_clock_at_most_a_quarter_of_it() {
    let byo = |b: u64| GoLimits {
        btime: Some(0),
        wtime: Some(0),
        byoyomi: Some(b),
        ..GoLimits::default()
    };
    // A CSA server's 2 s byoyomi: the whole delay.
    assert_eq!(charge_network(&byo(2_000), true, 250).byoyomi, Some(1_750));
    // 1 s: exactly the quarter.
    assert_eq!(charge_network(&byo(1_000), true, 250).byoyomi, Some(750));
    // A local bullet test: a quarter of 200 ms, not all of it.
    assert_eq!(charge_network(&byo(200), true, 250).byoyomi, Some(150));
    // Main time first, then byoyomi.
    let main = GoLimits {
        btime: Some(100),
        wtime: Some(60_000),
        byoyomi: Some(2_000),
        ..GoLimits::default()
    };
    let l = charge_network(&main, true, 250);
    assert_eq!(
        (l.btime, l.wtime, l.byoyomi),
        (Some(0), Some(60_000), Some(1_850))
    );
    // Fischer: the increment is not the GUI's to spend.
    let fischer = GoLimits {
        btime: Some(10_000),
        wtime: Some(10_000),
        binc: Some(1_000),
        winc: Some(1_000),
        ..GoLimits::default()
    };
    let l = charge_network(&fischer, false, 250);
    assert_eq!((l.wtime, l.winc), (Some(9_750), Some(1_000)));
    // Not a game clock: unchanged.
    let movetime = GoLimits {
        movetime: Some(1_000),
        ..GoLimits::default()
    };
    assert_eq!(charge_network(&movetime, true, 250), movetime);
    assert_eq!(
        charge_network(&GoLimits::default(), true, 250),
        GoLimits::default()
    );
}
