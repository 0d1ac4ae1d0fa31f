#!/usr/bin/env python3
"""Answer times of a USI engine for `go byoyomi N` (or another go line) over a pipe,
self-playing from tests/data/openings/tune-256.txt (issue 19, BENCHMARKS "Time").
Usage: answer_times.py MOVES "GO_LINE" [opt:NAME=VALUE ...] CMD... ; prints the distribution
of answer times in ms, from writing `go` to reading `bestmove`."""
import os, sys, time, statistics, random
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../tools'))
from usi_engine import Engine, split_options
moves_wanted = int(sys.argv[1]); go = sys.argv[2]
opts, cmd = split_options(sys.argv[3:])
engine = Engine(cmd, opts)
send, until = engine.send, engine.until
openings = [l.strip() for l in open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../tests/data/openings/tune-256.txt')) if l.strip() and not l.startswith('#')]
random.seed(1)
times = []
while len(times) < moves_wanted:
    base = random.choice(openings)
    mv = []
    send("usinewgame")
    for ply in range(120):
        pos = base + ((" moves " if " moves" not in base else " ") + " ".join(mv) if mv else "")
        if not base.startswith("startpos") and not base.startswith("sfen"): pos = "sfen " + base + ((" moves " + " ".join(mv)) if mv else "")
        send("position " + pos)
        t0 = time.perf_counter(); send(go)
        l = until("bestmove")
        dt = (time.perf_counter() - t0) * 1000
        times.append(dt)
        b = l.split()[1]
        if b in ("resign", "win") or len(times) >= moves_wanted: break
        mv.append(b)
send("quit")
times.sort()
n = len(times)
q = lambda f: times[min(n - 1, int(f * n))]
print(f"n={n} min={times[0]:.1f} p1={q(.01):.1f} p10={q(.1):.1f} median={q(.5):.1f} p90={q(.9):.1f} p99={q(.99):.1f} max={times[-1]:.1f} mean={statistics.mean(times):.1f}")
