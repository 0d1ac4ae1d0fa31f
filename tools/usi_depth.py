#!/usr/bin/env python3
"""Depth (and seldepth, score, move) a USI engine reaches at a node budget, one position a line.

Depth at equal *nodes* does not depend on the machine's load or the compiler, so two engines
can be compared on a busy machine; their speed ratio (`gougi bench search` against the other
engine's `bench`) turns it into depth at equal time.

    tools/usi_depth.py NODES "ENGINE COMMAND" [Option=value ...] -- POSITION ...

A POSITION is `startpos` or `sfen …` (one shell word each). Per position the engine gets
`usinewgame`, `isready`, `position …`, `go nodes NODES`; the last `info … depth … pv` line before
`bestmove` is the one reported. Example (BENCHMARKS "Search depth at equal nodes"):

    tools/usi_depth.py 8000000 "target/release/gougi search" USI_Hash=256 -- startpos
"""

import subprocess
import sys
import time


def main() -> None:
    args = sys.argv[1:]
    if len(args) < 3 or "--" not in args:
        sys.exit(__doc__)
    nodes, cmd, rest = int(args[0]), args[1], args[2:]
    split = rest.index("--")
    options, positions = rest[:split], rest[split + 1 :]
    engine = subprocess.Popen(
        cmd, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )

    def send(line: str) -> None:
        engine.stdin.write(line + "\n")
        engine.stdin.flush()

    def read_until(prefix: str) -> list[str]:
        lines = []
        while True:
            line = engine.stdout.readline()
            if not line:
                sys.exit(f"the engine exited while we waited for {prefix!r}")
            lines.append(line.rstrip())
            if line.startswith(prefix):
                return lines

    send("usi")
    read_until("usiok")
    for option in options:
        name, value = option.split("=", 1)
        send(f"setoption name {name} value {value}")
    send("isready")
    read_until("readyok")
    for position in positions:
        send("usinewgame")
        send("isready")
        read_until("readyok")
        send(f"position {position}")
        start = time.monotonic()
        send(f"go nodes {nodes}")
        lines = read_until("bestmove")
        elapsed = time.monotonic() - start
        infos = [l.split() for l in lines if l.startswith("info") and " depth " in l and " pv " in l]
        last = infos[-1] if infos else []

        def field(key: str) -> str:
            return last[last.index(key) + 1] if key in last else "?"

        score = " ".join(last[last.index("score") + 1 : last.index("score") + 3]) if "score" in last else "?"
        print(
            f"depth {field('depth')} seldepth {field('seldepth')} nodes {field('nodes')} "
            f"score {score} {elapsed:.1f}s {lines[-1]}",
            flush=True,
        )
    send("quit")


if __name__ == "__main__":
    main()
