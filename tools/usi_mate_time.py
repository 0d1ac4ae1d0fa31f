#!/usr/bin/env python3
"""Time USI mate solvers (`go mate`) on the same problems, rounds alternating who goes first.

    tools/usi_mate_time.py ROUNDS LIMIT_MS PROBLEMS_FILE -- [opt:NAME=VALUE ...] CMD... [-- ...]
    tools/usi_mate_time.py 5 10000 nomate17.txt -- opt:USI_Hash=64 taskset -c 1 target/release/gougi mate \\
        -- opt:USI_Hash=64 opt:PostSearchLevel=MinLength taskset -c 1 ./KomoringHeights-by-clang

PROBLEMS_FILE: one `sfen BOARD SIDE HAND PLY …` per line (words after the SFEN are ignored;
`#` lines skipped), e.g. `docs/matches/nomate-hard-17.tsv` (in the match records:
`tools/records.sh unpack positions`) turned into `sfen … nomate` lines as in BENCHMARKS.md.
Per problem and engine: `usinewgame`, `isready` (waited for), `position sfen …`, then the wall
time from `go mate LIMIT_MS` to the `checkmate` line. Each round plays every
problem on every engine, the engines' order rotating by round, so neither always runs on a
cache the other has just cooled. Printed: per problem, each engine's median over the rounds
and its answer (`nomate`, `timeout`, or the mate's length); then per engine the median, worst
(and which problem) and total of those medians. Pin the engines (`taskset -c 1 …`) on a
machine with other work: an engine with a helper thread otherwise gets a second core. All
engines are started (and their tables allocated) at once: for 8 GB tables run one engine per
invocation.
"""
import statistics
import subprocess
import sys

from usi_engine import Engine, split_options


def answer(line):
    words = line.split()[1:]
    if not words:
        return "?"
    if words[0] in ("nomate", "timeout", "notimplemented"):
        return words[0]
    return f"mate {len(words)}"


def main():
    args = sys.argv[1:]
    if len(args) < 5 or "--" not in args:
        sys.exit(__doc__)
    rounds, limit = int(args[0]), int(args[1])
    with open(args[2]) as f:
        problems = [" ".join(l.split()[:5]) for l in f if l.startswith("sfen ")]
    specs, cur = [], None
    for a in args[3:]:
        if a == "--":
            cur = []
            specs.append(cur)
        else:
            cur.append(a)
    engines = []
    for spec in specs:
        opts, cmd = split_options(spec)
        engines.append((" ".join(cmd), Engine(cmd, opts, stderr=subprocess.DEVNULL)))
    times = [[[] for _ in problems] for _ in engines]
    answers = [[None for _ in problems] for _ in engines]
    for r in range(rounds):
        order = [(r + k) % len(engines) for k in range(len(engines))]
        for p, sfen in enumerate(problems):
            for e in order:
                lines, seconds = engines[e][1].go_fresh(sfen, f"mate {limit}", "checkmate")
                times[e][p].append(seconds * 1000.0)
                answers[e][p] = answer(lines[-1])
    medians = [[statistics.median(t) for t in per_engine] for per_engine in times]
    for p in range(len(problems)):
        cells = "  ".join(f"{medians[e][p]:9.1f} ms {answers[e][p]:<8}" for e in range(len(engines)))
        print(f"{p + 1:3}  {cells}")
    for e, (name, engine) in enumerate(engines):
        m = medians[e]
        worst = max(range(len(m)), key=lambda i: m[i])
        print(f"{name}: median {statistics.median(m):.1f} ms, worst {m[worst]:.1f} ms "
              f"(problem {worst + 1}), total {sum(m):.1f} ms over {len(m)} problems, {rounds} rounds")
        engine.quit()


if __name__ == "__main__":
    main()
