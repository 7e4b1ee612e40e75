"""A real terminal for benches: a detached tmux session on a private socket, read and typed into.

- Every ``Terminal`` starts its own tmux server (``tmux -L bench<pid>-<n>``, ``-f /dev/null``),
  so it never sees or touches the user's tmux sessions or config, and ``close()`` kills only that
  server.
- The window is ``width`` x ``height`` (120x40 by default) with ``window-size manual``, so the
  control client below cannot resize it.
- Commands go through one tmux **control-mode** client (``tmux -C attach``) kept open for the
  session's life: a ``capture-pane`` costs ~0.1 ms that way instead of ~2-3 ms of CPU for a new
  ``tmux`` process each time, which matters when polling every 15 ms on a 2-core machine. Pane
  output notifications are switched off (``refresh-client -f no-output``).
- The app is started with ``respawn-pane -k`` as ``exec env -i VAR=... argv`` (so the pane's pid
  *is* the app, and its environment is exactly what the bench gives it). ``remain-on-exit`` keeps
  the pane after a crash so its last screen can be read.
- CPU and memory come from ``/proc``: ``tree_cpu()`` sums utime+stime+cutime+cstime over the pane
  process and all its live descendants (cutime/cstime hold the children that already exited and
  were waited for), ``tree_rss()`` sums VmRSS.
"""

from __future__ import annotations

import itertools
import os
import shlex
import subprocess
import threading
import time
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")
_counter = itertools.count()


class TmuxError(RuntimeError):
    pass


class Terminal:
    def __init__(self, width: int = 120, height: int = 40, *, term: str = "tmux-256color") -> None:
        self.width, self.height = width, height
        self.socket = f"bench{os.getpid()}-{next(_counter)}"
        self.session = "bench"
        self.target = f"{self.session}:0.0"
        self._lock = threading.Lock()
        self._tmux(["new-session", "-d", "-s", self.session, "-x", str(width), "-y", str(height),
                    "sleep 100000"])
        for opt in (["window-size", "manual"], ["remain-on-exit", "on"], ["status", "off"],
                    ["default-terminal", term], ["history-limit", "100"], ["escape-time", "0"]):
            self._tmux(["set-option", "-g", *opt])
        self._tmux(["resize-window", "-t", self.session, "-x", str(width), "-y", str(height)])
        self._ctl = subprocess.Popen(self._base() + ["-C", "attach-session", "-t", self.session],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self._block()  # the attach's own reply
        self.command("refresh-client -f no-output")
        self.term = term
        self.pid: int | None = None

    # ------------------------------------------------------------------ tmux plumbing

    def _base(self) -> list[str]:
        return ["tmux", "-L", self.socket, "-f", "/dev/null"]

    def _tmux(self, args: list[str]) -> str:
        proc = subprocess.run(self._base() + args, capture_output=True, text=True)
        if proc.returncode:
            raise TmuxError(f"tmux {' '.join(args)}: {proc.stderr.strip()}")
        return proc.stdout

    def _block(self) -> str:
        out = self._ctl.stdout
        while True:
            line = out.readline()
            if not line:
                raise TmuxError("control client closed")
            if line.startswith(b"%begin"):
                tag = line.split()[2]
                break
        lines = []
        while True:
            line = out.readline()
            if not line:
                raise TmuxError("control client closed")
            parts = line.split()
            if len(parts) >= 3 and parts[0] in (b"%end", b"%error") and parts[2] == tag:
                text = b"".join(lines).decode("utf-8", "replace")
                if parts[0] == b"%error":
                    raise TmuxError(text.strip())
                return text
            lines.append(line)

    def command(self, cmd: str) -> str:
        """Run one tmux command through the control client; returns its output."""
        with self._lock:
            self._ctl.stdin.write(cmd.encode() + b"\n")
            return self._block()

    # ------------------------------------------------------------------ the app

    def launch(self, argv: list[str], env: dict[str, str], cwd: str | None = None) -> float:
        """Start ``argv`` in the pane with exactly ``env`` (plus TERM); returns the launch time
        (``time.monotonic()`` just before tmux is asked to start it)."""
        env = {"TERM": self.term, **env}
        inner = "exec env -i " + " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
        inner += " " + shlex.join(argv)
        if cwd:
            inner = f"cd {shlex.quote(cwd)} && {inner}"
        t0 = time.monotonic()
        self.command(f"respawn-pane -k -t {self.target} {_q(inner)}")
        self.pid = int(self.command(f"display-message -p -t {self.target} '#{{pane_pid}}'").strip())
        return t0

    def capture(self) -> str:
        """The visible screen as plain text (no escapes), one line per row."""
        return self.command(f"capture-pane -p -t {self.target}")

    def dead(self) -> bool:
        return self.command(f"display-message -p -t {self.target} '#{{pane_dead}}'").strip() == "1"

    def send_text(self, text: str) -> None:
        """Type ``text`` literally (send-keys -l)."""
        self.command(f"send-keys -t {self.target} -l {_q(text)}")

    def send_keys(self, *keys: str) -> None:
        """Press named keys (``Enter``, ``C-u``, ``Escape`` ...)."""
        self.command(f"send-keys -t {self.target} " + " ".join(keys))

    def wait_for(self, predicate, timeout: float, interval: float = 0.015) -> tuple[float, str] | None:
        """Poll the screen until ``predicate(text)``; returns (time, text) or None on timeout."""
        end = time.monotonic() + timeout
        while True:
            text = self.capture()
            now = time.monotonic()
            if predicate(text):
                return now, text
            if now > end:
                return None
            time.sleep(interval)

    # ------------------------------------------------------------------ /proc

    def tree(self) -> list[int]:
        return process_tree(self.pid) if self.pid else []

    def tree_cpu(self) -> float:
        return tree_cpu(self.pid) if self.pid else 0.0

    def tree_rss(self) -> int:
        return tree_rss(self.pid) if self.pid else 0

    # ------------------------------------------------------------------ cleanup

    def close(self) -> None:
        """Kill the app's process tree and this private tmux server."""
        pids = self.tree()
        for pid in reversed(pids):
            try:
                os.kill(pid, 15)
            except OSError:
                pass
        try:
            if self._ctl.poll() is None:
                self._ctl.stdin.close()
                self._ctl.wait(timeout=2)
        except Exception:  # noqa: BLE001
            self._ctl.kill()
        subprocess.run(self._base() + ["kill-server"], capture_output=True)
        sock = Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}" / self.socket
        try:
            sock.unlink()
        except OSError:
            pass
        deadline = time.monotonic() + 2
        for pid in pids:
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.02)
            if _alive(pid):
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass

    def __enter__(self) -> "Terminal":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _q(s: str) -> str:
    """Quote for tmux's own command parser (single quotes; ' becomes '\\'')."""
    return "'" + s.replace("'", "'\\''") + "'"


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # fields after "(comm)": state is index 0 there, i.e. field 3 of stat(5)
    return text.rsplit(")", 1)[1].split()


def process_tree(root: int) -> list[int]:
    """``root`` and all its live descendants (parents before children)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        st = _stat(int(entry.name))
        if st is None:
            continue
        children.setdefault(int(st[1]), []).append(int(entry.name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop(0)
        if _stat(pid) is None:
            continue
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def proc_cpu(pid: int) -> float:
    """utime+stime+cutime+cstime of one process, in seconds."""
    st = _stat(pid)
    if st is None:
        return 0.0
    # stat(5) fields 14-17 = utime stime cutime cstime; st[0] is field 3
    return sum(int(x) for x in st[11:15]) / CLK_TCK


def tree_cpu(root: int) -> float:
    return sum(proc_cpu(p) for p in process_tree(root))


def proc_rss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def tree_rss(root: int) -> int:
    return sum(proc_rss(p) for p in process_tree(root))


if __name__ == "__main__":  # a quick self-check: run `python -c` in a pane and read it back
    import sys

    with Terminal() as term:
        t0 = term.launch([sys.executable, "-c", "import time; print('hello from the pane'); "
                          "sum(range(10**7)); time.sleep(30)"], {"PATH": os.environ["PATH"]})
        hit = term.wait_for(lambda s: "hello from the pane" in s, 10)
        print("first line after", round(hit[0] - t0, 3), "s; pid", term.pid, "tree", term.tree())
        time.sleep(0.5)
        print("cpu", term.tree_cpu(), "rss MiB", term.tree_rss() / 2**20)
        print(term.capture().splitlines()[0])
