#!/usr/bin/env python3
"""A USI engine that is `gougi search` playing every move at a node budget.

For match runners that only send clocks (cshogi's `python -m cshogi.cli` has no node limit):
each `go …` (not `go ponder`) is rewritten to `go nodes N`; every other line passes through,
and the engine's output goes straight to our stdout. The runner starts engines with no
arguments, so the settings come from the environment:

    GOUGI_BIN          absolute path of gougi (default: gougi on PATH)
    USI_NODES          the node budget (required)
    USI_NODES_JITTER   vary it by up to ± this percent (default 0); the draw is seeded by the
                       `position` line and USI_NODES_SEED, so both players get the same budget
                       in the same position and a rerun replays the same games
    USI_NODES_SEED     (default 1)
    USI_NODES_NO_PV    1: cut `pv …` off the engine's `info` lines (see below)
    USI_NODES_ARGS     gougi's arguments (default `search`), split like a shell line; e.g.
                       `--config docs/matches/self3-mate.config` to play a consultation at
                       `go nodes N` (its members then get N nodes each, its mate member
                       G_MateNodesPct % of N, and the decision waits for it: games replay)

    GOUGI_BIN=$PWD/target/release/gougi USI_NODES=3000 python3 -m cshogi.cli \
        tools/usi_nodes.py tools/usi_nodes.py --options1 T_LmrLog:2001 …

The engine's stderr is discarded: cshogi pipes it and never reads it, so a chatty engine
would otherwise block once the pipe fills.

USI_NODES_NO_PV=1 exists because cshogi's runner turns each `info … pv` into a CSA comment and
its native move_to_csa aborts the whole match (std::length_error) on a PV move that is not
legal in the position (a stale PV tail such as `7b9b+` for a dragon). Without the PV the
comment is skipped; results do not depend on it (the runner uses the score only for --resign
and --mate-win).
"""

import os
import random
import shlex
import subprocess
import sys
import threading


def copy_without_pv(stream):
    for line in stream:
        if line.startswith("info ") and " pv " in line:
            line = line[: line.index(" pv ")] + "\n"
        sys.stdout.write(line)
        sys.stdout.flush()


def main():
    nodes = int(os.environ["USI_NODES"])
    jitter = float(os.environ.get("USI_NODES_JITTER", "0"))
    seed = os.environ.get("USI_NODES_SEED", "1")
    no_pv = os.environ.get("USI_NODES_NO_PV", "0") == "1"
    child = subprocess.Popen(
        [os.environ.get("GOUGI_BIN", "gougi")]
        + shlex.split(os.environ.get("USI_NODES_ARGS", "search")),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE if no_pv else None,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )
    if no_pv:
        threading.Thread(target=copy_without_pv, args=(child.stdout,), daemon=True).start()
    position = ""
    for line in sys.stdin:
        words = line.split()
        if words and words[0] == "position":
            position = line.strip()
        if words and words[0] == "go" and "ponder" not in words:
            n = nodes
            if jitter > 0:
                r = random.Random(f"{seed}:{position}").uniform(-jitter, jitter)
                n = max(1, round(nodes * (1 + r / 100)))
            line = f"go nodes {n}\n"
        child.stdin.write(line)
        child.stdin.flush()
        if words and words[0] == "quit":
            break
    try:
        child.stdin.close()
    except BrokenPipeError:
        pass
    child.wait(timeout=30)


if __name__ == "__main__":
    main()
