"""birdie-tui and its peers side by side, in a real terminal, against one loopback SSE server.

Every run launches one app in a fresh detached tmux session (120x40, private socket, see
``terminal.py``) with a fresh temporary HOME, pointed at ``sse_server.SSEServer`` on 127.0.0.1
with a dummy key. Apps are interleaved (A B C A B C ...), and each run has one of two modes:

**paced** (the server sends ``--tps`` tokens/s, 200 by default):
  1. launch; poll ``capture-pane`` every ``--poll-ms`` (15 ms) until the app's known string is on
     screen = **first paint**;
  2. at first paint + ``--type-delay`` (0.5 s), type the prompt with ``send-keys -l``; once the
     whole prompt is visible (the app took the keys), wait ``--enter-delay`` (0.1 s) and press
     Enter (without the pause deepagents-code reads the Enter as part of a paste: a newline);
  3. poll until the reply's last word (``ZZENDMARKER``) is on screen.
  Reported: first paint; **launch -> first answer token on screen** (the reply starts with the
  word ``ZZSTART``); Enter -> first token; **staleness**; last token sent -> marker visible;
  CPU (launch -> marker, and Enter -> marker); RSS at the end.

**full** (the server writes the whole reply at once):
  1. launch, first paint, then wait until the app is **idle** (its process tree used < 30 ms of
     CPU over the last second, at least 1 s after first paint, at most 15 s after launch) and
     take the **idle RSS** (sum of VmRSS over the process tree);
  2. type the prompt, Enter 0.1 s after it shows;
  3. **full speed**: server's first byte of the reply -> ``ZZENDMARKER`` visible. With a 10k-token
     reply only its tail fits the window, so this also checks the app scrolls to the end.
  CPU Enter -> marker.

**Staleness** (paced): the server records when it wrote its first and last token. The bench
tracks how far into the reply the screen has got: every line of the pane is split into
alphanumeric words, and each run of 4 consecutive words that occurs exactly once in the reply
gives a position; the screen's *progress* is the furthest such position (a spinner, a clock
or a cursor blink does not move it). Staleness is the longest interval, clipped to the window
in which the server was still sending, during which the progress did not advance. The same
figure computed from *any* change of the pane text is reported too (``stale_any``), but an
animated spinner or timer can hide a frozen transcript there. Staleness starts at the server's
first token, so it includes the wait for that token to show; ``stale_after_first`` starts at
the first move instead (the raw move times are in the JSON, ``moves``).

**Keys during the stream** (paced, ``--keys-every 0.2``; birdie-tui only, the one app whose
message box the bench can find on screen: ``peers.birdie_composer``): from the server's first
token until it has written its last, one ``--keys-char`` (``%``, which neither the reply nor the
box's neighbours contain) is typed every ``--keys-every`` s with ``send-keys -l``, on a fixed
schedule whether or not the last one has shown. While a key is outstanding the pane is captured
every ``--keys-poll-ms`` (3 ms) instead of ``--poll-ms``; key *n* has landed when the composer
shows *n* of them. Reported: send -> visible p50/p95/max, and keys not visible 2 s after the
reply's end. The fast polling and the echoes change the pane, so ``stale_any`` and tmux's own
CPU are not comparable with a run without keys; the app's CPU includes handling the keys.

**Warm turns** (``--warm-turns N``; birdie-tui only, other apps are refused): the measured reply
comes at turn N+1 of a session the user chatted in, not on a fresh one. After first paint the
bench types N quick turns into the same pane: a short prompt (``Note 17: how did the garden look
today?``, without the long reply's prompt word), Enter, then it waits until that request's
reply marker (``sse_server.warm_marker``) is on screen and the status bar no longer shows
``● working`` (a prompt sent while a turn runs stays in the composer). The server runs with
``warm=True``: each of those requests gets a 150-300-token Markdown reply at full speed. So the
chat holds N live turns, rendered as they arrived (a replayed session would render its old
replies more cheaply). Then the bench waits until the app is idle (at most ``--warm-idle-cap``
s; also with ``--warm-turns 0``, so turn 1 and turn N+1 start alike) and the measured reply runs
as above, with the same figures. Launch -> first answer token is not reported (it would time the
warm-up); Enter -> first token is. Reported besides: warm-up time and CPU, one turn's time
(p50/p95, mean of the first and last 10), RSS before the measured turn, the status line then,
and requests beyond one per turn.
With ``--warm-turns``, birdie-tui runs with ``LLM_MODEL=--warm-model``, ``gpt-4.1-mini`` by
default (a 1,047,576-token window in ``providers/catalog.py``). With ``gpt-4o-mini`` (128,000)
the estimated context of the warm turns reaches ``auto_compact`` (80 % by default,
``store/settings.py``) before turn 300 (in one run: before turn 288), and the app asks the
server for a summary in the middle of the warm-up. That call is what ``warm_extra_requests``
counts.

CPU is utime+stime+cutime+cstime summed over the app's process tree from ``/proc`` (the pane's
process is the app itself; children that exited count through their parent's cutime/cstime).

    python bench/side_by_side.py [--runs 3] [--apps birdie,vibe,deepagents] [--modes paced,full]
                                 [--tokens 10000] [--tps 200] [--json out.json] [--screens]
                                 [--keys-every 0.2 [--keys-char %] [--keys-poll-ms 3]]
                                 [--warm-turns N [--warm-model gpt-4.1-mini]]   # --apps birdie

Peers are installed on first use into ``${XDG_CACHE_HOME:-~/.cache}/birdie-tui-bench/`` by
``peers.py``; a peer that cannot be installed is skipped, with the reason printed.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peers  # noqa: E402
from quantiles import pct  # noqa: E402
from sse_server import END_WORD, START_WORD, SSEServer  # noqa: E402
from terminal import Terminal  # noqa: E402

_WORD = re.compile(r"[A-Za-z0-9]+")
GRAM = 4


class Progress:
    """Where the screen is in the reply: the furthest uniquely placed 4-word run on any line."""

    def __init__(self, text: str) -> None:
        words = _WORD.findall(text)
        pos: dict[tuple[str, ...], int] = {}
        dup: set[tuple[str, ...]] = set()
        for i in range(len(words) - GRAM + 1):
            g = tuple(words[i:i + GRAM])
            if g in pos:
                dup.add(g)
            pos[g] = i + GRAM
        for g in dup:
            del pos[g]
        self.pos = pos
        self.total = len(words)

    def __call__(self, screen: str) -> int:
        best = 0
        for line in screen.splitlines():
            w = _WORD.findall(line)
            for i in range(len(w) - GRAM + 1):
                p = self.pos.get(tuple(w[i:i + GRAM]))
                if p and p > best:
                    best = p
        return best


def staleness(events: list[float], start: float, end: float) -> tuple[float, float]:
    """Longest gap between consecutive ``events`` (times the screen moved), clipped to
    [start, end], the window in which the server was sending; and when it began (s after
    ``start``)."""
    if end <= start:
        return 0.0, 0.0
    points = [start] + sorted(t for t in events if start < t < end) + [end]
    gap, at = max((b - a, a - start) for a, b in zip(points, points[1:]))
    return gap, at


class Typist:
    """Types one character every ``every`` s into the pane while the reply streams and notes when
    each shows in the app's composer (``composer(screen)``, the box's text)."""

    def __init__(self, term: Terminal, composer, char: str, every: float, limit: int) -> None:
        self.term, self.composer, self.char = term, composer, char
        self.every, self.limit = every, limit
        self.sent: list[float] = []
        self.landed: list[float] = []
        self.base = 0  # the char already in the box when typing began (none expected)
        self.next_at: float | None = None

    @property
    def pending(self) -> bool:
        return len(self.landed) < len(self.sent)

    def see(self, screen: str, now: float) -> None:
        box = self.composer(screen)
        if box is None:
            return
        count = box.count(self.char)
        if self.next_at is None:
            self.base = count
            return
        while len(self.landed) < min(count - self.base, len(self.sent)):
            self.landed.append(now)

    def tick(self, now: float, streaming: bool) -> None:
        """Send the key that is due, if the stream is still running."""
        if not streaming or len(self.sent) >= self.limit:
            return
        if self.next_at is None:
            self.next_at = now
        if now < self.next_at:
            return
        t = time.monotonic()
        self.term.send_text(self.char)
        self.sent.append(t)
        # A fixed schedule, as a typist does not wait for the echo; a late tick skips ahead.
        self.next_at = max(self.next_at + self.every, t)

    def wait(self, deadline: float, interval: float) -> None:
        while self.pending and time.monotonic() < deadline:
            screen = self.term.capture()
            self.see(screen, time.monotonic())
            time.sleep(interval)

    def report(self) -> dict:
        lat = [b - a for a, b in zip(self.sent, self.landed)]
        return {"key_n": len(lat), "key_lost": len(self.sent) - len(lat), "key_latencies": lat,
                "key_p50": pct(lat, 0.5), "key_p95": pct(lat, 0.95),
                "key_max": max(lat, default=float("nan"))}


def _idle_wait(term: Terminal, t0: float, not_before: float, quiet: float = 0.03,
               cap: float = 15.0) -> tuple[float, bool]:
    """Wait until the app tree used < ``quiet`` CPU seconds over the last second (and
    ``not_before`` has passed), at most until ``t0 + cap``. Returns (when, went idle)."""
    hist: list[tuple[float, float]] = []
    while True:
        now = time.monotonic()
        hist.append((now, term.tree_cpu()))
        hist = [h for h in hist if now - h[0] <= 1.05]
        if (now >= not_before and now - hist[0][0] >= 0.95
                and hist[-1][1] - hist[0][1] < quiet):
            return now, True
        if now - t0 >= cap:
            return now, False
        time.sleep(0.1)


# birdie-tui's status bar while a turn runs (tui/widgets/status_bar.py, BUSY_TEXT): a prompt
# sent then is kept in the composer, not sent.
BIRDIE_BUSY = "● working"


def warm_prompt(i: int) -> str:
    """Warm turn ``i``'s prompt: short, and without the long reply's prompt word."""
    assert peers.PROMPT_WORD not in (p := f"Note {i}: how did the garden look today?")
    return p


def warm_up(term: Terminal, srv: SSEServer, n: int, opts, res: dict) -> bool:
    """Chat ``n`` quick turns in the app's session: type a short prompt, Enter, wait until the
    reply's marker is on screen and the app is no longer busy. Fills ``res['warm_*']``;
    False (with ``res['error']``) when a turn never finished."""
    poll = opts.poll_ms / 1000
    times: list[float] = []
    t_start = time.monotonic()
    cpu_start = term.tree_cpu()
    for i in range(1, n + 1):
        before = len(srv.short_records())

        def answered(screen: str) -> bool:
            recs = srv.short_records()
            # The newest short request's marker: an extra request (a compaction summary)
            # would come before the turn's own one.
            return len(recs) > before and recs[-1].marker in screen and BIRDIE_BUSY not in screen

        t = time.monotonic()
        term.send_text(warm_prompt(i))
        term.send_keys("Enter")
        hit = term.wait_for(answered, opts.warm_timeout, poll)
        if hit is None:
            res["error"] = f"warm turn {i} never finished ({len(srv.short_records()) - before} requests)"
            res["screen"] = term.capture()
            return False
        times.append(hit[0] - t)
    res["warm_turns"] = n
    res["warm_s"] = time.monotonic() - t_start
    res["cpu_warm"] = term.tree_cpu() - cpu_start
    res["warm_times"] = times
    if times:  # none with --warm-turns 0
        res["warm_turn_p50"] = pct(times, 0.5)
        res["warm_turn_p95"] = pct(times, 0.95)
        res["warm_turn_max"] = max(times)
        k = min(10, len(times))
        res["warm_first10"] = statistics.mean(times[:k])
        res["warm_last10"] = statistics.mean(times[-k:])
    # One request per turn expected: more means the app asked for something else (a
    # compaction summary) during warm-up.
    res["warm_requests"] = len(srv.short_records())
    res["warm_extra_requests"] = res["warm_requests"] - n
    return True


def run_once(key: str, mode: str, srv: SSEServer, infos: dict, opts) -> dict:
    srv.reset()
    srv.tps = opts.tps if mode == "paced" else 0
    home = Path(tempfile.mkdtemp(prefix=f"sbs-{key}-"))
    res: dict = {"app": key, "mode": mode, "ok": False,
                 "loadavg": float(Path("/proc/loadavg").read_text().split()[0])}
    term = None
    try:
        warm = opts.warm_turns is not None
        app = peers.spec(key, srv.base_url, home, infos,
                         birdie_model=opts.warm_model if warm else peers.BIRDIE_MODEL)
        res["model"] = opts.warm_model if warm and key == "birdie" else None
        res["version"] = app.version
        term = Terminal(opts.width, opts.height)
        poll = opts.poll_ms / 1000
        t0 = term.launch(app.argv, app.env, app.cwd)

        # -- first paint (and the first frame with anything at all on it)
        first_output: list[float] = []

        def painted(screen: str) -> bool:
            if not first_output and screen.strip():
                first_output.append(time.monotonic())
                res["first_output_screen"] = screen
            return app.ready(screen)

        hit = term.wait_for(painted, opts.start_timeout, poll)
        if hit is None:
            res["error"] = "no first paint" + (" (app exited)" if term.dead() else "")
            res["screen"] = term.capture()
            return res
        fp_at = hit[0]
        res["first_paint"] = fp_at - t0
        res["first_output"] = (first_output[0] if first_output else fp_at) - t0
        res["first_paint_screen"] = hit[1]

        # -- warm turns (birdie-tui, --warm-turns): then the measured turn is turn N+1
        base, not_before = t0, fp_at + 1.0
        if warm:
            res["cpu_startup"] = term.tree_cpu()
            if not warm_up(term, srv, opts.warm_turns, opts, res):
                return res
            base = not_before = time.monotonic()

        # -- idle (full mode, and paced after warm turns) or fixed delay (paced)
        if mode == "full":
            idle_at, _ = _idle_wait(term, base, not_before)
            res["idle_at"] = idle_at - t0
            res["rss_idle_mb"] = term.tree_rss() / 2**20
            res.setdefault("cpu_startup", term.tree_cpu())
            res["procs_idle"] = len(term.tree())
        elif warm:
            # Like-for-like between --warm-turns 0 and N: the reply starts on an idle app.
            idle_at, res["warm_idle"] = _idle_wait(term, base, not_before, cap=opts.warm_idle_cap)
            res["warm_idle_s"] = idle_at - base
        else:
            time.sleep(max(0.0, fp_at + opts.type_delay - time.monotonic()))
        if warm:
            res["rss_before_mb"] = term.tree_rss() / 2**20
            status = [ln for ln in term.capture().splitlines() if "ctx " in ln]
            res["status_before"] = status[-1].strip() if status else ""

        # -- type the prompt, Enter once it shows
        progress = Progress(srv.text)  # built before typing: it takes a few ms
        cpu_before = term.tree_cpu()
        t_type = time.monotonic()
        term.send_text(peers.PROMPT)
        hit = term.wait_for(lambda s: peers.PROMPT in s, 20, poll)
        if hit is None:
            res["error"] = "prompt never showed"
            res["screen"] = term.capture()
            return res
        res["typed_to_echo"] = hit[0] - t_type
        # A pause before Enter, as a person would make: deepagents-code takes an Enter that
        # follows the previous key within 30 ms (as the app handles them) for a pasted newline.
        time.sleep(max(0.0, hit[0] + opts.enter_delay - time.monotonic()))
        term.send_keys("Enter")
        t_enter = time.monotonic()
        res["enter_at"] = t_enter - t0
        # After a long warm-up the load at launch says little about the measured turn's.
        res["loadavg_enter"] = float(Path("/proc/loadavg").read_text().split()[0])

        # -- watch the reply
        moves: list[float] = []
        changes: list[float] = []
        trace: list[tuple[float, int, str]] = []
        last_prog, last_screen = 0, None
        start_seen = end_seen = None
        cpu_at_first = None  # tree CPU when the server has written its first token
        timeout = (len(srv.tokens) / opts.tps if mode == "paced" else 0) + opts.reply_timeout
        deadline = t_enter + timeout
        screen = ""
        typist = None
        if mode == "paced" and opts.keys_every > 0:
            if app.composer is None:
                res["keys_skipped"] = "the bench does not know where this app's message box is"
            else:
                typist = Typist(term, app.composer, opts.keys_char, opts.keys_every, opts.keys_max)
        key_poll = opts.keys_poll_ms / 1000
        streaming = False  # the server has written its first token and not yet its last
        while True:
            screen = term.capture()
            now = time.monotonic()
            recs = srv.long_records() if typist is not None or cpu_at_first is None else []
            if cpu_at_first is None:
                if recs and recs[0].first_token is not None:
                    cpu_at_first = term.tree_cpu()
            if typist is not None:
                streaming = bool(recs) and recs[0].first_token is not None and \
                    recs[0].tokens_sent < len(srv.tokens)
                typist.see(screen, now)
                typist.tick(now, streaming)
            if screen != last_screen:
                changes.append(now)
                last_screen = screen
                p = progress(screen)
                if opts.trace:
                    trace.append((now, p, screen))
                if p > last_prog:
                    moves.append(now)
                    last_prog = p
                if start_seen is None and START_WORD in screen:
                    start_seen = now
                    if not moves or moves[-1] != now:
                        moves.append(now)
                if END_WORD in screen:
                    end_seen = now
                    break
            if now > deadline:
                break
            if term.dead():
                res["error"] = "app exited"
                break
            if typist is not None and typist.pending:
                time.sleep(key_poll)
            elif typist is not None and streaming and typist.next_at is not None:
                time.sleep(max(0.0, min(poll, typist.next_at - time.monotonic())))
            else:
                time.sleep(poll)
        cpu_end = term.tree_cpu()
        if typist is not None:
            typist.wait(time.monotonic() + 2.0, key_poll)
            res.update(typist.report())
        res["cpu_total"] = cpu_end
        res["cpu_reply"] = cpu_end - cpu_before
        if cpu_at_first is not None:
            res["cpu_stream"] = cpu_end - cpu_at_first
        res["rss_end_mb"] = term.tree_rss() / 2**20
        res["procs_end"] = len(term.tree())
        res["screen"] = screen
        if end_seen is not None and not opts.no_settle:
            # Work an app defers past the moment the tail shows (rendering what is off
            # screen, saving the session, a title request) still costs CPU: wait until the
            # tree is idle again (at most --settle-cap s) and count it too.
            now = time.monotonic()
            settled_at, idle = _idle_wait(term, now, now + 1.0, cap=opts.settle_cap)
            res["settle_s"] = settled_at - end_seen - (1.0 if idle else 0.0)
            res["settled"] = idle
            res["cpu_reply_settled"] = term.tree_cpu() - cpu_before
            res["rss_settled_mb"] = term.tree_rss() / 2**20
            res["screen"] = term.capture()
        recs = srv.long_records()
        res["requests"] = [r.__dict__ for r in srv.records]
        if not recs or recs[0].first_token is None:
            res.setdefault("error", "the server got no chat request")
            return res
        rec = recs[0]
        res["tokens_sent"] = rec.tokens_sent
        res["enter_to_request"] = rec.arrived - t_enter
        if start_seen is not None:
            if not warm:  # after warm turns, launch -> first token would time the warm-up
                res["first_token_on_screen"] = start_seen - t0
            res["enter_to_first_token"] = start_seen - t_enter
            res["sent_to_first_token"] = start_seen - rec.first_token
        if end_seen is None:
            res.setdefault("error", f"{END_WORD} never showed (progress {last_prog}/{progress.total} words)")
            return res
        res["progress_words"] = last_prog
        if mode == "paced":
            end = rec.last_token
            res["stale_max"], res["stale_max_at"] = staleness(moves, rec.first_token, end)
            res["stale_any"], _ = staleness(changes, rec.first_token, end)
            # The same once the reply is on screen: without the wait for its first token.
            shown = [t for t in moves if rec.first_token < t < end]
            if shown:
                res["stale_after_first"], _ = staleness(shown, shown[0], end)
            res["moves"] = [t - rec.first_token for t in shown]
            if opts.trace:
                res["trace"] = [(t - rec.first_token, p, s) for t, p, s in trace]
            res["screen_moves"] = len([t for t in moves if rec.first_token < t < end])
            res["last_sent_to_end"] = end_seen - rec.last_token
            res["stream_s"] = rec.last_token - rec.first_token
        else:
            res["full_speed"] = end_seen - rec.first_token
            res["full_enter_to_end"] = end_seen - t_enter
        res["ok"] = True
        return res
    except Exception as exc:  # noqa: BLE001 - one broken run must not end the bench
        res["error"] = f"{type(exc).__name__}: {exc}"
        return res
    finally:
        if term is not None:
            term.close()
        shutil.rmtree(home, ignore_errors=True)


# ------------------------------------------------------------------------------- report

ROWS = [
    # (key, label, unit, mode, scale)
    ("first_output", "launch -> first character on screen (a splash counts)", "s", None, 1),
    ("first_paint", "first paint (launch -> the app's main UI on screen)", "s", None, 1),
    ("first_token_on_screen", "launch -> first answer token on screen", "s", "paced", 1),
    ("enter_to_first_token", "Enter -> first answer token on screen", "s", "paced", 1),
    ("stale_max", "worst staleness while streaming (progress)", "ms", "paced", 1000),
    ("stale_after_first", "worst staleness once the first token showed", "ms", "paced", 1000),
    ("stale_any", "worst staleness (any pane change)", "ms", "paced", 1000),
    ("last_sent_to_end", "last token sent -> marker on screen", "ms", "paced", 1000),
    ("key_p50", "keys typed while streaming: send -> in the composer, p50", "ms", "paced", 1000),
    ("key_p95", "keys typed while streaming: send -> in the composer, p95", "ms", "paced", 1000),
    ("key_max", "keys typed while streaming: send -> in the composer, max", "ms", "paced", 1000),
    ("key_lost", "keys typed while streaming: not shown 2 s after the end", "", "paced", 1),
    ("warm_s", "warm-up: the turns before the measured one, typed and answered", "s", None, 1),
    ("warm_turn_p50", "warm-up: one turn, Enter -> reply on screen and idle, p50", "ms", None, 1000),
    ("warm_turn_p95", "warm-up: one turn, p95", "ms", None, 1000),
    ("warm_first10", "warm-up: mean of the first 10 turns", "ms", None, 1000),
    ("warm_last10", "warm-up: mean of the last 10 turns", "ms", None, 1000),
    ("warm_extra_requests", "warm-up: requests beyond one per turn (compaction)", "", None, 1),
    ("rss_before_mb", "RSS before the measured turn", "MiB", None, 1),
    ("cpu_stream", "CPU while streaming (first token sent -> marker), paced", "s", "paced", 1),
    ("cpu_total", "CPU, launch -> marker, paced", "s", "paced", 1),
    ("full_speed", "full speed: first byte -> marker on screen", "s", "full", 1),
    ("cpu_reply", "CPU, Enter -> marker, full speed (after idle)", "s", "full", 1),
    ("cpu_reply_settled", "CPU, Enter -> idle again, full speed", "s", "full", 1),
    ("cpu_reply_settled", "CPU, Enter -> idle again, paced", "s", "paced", 1),
    ("rss_idle_mb", "idle RSS, process tree", "MiB", "full", 1),
    ("rss_end_mb", "RSS after the reply (paced)", "MiB", "paced", 1),
]


def _fmt(v: float, unit: str) -> str:
    if unit in ("ms", ""):
        return f"{v:.0f}"
    if unit == "MiB":
        return f"{v:.0f}"
    return f"{v:.2f}"


def table(results: list[dict], apps: list[str]) -> str:
    cols = []
    for key, label, unit, mode, scale in ROWS:
        cells = {}
        for app in apps:
            vals = [r[key] * scale for r in results
                    if r["app"] == app and r.get("ok" if key not in ("first_paint", "first_output") else key)
                    and (mode is None or r["mode"] == mode) and key in r]
            cells[app] = vals
        if any(cells.values()):
            cols.append((label, unit, cells))
    head = "| metric | " + " | ".join(apps) + " |"
    sep = "|---|" + "---|" * len(apps)
    out = [head, sep]
    for label, unit, cells in cols:
        base = statistics.median(cells["birdie"]) if cells.get("birdie") else None
        row = [f"{label} ({unit})" if unit else label]
        for app in apps:
            vals = cells[app]
            if not vals:
                row.append("–")
                continue
            med = statistics.median(vals)
            cell = f"**{_fmt(med, unit)}** ({_fmt(min(vals), unit)}–{_fmt(max(vals), unit)})"
            if app != "birdie" and base:
                cell += f" {med / base:.2f}×"
            row.append(cell)
        out.append("| " + " | ".join(row) + " |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--apps", default="birdie,vibe,deepagents")
    ap.add_argument("--modes", default="paced,full")
    ap.add_argument("--tokens", type=int, default=10_000)
    ap.add_argument("--tps", type=float, default=200.0)
    ap.add_argument("--poll-ms", type=float, default=15.0)
    ap.add_argument("--type-delay", type=float, default=0.5,
                    help="paced mode: seconds after first paint to type the prompt")
    ap.add_argument("--enter-delay", type=float, default=0.1,
                    help="seconds between the typed prompt showing and pressing Enter")
    ap.add_argument("--start-timeout", type=float, default=60.0)
    ap.add_argument("--reply-timeout", type=float, default=60.0,
                    help="seconds allowed past the reply's nominal duration")
    ap.add_argument("--settle-cap", type=float, default=20.0,
                    help="after the marker shows, wait at most this long for the app to go idle")
    ap.add_argument("--no-settle", action="store_true", help="stop each run when the marker shows")
    ap.add_argument("--keys-every", type=float, default=0.0, metavar="S",
                    help="paced mode, birdie-tui: type a key every S seconds while the reply "
                         "streams and time each one until it shows in the composer (0 = off)")
    ap.add_argument("--keys-char", default="%", help="the key typed (absent from the reply)")
    ap.add_argument("--keys-poll-ms", type=float, default=3.0,
                    help="capture interval while a typed key has not shown yet")
    ap.add_argument("--keys-max", type=int, default=500,
                    help="keys per run at most (the composer shows ~8 rows of them)")
    ap.add_argument("--warm-turns", type=int, default=None, metavar="N",
                    help="birdie-tui only: chat N quick turns in the session before the measured "
                         "reply (0 = the same flow with none, for turn 1)")
    ap.add_argument("--warm-model", default="gpt-4.1-mini",
                    help="with --warm-turns: birdie-tui's model name (a 1M window, so 300 turns "
                         "never reach auto-compaction)")
    ap.add_argument("--warm-timeout", type=float, default=30.0,
                    help="seconds one warm turn may take at most")
    ap.add_argument("--warm-idle-cap", type=float, default=30.0,
                    help="after the warm turns, wait at most this long for the app to go idle")
    ap.add_argument("--width", type=int, default=120)
    ap.add_argument("--height", type=int, default=40)
    ap.add_argument("--json", metavar="PATH", help="write every run's raw result here")
    ap.add_argument("--screens", action="store_true", help="print each app's last end screen")
    ap.add_argument("--trace", action="store_true",
                    help="keep every distinct screen with its time and progress in --json's runs "
                         "(to see what a stale stretch looked like)")
    opts = ap.parse_args()

    apps = [a for a in opts.apps.split(",") if a]
    modes = [m for m in opts.modes.split(",") if m]
    if opts.warm_turns is not None and (apps != ["birdie"] or opts.warm_turns < 0):
        ap.error("--warm-turns N (N >= 0) chats in birdie-tui's session only: use --apps birdie")
    started = time.monotonic()
    infos = peers.install([a for a in apps if a != "birdie"])
    skipped = {}
    for name, info in infos.items():
        if "error" in info:
            skipped[name] = info["error"]
            print(f"skipping {name}: {info['error']}", file=sys.stderr)
    apps = [a for a in apps if a not in skipped]
    print(f"apps: {', '.join(apps)}; modes: {', '.join(modes)}; runs: {opts.runs}; "
          f"{opts.tokens} tokens at {opts.tps:g} tok/s (paced)", flush=True)

    results: list[dict] = []
    with SSEServer(tps=opts.tps, tokens=opts.tokens, prompt_word=peers.PROMPT_WORD,
                   long_once=True, warm=opts.warm_turns is not None) as srv:
        for i in range(opts.runs):
            for mode in modes:
                for app in apps:
                    t = time.monotonic()
                    r = run_once(app, mode, srv, infos, opts)
                    r["run"] = i
                    r["wall"] = time.monotonic() - t
                    results.append(r)
                    brief = ", ".join(f"{k}={r[k]:.3f}" for k in
                                      ("first_paint", "first_token_on_screen", "warm_s",
                                       "warm_turn_p50", "stale_max", "cpu_stream", "full_speed",
                                       "cpu_reply", "rss_idle_mb", "rss_end_mb", "key_p95")
                                      if k in r)
                    status = "ok" if r["ok"] else f"FAILED: {r.get('error')}"
                    print(f"[{i + 1}/{opts.runs}] {mode:5} {app:10} {r['wall']:5.1f}s {status}  {brief}",
                          flush=True)
    total = time.monotonic() - started

    versions = {}
    for r in results:
        versions.setdefault(r["app"], r.get("version"))
    print()
    print(f"Total time {total / 60:.1f} min. Versions: " +
          ", ".join(f"{peers_label(a)} {v}" for a, v in versions.items()))
    for name, why in skipped.items():
        print(f"Skipped {name}: {why}")
    fails = [r for r in results if not r["ok"]]
    for r in fails:
        print(f"failed run: {r['app']} {r['mode']} #{r['run'] + 1}: {r.get('error')}")
    print()
    print(f"Medians (min–max) of {opts.runs} runs; ratio = app median / birdie-tui median.")
    print()
    print(table(results, apps))
    for app in apps:
        lat = [x for r in results if r["app"] == app for x in r.get("key_latencies", [])]
        if lat:
            lost = sum(r.get("key_lost", 0) for r in results if r["app"] == app)
            print(f"\n{peers_label(app)}: {len(lat)} keys typed while streaming, all runs pooled: "
                  f"send -> in the composer p50 {pct(lat, 0.5) * 1000:.1f} ms, "
                  f"p95 {pct(lat, 0.95) * 1000:.1f} ms, max {max(lat) * 1000:.0f} ms; "
                  f"{lost} not shown")
    if opts.screens:
        for app in apps:
            last = [r for r in results if r["app"] == app and r.get("screen")]
            if last:
                print(f"\n--- {app}: end screen of its last run ({last[-1]['mode']}) ---")
                print(last[-1]["screen"].rstrip("\n"))
    if opts.json:
        Path(opts.json).write_text(json.dumps({"opts": vars(opts), "infos": infos, "skipped": skipped,
                                               "total_s": total, "results": results}, indent=1))
        print(f"\nraw results: {opts.json}")


def peers_label(key: str) -> str:
    return {"birdie": "birdie-tui", "vibe": "mistral-vibe", "deepagents": "deepagents-code"}.get(key, key)


if __name__ == "__main__":
    main()
