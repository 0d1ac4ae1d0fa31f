#!/usr/bin/env python3
"""CPU time a USI engine spends per move, its own and that of every process it started
(a consultation's members): user + system time of the process tree and of the processes it
reaped, read from /proc (Linux) after `readyok` and after the last `bestmove`, so start-up is not counted.

Positions: plies 20, 40, 60 and 80 of the first GAMES lines of a `games.sfen` file (one
`startpos moves …` line per game, as `gougi match` writes it).

    tools/cpu_per_move.py SFEN_FILE GAMES "GO_LINE" [opt:NAME=VALUE ...] CMD...
    tools/cpu_per_move.py games.sfen 10 "go nodes 10000" /usr/games/fairy-stockfish
    tools/cpu_per_move.py games.sfen 10 "go nodes 10000" target/release/gougi --config my.config

Prints CPU ms per move and wall ms per move. Issue 19 asks node budgets "measured to cost equal
CPU time"; this is the measurement.
"""
import os
import subprocess
import sys
import time

from usi_engine import Engine, split_options

TICK = os.sysconf("SC_CLK_TCK")


def tree(pid):
    """pid and all its descendants that are alive."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return out


def cpu_seconds(pid):
    total = 0
    for p in tree(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            # utime, stime, and cutime, cstime: the reaped children's (fields 14–17), so a
            # process that starts and ends during the moves is counted too
            total += sum(int(x) for x in fields[11:15])
        except OSError:
            pass
    return total / TICK


def main():
    sfen, games, go = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    opts, cmd = split_options(sys.argv[4:])
    positions = []
    for line in open(sfen).read().splitlines()[:games]:
        moves = line.split()[2:]
        for ply in (20, 40, 60, 80):
            if ply <= len(moves):
                positions.append("position startpos moves " + " ".join(moves[:ply]))
    engine = Engine(cmd, opts, stderr=subprocess.DEVNULL)
    send, until = engine.send, engine.until
    send("usinewgame")
    time.sleep(0.5)  # members finish their own start-up (a consultation starts them in parallel)
    c0, t0 = cpu_seconds(engine.pid), time.time()
    for pos in positions:
        send(pos)
        send(go)
        until("bestmove")
    c1, t1 = cpu_seconds(engine.pid), time.time()
    engine.quit()
    n = max(1, len(positions))
    print(f"{len(positions)} positions: CPU {1000 * (c1 - c0) / n:.1f} ms a move, "
          f"wall {1000 * (t1 - t0) / n:.1f} ms a move")


if __name__ == "__main__":
    main()
