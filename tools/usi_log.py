#!/usr/bin/env python3
"""`gougi search` behind a relay that logs both directions, and a report of the nodes its
searches reached (issue 66 item 1: the cluster frame's self-test compares ponder hit rates by
nodes with a real-clock run, at the nodes a move gets on the clock).

Relay: `tools/usi_log.py LOG [gougi arguments…]` is a USI engine (default arguments: `search`;
`GOUGI_BIN` is gougi's path, default gougi on PATH). Every line in is appended to LOG as
`> line`, every line out as `< line`, in the order the relay saw them.

    gougi match -e 'cmd="tools/usi_log.py /tmp/s1.log" name=s1' … --byoyomi 100 --ponder

Report: `tools/usi_log.py --report LOG…` prints, over the logs, the median, quartiles and count
of the nodes at each `bestmove` (the last `info … nodes`), split by how the search began: a
plain `go` (no ponder, or after a ponder miss), a `go ponder` ended by `ponderhit` (its nodes
count the ponder too), and a stopped ponder (a miss or the game's end; its answer is dropped).
"""

import os
import statistics
import subprocess
import sys
import threading


def relay(log_path, args):
    log = open(log_path, "a", buffering=1)
    lock = threading.Lock()
    child = subprocess.Popen(
        [os.environ.get("GOUGI_BIN", "gougi"), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )

    def out():
        for line in child.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            with lock:
                log.write("< " + line)

    threading.Thread(target=out, daemon=True).start()
    for line in sys.stdin:
        # Logged before it is passed on, so the log never shows an answer before its command.
        with lock:
            log.write("> " + line)
        child.stdin.write(line)
        child.stdin.flush()
    child.stdin.close()
    child.wait()


def report(paths):
    kinds = {"go": [], "ponderhit": [], "stopped ponder": []}
    for path in paths:
        kind, nodes = None, None
        for raw in open(path, encoding="utf-8", errors="replace"):
            d, line = raw[:1], raw[2:].strip()
            words = line.split()
            if d == ">" and words[:1] == ["go"]:
                kind, nodes = ("ponder" if "ponder" in words else "go"), None
            elif d == ">" and line == "ponderhit" and kind == "ponder":
                kind = "ponderhit"
            elif d == "<" and "nodes" in words:
                nodes = int(words[words.index("nodes") + 1])
            elif d == "<" and words[:1] == ["bestmove"] and kind and nodes is not None:
                k = "stopped ponder" if kind == "ponder" else kind
                kinds[k].append(nodes)
                kind = None
    for k, v in kinds.items():
        if len(v) >= 4:
            q = statistics.quantiles(v, n=4)
            print(f"{k}: {len(v)} searches, nodes median {statistics.median(v):.0f} "
                  f"(quartiles {q[0]:.0f}, {q[2]:.0f})")
        else:
            print(f"{k}: {len(v)} searches")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--report":
        report(sys.argv[2:])
    elif len(sys.argv) >= 2 and not sys.argv[1].startswith("-"):
        relay(sys.argv[1], sys.argv[2:] or ["search"])
    else:
        sys.exit(__doc__)
