#!/usr/bin/env python3
"""Two USI engines at equal time on the same positions: nodes per second, depth reached and time
to depth, as a user compares engines (issue 69).

    tools/usi_nps.py MOVETIME_MS POSITIONS_FILE ROUNDS -- [opt:NAME=VALUE ...] CMD_A... \\
                                                       -- [opt:NAME=VALUE ...] CMD_B...

    tools/usi_nps.py 3000 tests/data/nps-positions.txt 1 \\
        -- opt:Threads=1 opt:USI_Hash=256 opt:EvalFile=nn.bin target/release/gougi search \\
        -- opt:Threads=1 opt:USI_Hash=256 opt:EvalDir=. opt:BookFile=no_book YaneuraOu-by-gcc

Both engines stay running (as under a GUI). Per position and round each gets `usinewgame`,
`isready`, `position …`, `go movetime MOVETIME_MS`, one after the other, in alternating order
(A first on even turns, B first on odd ones), so neither always runs on a cache the other
warmed or in the other's thermal wake. The machine should be otherwise idle: the figure is a
ratio of speeds measured minutes apart.

Per search the last `info` line with `nodes` gives nps (its `nps`, else nodes / time) and depth;
time to depth is the `time` of the first `info … depth d … pv` line, when it came before the
end of the search (YaneuraOu and Stockfish print iteration lines only after 3 s: give them a
longer movetime to compare time to depth). Printed per position: both
nps, their ratio, both depths, and the time each took to the deepest depth both reached. The
summary: the geometric mean of the nps ratios (B / A is the other way round), their range, mean
depths, and the geometric mean of the time-to-common-depth ratios (A's time / B's: above 1, A
is slower to the same depth). Exit 2 on a usage error, 1 if an engine dies.
"""
import math
import subprocess
import sys

from usi_engine import Engine, split_options


def parse_args(argv):
    if len(argv) < 4 or argv.count("--") != 2:
        sys.exit(__doc__)
    first = argv.index("--")
    second = argv.index("--", first + 1)
    head = argv[:first]
    if len(head) != 3:
        sys.exit(__doc__)
    try:
        movetime, rounds = int(head[0]), int(head[2])
    except ValueError:
        sys.exit(__doc__)
    a, b = argv[first + 1 : second], argv[second + 1 :]
    if not split_options(a)[1] or not split_options(b)[1]:
        sys.exit(__doc__)
    return movetime, head[1], rounds, a, b


def search(engine, position, movetime):
    """(nps, depth, {depth: ms to reach it}) of one `go movetime`."""
    lines, elapsed = engine.go_fresh(position, f"movetime {movetime}", "bestmove")
    nps, depth, reached = None, 0, {}
    for line in lines:
        words = line.split()
        if not words or words[0] != "info":
            continue
        fields = {}
        for key in ("depth", "nodes", "nps", "time"):
            if key in words[:-1]:
                try:
                    fields[key] = int(words[words.index(key) + 1])
                except ValueError:
                    pass
        if "depth" in fields and "pv" in words:
            reached.setdefault(fields["depth"], fields.get("time", round(elapsed * 1000)))
        if "nodes" in fields:
            if "nps" in fields:
                nps = fields["nps"]
            elif fields.get("time"):
                nps = fields["nodes"] * 1000 // fields["time"]
            if "depth" in fields:
                depth = fields["depth"]
    if nps is None:
        raise SystemExit(f"no info line with nodes from {engine.name}")
    # A depth first shown at the end says only "reached by then": YaneuraOu, like Stockfish,
    # prints an iteration's line only after 3 s, so at movetime 3000 its lines all come last.
    reached = {d: t for d, t in reached.items() if t < movetime * 0.95}
    return nps, depth, reached


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    movetime, path, rounds, spec_a, spec_b = parse_args(sys.argv[1:])
    with open(path) as f:
        positions = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    engines = []
    for name, spec in (("A", spec_a), ("B", spec_b)):
        opts, cmd = split_options(spec)
        e = Engine(cmd, opts, stderr=subprocess.DEVNULL)
        e.name = f"{name} ({' '.join(cmd)})"
        engines.append(e)
    print(f"A: {engines[0].name[3:-1]}\nB: {engines[1].name[3:-1]}\n"
          f"go movetime {movetime}, {len(positions)} positions x {rounds} rounds\n")
    print("round pos  nps A      nps B      A/B    depth A/B  ms to common depth A/B")
    ratios, depths, to_depth = [], ([], []), []
    turn = 0
    for r in range(rounds):
        for i, position in enumerate(positions):
            order = (0, 1) if turn % 2 == 0 else (1, 0)
            turn += 1
            got = {}
            for k in order:
                got[k] = search(engines[k], position, movetime)
            (na, da, ra), (nb, db, rb) = got[0], got[1]
            common = max(set(ra) & set(rb), default=None)
            ratios.append(na / nb)
            depths[0].append(da)
            depths[1].append(db)
            td = ""
            if common is not None:
                td = f"d{common}: {ra[common]}/{rb[common]}"
                if ra[common] > 0 and rb[common] > 0:
                    to_depth.append(ra[common] / rb[common])
            print(f"{r:5} {i:3}  {na:<10} {nb:<10} {na / nb:5.2f}  {da:3}/{db:<3}    {td}",
                  flush=True)
    for e in engines:
        e.quit()
    print(f"\nnps A/B: geometric mean {geomean(ratios):.3f} "
          f"(range {min(ratios):.2f}-{max(ratios):.2f}, {len(ratios)} searches)")
    print(f"depth: A {sum(depths[0]) / len(depths[0]):.1f}, B {sum(depths[1]) / len(depths[1]):.1f} "
          f"(mean of the last depth reached)")
    if to_depth:
        print(f"time to the deepest common depth A/B: geometric mean {geomean(to_depth):.3f} "
              f"({len(to_depth)} searches)")


if __name__ == "__main__":
    main()
