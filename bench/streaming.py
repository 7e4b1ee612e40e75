"""Streaming: the real app, headless, streaming a long reply — throughput and responsiveness.

Each run is a fresh interpreter running `create_app([])` under `App.run_test(size=(120, 40))`
(BIRDIE_HOME in a temp dir). The reply comes from one of two sources (--source):

  sse      (default) the loopback OpenAI-compatible server of `sse_server.py`, run by this
           (parent) process, as `peers.py` points birdie-tui at it: OPENAI_BASE_URL, a dummy
           OPENAI_API_KEY, LLM_VENDOR=openai. The bench sends a one-line prompt; the server
           streams the variant's reply, one SSE event per word, at --tps tokens/s (unset: the
           whole reply in one write). Only the first chat request of a run gets it (a title
           request gets two words).
  offline  the offline model (no API key; BIRDIE_OFFLINE_TPS = --tps, unset = full speed),
           sent the variant's text as the message. It now quotes only the start of a long
           message (`providers/offline_replies.py`), so this no longer makes a long reply.

Variants (the reply with --source sse, the message with --source offline):

  prose  --words words (10,000) of Markdown: prose paragraphs, a bullet list, a fenced code
         block (sse: `sse_server.reply_text`, ≥ 10,000 tokens); offline: paragraphs of 100 words
  list   a Markdown list of --items items, 200 (STACK-NOTES: a growing list is O(n) per flush)

Measured per run:
  tokens       words in the EngineEvent("token") messages posted (via `message_hook`,
               deduplicated by identity) and handled by the app (TurnView.on_token); the app
               batches tokens (one message per 1/60 s), so words stand for the offline tokens
  stream s     first token posted → "done" posted, and → "done" handled by the app;
               tok/s = tokens handled / (first token → "done" handled)
  --cap        a run not rendered --cap s after its first token is cut short (reported
               "incomplete", with the tokens handled so far and tok/s over the cap)
  rendered s   first token → the reply widget has rendered everything (finish() returned)
  flushes      AssistantMessage.flush_count; md widgets = Markdown widgets in the reply
  append max   slowest single Markdown.append (wall time, lock wait included)
  loop lag     a set_interval(0.01) callback on the app: gap between ticks minus 10 ms,
               p50/p95/max over first token → rendered
  key latency  from the first token until the reply has rendered, a thread sends an "x" key
               every 100 ms exactly as a terminal driver's input thread does (the first step of
               `pilot.press`: `driver.send_message(Key)`); the latency is the time until the
               composer's TextArea.Changed shows it (seen by `message_hook`). `pilot.press` itself
               is not used for this: it awaits the loop going idle (up to 1 s per key) and runs on
               the loop it measures, so a blocked loop would delay the *sending* too.

    python bench/streaming.py [--runs 3] [--variant prose|list|both] [--words 10000]
                              [--items 200] [--tps N] [--cap SECONDS] [--json]
                              [--source sse|offline]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sse_server  # noqa: E402  (bench/, next to this file)
from quantiles import pct  # noqa: E402

PRESS_EVERY = 0.1
KEY_TIMEOUT = 10.0
# The prompt the app sends with --source sse: one line; the reply is the server's. It has
# PROMPT_WORD, which the server looks for so a side request (a title) gets a short reply.
SSE_PROMPT = "Please write the bird survey report"
PROMPT_WORD = "survey"

WORDS = ("the quick brown fox jumps over a lazy dog while seven tired engineers review "
         "streaming markdown output in a terminal user interface").split()


def prose_message(words: int) -> str:
    paragraphs, per = [], 100
    for p in range(max(1, words // per)):
        paragraphs.append(" ".join(WORDS[(p + i) % len(WORDS)] for i in range(per)))
    return "\n\n".join(paragraphs)


def list_message(items: int) -> str:
    return "\n".join(f"- item {i}: {WORDS[i % len(WORDS)]} {WORDS[(i * 7) % len(WORDS)]}"
                     for i in range(1, items + 1))


# ----------------------------------------------------------------------------- one run (child)
async def run_once(text: str, cap: float) -> dict:
    from textual import events
    from textual.await_complete import AwaitComplete
    from textual.widgets import Markdown, TextArea

    from birdie_tui.tui import create_app
    from birdie_tui.tui.messages import EngineEvent
    from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage

    now = time.perf_counter
    appends: list[float] = []
    original_append = Markdown.append

    def timed_append(self: Markdown, markdown: str) -> AwaitComplete:
        pending = original_append(self, markdown)

        async def run() -> None:
            start = now()
            await pending
            appends.append(now() - start)

        return AwaitComplete(run())

    Markdown.append = timed_append  # type: ignore[method-assign]

    def rendered_done(reply: AssistantMessage) -> bool:
        """finish() has run to the end: every token is in the Markdown."""
        return reply.rendered

    # When the app *handles* tokens and the end of the turn (the hook sees them when posted).
    handled: dict[str, float | None] = {"first": None, "last": None, "finished": None}
    from birdie_tui.tui.turn_view import TurnView
    on_token, on_finished = TurnView.on_token, TurnView.on_done

    handled_tokens = [0]

    def timed_token(self, message):  # type: ignore[no-untyped-def]
        handled_tokens[0] += max(1, len(message.text.split()))  # tokens arrive batched
        handled["last"] = now()
        if handled["first"] is None:
            handled["first"] = handled["last"]
        return on_token(self, message)

    def timed_finished(self, message):  # type: ignore[no-untyped-def]
        handled["finished"] = now()
        return on_finished(self, message)

    TurnView.on_token = timed_token  # type: ignore[method-assign]
    TurnView.on_done = timed_finished  # type: ignore[method-assign]

    app = create_app([], cursor_blink=False)
    kept: list[object] = []  # keep messages alive so id() is never reused
    seen: set[int] = set()
    state: dict[str, float | None] = {"first": None, "finished": None}
    tokens = [0]
    composer_ref: list[object] = [None]
    key_base = [0]
    key_sent: list[float] = []
    key_landed: list[float] = []
    typist_stop = threading.Event()

    def type_keys() -> None:
        while not typist_stop.wait(PRESS_EVERY):
            key = events.Key("x", "x")
            key.set_sender(app)
            key_sent.append(now())
            app._driver.send_message(key)  # what pilot.press and the real driver do

    typist = threading.Thread(target=type_keys, daemon=True)

    def hook(message: object) -> None:
        if id(message) in seen:
            return  # the same message seen again while bubbling
        kind = message.type if isinstance(message, EngineEvent) else None
        if kind == "token":
            seen.add(id(message))
            kept.append(message)
            tokens[0] += max(1, len(message.event.text.split()))
            if state["first"] is None:
                state["first"] = now()
                key_base[0] = composer_ref[0].text.count("x")  # cleared on send
                typist.start()  # from the first token on, as the stream begins
        elif isinstance(message, TextArea.Changed) and message.text_area is composer_ref[0]:
            seen.add(id(message))
            kept.append(message)
            count = message.text_area.text.count("x") - key_base[0]
            while len(key_landed) < min(count, len(key_sent)):
                key_landed.append(now())
        elif kind == "done":
            seen.add(id(message))
            kept.append(message)
            state["finished"] = now()

    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        deadline = now() + 120
        while not (app.birdie is not None and app.ready.is_set()):
            if now() > deadline:
                raise SystemExit("engine did not become ready")
            await asyncio.sleep(0.05)
        await pilot.pause()

        ticks: list[float] = []
        app.set_interval(0.01, lambda: ticks.append(now()))

        composer = app.query_one("#composer")
        composer_ref[0] = composer
        composer.load_text(text)
        composer.focus()
        sent = now()
        await pilot.press("enter")
        while state["first"] is None:
            if now() - sent > 120:
                raise SystemExit("no token arrived")
            await asyncio.sleep(0.001)
        reply = app.main.turn.reply
        while reply is None:  # the token is posted; the app has not handled it yet
            await asyncio.sleep(0.001)
            replies = app.query(AssistantMessage)
            reply = app.main.turn.reply or (replies.last() if replies else None)

        first_seen = state["first"]
        assert first_seen is not None
        # Type while the turn runs (or until --cap seconds: then the turn is cut short): the
        # typist thread sends keys like a terminal driver's input thread, on its own clock, so a
        # busy event loop delays the key, never the sending; `hook` notes when each one lands.
        while not rendered_done(reply) and now() - first_seen < cap:
            await asyncio.sleep(0.01)
        typist_stop.set()
        typist.join()
        landed_by = now() + KEY_TIMEOUT
        while len(key_landed) < len(key_sent) and now() < landed_by:
            await asyncio.sleep(0.01)
        latencies = [landed - sent_at for sent_at, landed in zip(key_sent, key_landed)]
        lost = len(key_sent) - len(latencies)
        complete = rendered_done(reply)
        rendered = now()
        await pilot.pause()

        first = state["first"]
        finished = state["finished"] if complete else None
        end_handled = handled["finished"] if complete else rendered
        window = [t for t in ticks if first <= t <= rendered]
        lags = [max(0.0, (b - a) - 0.01) for a, b in zip(window, window[1:])]
        posted_s = (finished - first) if finished is not None else float("nan")
        stream_s = end_handled - first
        result = {
            "complete": complete,
            "tokens": tokens[0],
            "tokens_handled": handled_tokens[0],
            "reply_chars": len(reply.text),
            "to_first_token_s": first - sent,
            "posted_s": posted_s,
            "stream_s": stream_s,
            "tok_per_s": handled_tokens[0] / stream_s if stream_s > 0 else float("inf"),
            "rendered_s": rendered - first,
            "flushes": reply.flush_count,
            "md_widgets": len(reply.markdown_widgets),
            "append_max_ms": max(appends, default=0.0) * 1000,
            "append_total_s": sum(appends),
            "lag_p50_ms": pct(lags, 0.5) * 1000,
            "lag_p95_ms": pct(lags, 0.95) * 1000,
            "lag_max_ms": max(lags, default=float("nan")) * 1000,
            "lag_ticks": len(window),
            "key_n": len(latencies),
            "key_lost": lost,
            "key_p50_ms": pct(latencies, 0.5) * 1000,
            "key_p95_ms": pct(latencies, 0.95) * 1000,
            "key_max_ms": max(latencies, default=float("nan")) * 1000,
        }
        if not complete:
            await app.main.turns.cancel()
        return result


def child(variant: str, words: int, items: int, cap: float, source: str) -> None:
    if source == "sse":
        text = SSE_PROMPT
    else:
        text = prose_message(words) if variant == "prose" else list_message(items)
    result = asyncio.run(run_once(text, cap))
    result["variant"] = variant
    result["message_words"] = len(text.split())
    print("RESULT " + json.dumps(result))


def reply_tokens(variant: str, opts: argparse.Namespace) -> list[str]:
    """What the loopback server streams for ``variant``: one token per word (and its space)."""
    if variant == "prose":
        return sse_server.reply_tokens(opts.words)
    return sse_server.tokenize(list_message(opts.items))


# ----------------------------------------------------------------------------- parent
def sample(variant: str, opts: argparse.Namespace,
           srv: sse_server.SSEServer | None = None) -> dict:
    env = {**os.environ, "BIRDIE_HOME": tempfile.mkdtemp(prefix="birdie-stream-")}
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MISTRAL_API_KEY", "GEMINI_API_KEY",
                "LLM_VENDOR", "LLM_MODEL", "LLM_PROVIDER_CONFIG", "BIRDIE_OFFLINE_TPS",
                "OPENAI_BASE_URL"):
        env.pop(key, None)
    if srv is not None:
        # As peers.birdie_spec points the app at the server (the same variables).
        srv.reset()
        srv.tokens = reply_tokens(variant, opts)
        srv.text = "".join(srv.tokens)
        env |= {"OPENAI_API_KEY": "dummy", "OPENAI_BASE_URL": srv.base_url,
                "LLM_VENDOR": "openai", "LLM_MODEL": "gpt-4o-mini", "BIRDIE_WATCH": "0"}
    elif opts.tps:
        env["BIRDIE_OFFLINE_TPS"] = str(opts.tps)
    cmd = [sys.executable, __file__, "--child", variant, "--words", str(opts.words),
           "--items", str(opts.items), "--cap", str(opts.cap), "--source", opts.source]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1200)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
    if out.returncode != 0 or not lines:
        raise SystemExit(f"child failed (rc {out.returncode}):\n{out.stdout[-3000:]}\n"
                         f"{out.stderr[-3000:]}")
    result = json.loads(lines[-1][len("RESULT "):])
    if srv is not None:
        recs = srv.long_records()
        result["served_tokens"] = recs[0].tokens_sent if recs else 0
    return result


COLUMNS = [
    ("complete", "runs complete", "{}"),
    ("served_tokens", "tokens served (sse)", "{:.0f}"),
    ("tokens", "tokens posted", "{:.0f}"),
    ("tokens_handled", "tokens handled", "{:.0f}"),
    ("to_first_token_s", "send→1st tok s", "{:.2f}"),
    ("posted_s", "1st tok→end posted s", "{:.2f}"),
    ("stream_s", "1st tok→end handled s", "{:.2f}"),
    ("tok_per_s", "tok/s", "{:.0f}"),
    ("rendered_s", "rendered s", "{:.2f}"),
    ("flushes", "flushes", "{:.0f}"),
    ("md_widgets", "md widgets", "{:.0f}"),
    ("append_max_ms", "append max ms", "{:.0f}"),
    ("append_total_s", "append total s", "{:.2f}"),
    ("lag_p50_ms", "loop lag p50 ms", "{:.1f}"),
    ("lag_p95_ms", "loop lag p95 ms", "{:.1f}"),
    ("lag_max_ms", "loop lag max ms", "{:.0f}"),
    ("key_n", "keys typed", "{:.0f}"),
    ("key_lost", f"keys >{KEY_TIMEOUT:.0f}s", "{:.0f}"),
    ("key_p50_ms", "key p50 ms", "{:.1f}"),
    ("key_p95_ms", "key p95 ms", "{:.1f}"),
    ("key_max_ms", "key max ms", "{:.0f}"),
]


def table(results: dict[str, list[dict]]) -> str:
    names = list(results)
    header = f"{'metric (median of runs)':<24}" + "".join(f"{n:>16}" for n in names)
    rows = [header, "-" * len(header)]
    for key, label, fmt in COLUMNS:
        cells = []
        for name in names:
            values = [r[key] for r in results[name] if key in r]
            if not values:
                cells.append("–")
                continue
            if key == "complete":
                cells.append(f"{sum(values)}/{len(values)}")
                continue
            cells.append(fmt.format(statistics.median(values)))
        rows.append(f"{label:<24}" + "".join(f"{c:>16}" for c in cells))
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--variant", choices=["prose", "list", "both"], default="both")
    parser.add_argument("--words", type=int, default=10_000)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--tps", type=float, default=None,
                        help="tokens/s: the server's pace (sse) or BIRDIE_OFFLINE_TPS (offline); "
                             "default: unset, full speed")
    parser.add_argument("--source", choices=["sse", "offline"], default="sse",
                        help="where the reply comes from (see the module's doc)")
    parser.add_argument("--cap", type=float, default=180.0,
                        help="stop a run this many seconds after its first token (reported as "
                             "incomplete: tokens handled so far)")
    parser.add_argument("--json", action="store_true", help="also print every run as JSON")
    parser.add_argument("--child", choices=["prose", "list"], help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        child(opts.child, opts.words, opts.items, opts.cap, opts.source)
        return
    variants = ["prose", "list"] if opts.variant == "both" else [opts.variant]
    labels = {"prose": f"prose {opts.words // 1000}k words", "list": f"list {opts.items} items"}
    results: dict[str, list[dict]] = {labels[v]: [] for v in variants}
    srv = None
    if opts.source == "sse":
        srv = sse_server.SSEServer(tps=opts.tps or 0, tokens=opts.words, prompt_word=PROMPT_WORD,
                                   long_once=True).start()
    try:
        run_all(opts, variants, labels, results, srv)
    finally:
        if srv is not None:
            srv.stop()
    if srv is not None:
        speed = f"loopback SSE server at {opts.tps:g} tok/s" if opts.tps else \
            "loopback SSE server, the whole reply in one write"
    else:
        speed = (f"offline model at BIRDIE_OFFLINE_TPS={opts.tps:g}" if opts.tps
                 else "offline model at full speed")
    print(f"\nruns: {opts.runs}, {speed}, headless 120x40")
    print(table(results))


def run_all(opts: argparse.Namespace, variants: list[str], labels: dict[str, str],
            results: dict[str, list[dict]], srv: sse_server.SSEServer | None) -> None:
    for run in range(opts.runs):  # one at a time; variants interleaved
        for v in variants:
            r = sample(v, opts, srv)
            results[labels[v]].append(r)
            print(f"run {run + 1} {labels[v]}: {r['tokens_handled']}/{r['tokens']} tokens handled "
                  f"in {r['stream_s']:.2f} s{'' if r['complete'] else ' (cut at --cap)'}, "
                  f"rendered {r['rendered_s']:.2f} s, key p95 {r['key_p95_ms']:.0f} ms, "
                  f"lag max {r['lag_max_ms']:.0f} ms", flush=True)
            if opts.json:
                print(json.dumps(r))


if __name__ == "__main__":
    main()
