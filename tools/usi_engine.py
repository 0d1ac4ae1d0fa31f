"""A USI engine over a pipe, for the measuring scripts (tools/cpu_per_move.py,
docs/matches/clock/answer_times.py, from `tools/records.sh unpack clock`): start it, send
lines, read up to a line with a prefix, and the handshake with `opt:NAME=VALUE` options taken
off the front of a command line."""
import subprocess
import time


def split_options(args):
    """(options, command): the leading `opt:NAME=VALUE` words as (NAME, VALUE), then the rest."""
    args = list(args)
    opts = []
    while args and args[0].startswith("opt:"):
        name, value = args.pop(0)[4:].split("=", 1)
        opts.append((name, value))
    return opts, args


class Engine:
    def __init__(self, cmd, opts=(), stderr=None):
        """stderr: where the engine's goes (None: ours; subprocess.DEVNULL to drop it)."""
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=stderr, text=True, bufsize=1)
        self.send("usi")
        self.until("usiok")
        for name, value in opts:
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.until("readyok")

    @property
    def pid(self):
        return self.proc.pid

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix):
        """The first line starting with prefix; exits if the engine dies first."""
        return self.lines_until(prefix)[-1]

    def lines_until(self, prefix):
        """Every line read up to and including the first one starting with prefix."""
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit("engine died")
            lines.append(line.rstrip("\n"))
            if line.startswith(prefix):
                return lines

    def go_fresh(self, position, go, until):
        """`usinewgame`, `isready` (waited for), `position …`, `go …`; returns the lines read up
        to the one starting with `until`, and the seconds from `go` to it."""
        self.send("usinewgame")
        self.send("isready")
        self.until("readyok")
        self.send(f"position {position}")
        start = time.monotonic()
        self.send(f"go {go}")
        lines = self.lines_until(until)
        return lines, time.monotonic() - start

    def quit(self, timeout=60):
        self.send("quit")
        self.proc.wait(timeout=timeout)
