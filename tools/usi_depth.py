#!/usr/bin/env python3
"""Depth (and seldepth, score, move) a USI engine reaches at a node budget, per position.

Depth at equal *nodes* does not depend on the machine's load or the compiler, so two engines
can be compared on a busy machine; their speed ratio (`gougi bench search` against the other
engine's `bench`) turns it into depth at equal time.

    tools/usi_depth.py NODES POSITIONS_FILE [opt:NAME=VALUE ...] CMD...
    tools/usi_depth.py 8000000 docs/matches/depth-positions.txt opt:USI_Hash=256 target/release/gougi search

POSITIONS_FILE: one `startpos …` or `sfen …` line each (the file above is in the match records:
`tools/records.sh unpack positions` first). Per position the engine gets
`usinewgame`, `isready`, `position …`, `go nodes NODES`; the last `info … depth … pv` line before
`bestmove` is the one reported (BENCHMARKS "Search depth at equal nodes").
"""
import subprocess
import sys

from usi_engine import Engine, split_options


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    nodes = int(sys.argv[1])
    with open(sys.argv[2]) as f:
        positions = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    opts, cmd = split_options(sys.argv[3:])
    engine = Engine(cmd, opts, stderr=subprocess.DEVNULL)
    for position in positions:
        lines, elapsed = engine.go_fresh(position, f"nodes {nodes}", "bestmove")
        infos = [l.split() for l in lines if l.startswith("info") and " depth " in l and " pv " in l]
        last = infos[-1] if infos else []

        def field(key, width=1):
            i = last.index(key) + 1 if key in last else None
            return " ".join(last[i : i + width]) if i else "?"

        print(f"depth {field('depth')} seldepth {field('seldepth')} nodes {field('nodes')} "
              f"score {field('score', 2)} {elapsed:.1f}s {lines[-1]}", flush=True)
    engine.quit()


if __name__ == "__main__":
    main()
