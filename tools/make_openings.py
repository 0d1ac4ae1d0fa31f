#!/usr/bin/env python3
"""Make a held-out opening set: random legal lines from the start position, kept when balanced.

Each candidate is a random legal line of MIN..MAX plies from the start position (cshogi's move
generator, Python's `random` seeded with --seed, so the same command gives the same file).
A candidate is dropped when:
  - its final position (board, hands, side to move; not the move number) was already kept,
    or is the final position of a line in one of the --exclude files (openings used elsewhere,
    e.g. the tuning set),
  - the side to move is in check or the game is over there,
  - `gougi search` at `go nodes N` (default options) scores it outside ±LIMIT cp for the
    side to move, or reports a mate score.
Output: one `startpos moves …` line per opening, no comments (cshogi's match runner reads every
line as `startpos moves …`), in the order found.

    python3 tools/make_openings.py --gougi target/release/gougi --count 512 --seed 20261125 \
        --exclude tests/data/openings/balanced-16.txt > tests/data/openings/heldout-512.txt

Not part of the build; needs `pip install cshogi`.
"""

import argparse
import random
import subprocess
import sys

import cshogi


def position_key(board):
    # The SFEN without its move number: the same position reached by other move orders is the
    # same opening for a match.
    return " ".join(board.sfen().split(" ")[:3])


def line_key(line):
    board = cshogi.Board()
    words = line.split()
    if words[:2] != ["startpos", "moves"]:
        return None
    for m in words[2:]:
        board.push_usi(m)
    return position_key(board)


class Searcher:
    """One `gougi search` process asked for a score per position."""

    def __init__(self, gougi, hash_mb):
        self.proc = subprocess.Popen(
            [gougi, "search"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.send("usi")
        self.wait_for("usiok")
        self.send(f"setoption name USI_Hash value {hash_mb}")
        self.send("isready")
        self.wait_for("readyok")

    def send(self, cmd):
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()

    def wait_for(self, word):
        for line in self.proc.stdout:
            if line.strip() == word:
                return
        raise RuntimeError(f"gougi search ended before {word}")

    def score(self, moves, nodes):
        """(kind, value) of the last `info … score` before `bestmove`: kind is cp or mate."""
        self.send("usinewgame")
        self.send("position startpos moves " + " ".join(moves))
        self.send(f"go nodes {nodes}")
        last = None
        for line in self.proc.stdout:
            words = line.split()
            if words and words[0] == "info" and "score" in words:
                i = words.index("score")
                last = (words[i + 1], int(words[i + 2]))
            elif words and words[0] == "bestmove":
                return last
        raise RuntimeError("gougi search ended before bestmove")

    def close(self):
        self.send("quit")
        self.proc.wait(timeout=10)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gougi", default="target/release/gougi")
    ap.add_argument("--count", type=int, default=512)
    ap.add_argument("--seed", type=int, default=20261125)
    ap.add_argument("--min-plies", type=int, default=6)
    ap.add_argument("--max-plies", type=int, default=12)
    ap.add_argument("--nodes", type=int, default=20000)
    ap.add_argument("--limit", type=int, default=300, help="largest |score| kept, cp")
    ap.add_argument("--hash", type=int, default=16)
    ap.add_argument("--exclude", action="append", default=[])
    args = ap.parse_args()

    rng = random.Random(args.seed)
    seen = set()
    for path in args.exclude:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    key = line_key(line)
                    if key:
                        seen.add(key)

    searcher = Searcher(args.gougi, args.hash)
    kept = tried = dup = unbalanced = 0
    while kept < args.count:
        tried += 1
        board = cshogi.Board()
        plies = rng.randint(args.min_plies, args.max_plies)
        moves = []
        for _ in range(plies):
            legal = sorted(cshogi.move_to_usi(m) for m in board.legal_moves)
            if not legal:
                break
            m = rng.choice(legal)
            board.push_usi(m)
            moves.append(m)
        if len(moves) < plies or board.is_check() or board.is_game_over():
            continue
        key = position_key(board)
        if key in seen:
            dup += 1
            continue
        seen.add(key)
        kind, value = searcher.score(moves, args.nodes) or ("none", 0)
        if kind != "cp" or abs(value) > args.limit:
            unbalanced += 1
            continue
        print("startpos moves " + " ".join(moves), flush=True)
        kept += 1
    searcher.close()
    print(
        f"kept {kept} of {tried} lines ({dup} repeated positions, {unbalanced} outside "
        f"±{args.limit} cp at {args.nodes} nodes); seed {args.seed}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
