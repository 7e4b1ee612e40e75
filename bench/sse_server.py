"""A loopback OpenAI-compatible Chat Completions server with one long, deterministic reply.

- ``POST /v1/chat/completions``: with ``"stream": true`` it answers Server-Sent Events
  (``data: {chat.completion.chunk}`` with ``choices[0].delta.content``), then a chunk with
  ``usage`` (always sent, whether or not ``stream_options.include_usage`` asked), then
  ``data: [DONE]``. Without ``stream`` it answers one ``chat.completion`` JSON. Tools in the
  request are ignored: the answer is always plain text (``finish_reason: "stop"``).
- ``GET /v1/models`` (and ``/v1/models/<id>``): a small model list with whatever id is asked.
- Other paths under ``/v1`` that some clients probe answer 404 JSON.

The reply (``reply_tokens(n)``) is ~n tokens of Markdown: prose paragraphs, a bullet list, a
fenced code block, more prose; it starts with the word ``ZZSTART`` and ends with ``ZZENDMARKER``.
A token is one word plus the whitespace after it, so ``"".join(tokens)`` is the whole text.

Pacing: ``tps`` tokens per second on a fixed schedule (token *i* is due at ``start + i/tps``;
when the writer falls behind it catches up instead of drifting), or ``tps=0`` for full speed:
the whole reply in one write (one SSE event per token, all in one buffer).

Every request is recorded (``server.records``): arrival time, first and last token written,
token count, and the request's model/stream/tools flags; ``long_records()`` are the ones that
streamed the long reply. Other requests get a short reply when ``prompt_word`` is set and the
last user message lacks it (a peer's side request, such as a session title, must not get the
10k-token reply): ``Benchmark session``, or, with ``warm=True`` (``--warm``), a **warm-turn
reply**.

Warm-turn replies (``warm_reply_text(n)``, for the bench's quick turns before the measured one,
``side_by_side.py --warm-turns``): request *n* (1, 2, ... among the short requests since
start/reset) gets 150-300 tokens of Markdown, deterministic in *n*: a ``##`` heading every 4th
one, one or two paragraphs, a 3-5 item list, a small fenced code block every 3rd one, and a last
sentence with the marker word ``warm_marker(n)`` (``ZZWARM00001`` ...), which the bench waits for
on screen. They are sent at full speed. Their words come from a vocabulary of their own
(plants, weather), disjoint from the long reply's, so a warm reply left on screen never gives
the long reply's staleness tracker a false position; nor do they contain ``survey`` (the
prompt word).

    python bench/sse_server.py --port 8765 --tps 200 --tokens 10000 [--warm]
"""

from __future__ import annotations

import argparse
import json
import random
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

START_WORD = "ZZSTART"
END_WORD = "ZZENDMARKER"

_VOCAB = (
    "tern heron plover curlew dunlin sandpiper godwit avocet stilt lapwing gull skua petrel "
    "shearwater gannet cormorant puffin guillemot razorbill kittiwake egret bittern crane rail "
    "coot grebe diver swan goose teal wigeon pintail shoveler eider scoter merganser osprey kite "
    "harrier buzzard falcon merlin hobby kestrel owl nightjar swift kingfisher hoopoe woodpecker "
    "lark martin swallow pipit wagtail dipper wren robin redstart chat wheatear thrush warbler "
    "crest flycatcher tit nuthatch treecreeper oriole shrike jay magpie chough jackdaw rook raven "
    "starling sparrow finch linnet twite redpoll crossbill bullfinch bunting river marsh shore "
    "estuary reed meadow hedge forest cliff island dune heath moor valley ridge harbour tide mud "
    "shingle spring summer autumn winter morning evening quietly slowly brightly often rarely "
    "early late high low near far across along above below beyond within under over feeds nests "
    "calls sings flies wades dives soars hunts roosts migrates returns gathers scatters drifts "
    "the a of and to in on with from by as at into over its their this that each every some "
    "many few small large grey brown white black golden pale dark bright long short narrow broad"
).split()

_CODE = '''```python
def count_birds(survey, species):
    """Sum the sightings of one species across every site."""
    total = 0
    for site in survey:
        for record in site.records:
            if record.species == species:
                total += record.count
    return total


class Survey:
    def __init__(self, name, sites):
        self.name = name
        self.sites = list(sites)

    def species(self):
        seen = set()
        for site in self.sites:
            seen.update(r.species for r in site.records)
        return sorted(seen)

    def busiest(self):
        return max(self.sites, key=lambda s: sum(r.count for r in s.records))
```'''


# Warm-turn replies: no word of _VOCAB (see the module docstring), none of "survey".
_WARM_VOCAB = (
    "fern moss sedge rush bracken heather gorse bramble nettle thistle clover sorrel yarrow "
    "campion violet primrose cowslip orchid foxglove bluebell mallow poppy daisy buttercup "
    "willow alder birch hazel rowan holly ivy oak ash beech elm pine larch yew juniper "
    "rain drizzle fog mist frost snow sleet hail wind gust breeze cloud sunshine thunder "
    "gauge barometer reading window path gate field garden bank ditch pond stream wall lane "
    "grows flowers fades spreads climbs shelters covers blooms wilts thrives needs prefers "
    "damp dry cold mild warm wet sandy chalky acid shaded open sheltered exposed steady "
    "was were is are will may might should could also then still again soon later today "
    "we you they our your one two three four five several most fewer more less plenty"
).split()

_WARM_HEADINGS = ("Notes from the garden", "What grew this week", "Weather summary",
                  "Plants to watch", "Next steps", "Readings so far")

_WARM_CODE = (
    ("python", ["def mean_rain(readings):", "    total = sum(r.mm for r in readings)",
                "    return total / max(len(readings), 1)"]),
    ("python", ["for bed in garden.beds:", "    if bed.soil == \"chalky\":",
                "        bed.plant(\"cowslip\", rows=3)", "    bed.water(litres=2)"]),
    ("toml", ["[gauge]", "interval_minutes = 15", "units = \"mm\"", "alert_above = 40"]),
    ("bash", ["python gauge.py --since yesterday", "sort -k2 -n readings.tsv | tail -5"]),
)


def warm_marker(n: int) -> str:
    """The word warm-turn reply ``n`` ends with (fixed width: no marker contains another)."""
    return f"ZZWARM{n:05d}"


def warm_reply_text(n: int) -> str:
    """Warm-turn reply ``n``: 150-300 tokens of Markdown, deterministic in ``n`` (see the
    module docstring)."""
    rng = random.Random(7919 * n + 1)
    target = rng.randint(150, 300)
    head: list[str] = []
    tail: list[str] = []
    if n % 4 == 1:
        head.append(f"## {rng.choice(_WARM_HEADINGS)}")
    items = rng.randint(3, 5)
    tail.append("\n".join(f"- {_sentence(rng, rng.randint(5, 9), _WARM_VOCAB)}"
                          for _ in range(items)))
    if n % 3 == 0:
        lang, lines = _WARM_CODE[(n // 3) % len(_WARM_CODE)]
        tail.append(f"```{lang}\n" + "\n".join(lines) + "\n```")
    ending = f"That is all for this note. {warm_marker(n)}"
    fixed = sum(len(p.split()) for p in head + tail) + len(ending.split())
    prose = max(target - fixed, 30)
    split = [prose] if prose < 90 or rng.random() < 0.4 else [prose // 2, prose - prose // 2]
    body = [_paragraph(rng, k, _WARM_VOCAB) for k in split]
    return "\n\n".join(head + body[:1] + tail[:1] + body[1:] + tail[1:] + [ending])


def _sentence(rng: random.Random, n: int, vocab: list[str] = _VOCAB) -> str:
    words = [rng.choice(vocab) for _ in range(n)]
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def _paragraph(rng: random.Random, words: int, vocab: list[str] = _VOCAB) -> str:
    out, left = [], words
    while left > 0:
        k = min(left, rng.randint(8, 18))
        out.append(_sentence(rng, k, vocab))
        left -= k
    return " ".join(out)


def reply_text(tokens: int = 10_000, seed: int = 12) -> str:
    """The reply as Markdown, close to ``tokens`` tokens (words), deterministic for a seed."""
    rng = random.Random(seed)
    code_tokens = len(_CODE.split())
    budget = max(tokens - code_tokens - 4, 200)
    list_items = max(5, min(40, budget // 250))
    list_budget = list_items * 12
    prose = budget - list_budget
    first, second = prose * 2 // 3, prose - prose * 2 // 3
    parts: list[str] = []

    def prose_block(words: int) -> None:
        while words > 0:
            k = min(words, 100)
            parts.append(_paragraph(rng, k))
            words -= k

    prose_block(first)
    parts[0] = f"{START_WORD} " + parts[0][0].lower() + parts[0][1:]
    parts.append("\n".join(f"- {_sentence(rng, 10)}" for _ in range(list_items)))
    parts.append(_CODE)
    prose_block(second)
    short = tokens - len(tokenize("\n\n".join(parts))) - 6
    if short > 0:
        prose_block(short)
    parts.append(f"That is the whole survey. {END_WORD}")
    return "\n\n".join(parts)


def tokenize(text: str) -> list[str]:
    """Words with the whitespace that follows each (leading whitespace joins the first)."""
    import re

    toks = re.findall(r"\s*\S+\s*", text) if text[:1].isspace() else re.findall(r"\S+\s*", text)
    assert "".join(toks) == text
    return toks


def reply_tokens(tokens: int = 10_000, seed: int = 12) -> list[str]:
    return tokenize(reply_text(tokens, seed))


@dataclass
class Record:
    arrived: float
    model: str = ""
    stream: bool = False
    tools: int = 0
    messages: int = 0
    first_token: float | None = None
    last_token: float | None = None
    tokens_sent: int = 0
    done: float | None = None
    short: bool = False
    number: int = 0  # among the short requests since start/reset, from 1
    marker: str = ""  # a warm-turn reply's last word
    error: str = ""


class SSEServer:
    """``with SSEServer(tps=200, tokens=10_000) as srv: ... srv.base_url ...``"""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, tps: float = 200.0,
                 tokens: int = 10_000, prompt_word: str | None = None,
                 long_once: bool = False, warm: bool = False) -> None:
        self.tps = tps
        self.tokens = reply_tokens(tokens)
        self.text = "".join(self.tokens)
        self.records: list[Record] = []
        # When set, only requests whose last user message has this word get the long reply.
        self.prompt_word = prompt_word
        # When true, only the first such request after start()/reset() does (a peer's title
        # request quotes the whole exchange, prompt included).
        self.long_once = long_once
        # When true, short requests get warm-turn replies instead of "Benchmark session".
        self.warm = warm
        self._lock = threading.Lock()
        self.httpd = ThreadingHTTPServer((host, port), self._handler())
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://{host}:{self.port}/v1"
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> "SSEServer":
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True,
                                        kwargs={"poll_interval": 0.05})
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "SSEServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def reset(self) -> None:
        with self._lock:
            self.records.clear()

    def long_records(self) -> list[Record]:
        with self._lock:
            return [r for r in self.records if not r.short]

    def short_records(self) -> list[Record]:
        with self._lock:
            return [r for r in self.records if r.short]

    # ------------------------------------------------------------------ handler

    def _wants_long(self, body: dict) -> bool:
        if self.long_once and any(not r.short for r in self.records):
            return False
        if not self.prompt_word:
            return True
        for msg in reversed(body.get("messages") or []):
            if msg.get("role") == "user":
                content = msg.get("content")
                if isinstance(content, list):
                    content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
                return self.prompt_word in str(content)
        return False

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def _json(self, code: int, obj) -> None:
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                path = self.path.split("?")[0].rstrip("/")
                if path.endswith("/models"):
                    self._json(200, {"object": "list", "data": [
                        {"id": m, "object": "model", "created": 0, "owned_by": "bench"}
                        for m in ("gpt-4o-mini", "bench-model")]})
                elif "/models/" in path:
                    mid = path.rsplit("/", 1)[1]
                    self._json(200, {"id": mid, "object": "model", "created": 0, "owned_by": "bench"})
                else:
                    self._json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})

            def do_POST(self) -> None:
                arrived = time.monotonic()
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b"{}"
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                path = self.path.split("?")[0].rstrip("/")
                if not path.endswith("/chat/completions"):
                    self._json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})
                    return
                rec = Record(arrived=arrived, model=str(body.get("model", "")),
                             stream=bool(body.get("stream")), tools=len(body.get("tools") or []),
                             messages=len(body.get("messages") or []))
                with server._lock:
                    long = server._wants_long(body)
                    rec.short = not long
                    if rec.short:
                        rec.number = sum(r.short for r in server.records) + 1
                    server.records.append(rec)
                if long:
                    tokens = server.tokens
                elif server.warm:
                    rec.marker = warm_marker(rec.number)
                    tokens = tokenize(warm_reply_text(rec.number))
                else:
                    tokens = ["Benchmark ", "session"]
                model = rec.model or "bench-model"
                if rec.stream:
                    self._stream(rec, tokens, model, paced=long)
                else:
                    text = "".join(tokens)
                    rec.first_token = rec.last_token = time.monotonic()
                    rec.tokens_sent = len(tokens)
                    self._json(200, {
                        "id": "chatcmpl-bench", "object": "chat.completion", "created": int(time.time()),
                        "model": model,
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": text}}],
                        "usage": {"prompt_tokens": 50, "completion_tokens": len(tokens),
                                  "total_tokens": 50 + len(tokens)}})
                    rec.done = time.monotonic()

            def _stream(self, rec: Record, tokens: list[str], model: str, paced: bool) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                created = int(time.time())

                def chunk(delta: dict, finish=None, usage=None, choices=True) -> bytes:
                    obj = {"id": "chatcmpl-bench", "object": "chat.completion.chunk",
                           "created": created, "model": model,
                           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
                           if choices else []}
                    if usage is not None:
                        obj["usage"] = usage
                    return b"data: " + json.dumps(obj).encode() + b"\n\n"

                w = self.wfile
                try:
                    w.write(chunk({"role": "assistant", "content": ""}))
                    w.flush()
                    tps = server.tps if paced else 0
                    if not tps:
                        buf = b"".join(chunk({"content": t}) for t in tokens)
                        rec.first_token = time.monotonic()
                        w.write(buf)
                        w.flush()
                        rec.last_token = time.monotonic()
                        rec.tokens_sent = len(tokens)
                    else:
                        start = time.monotonic()
                        i = 0
                        while i < len(tokens):
                            now = time.monotonic()
                            due = int((now - start) * tps) + 1  # tokens due by now
                            j = min(max(due, i + 1), len(tokens))
                            w.write(b"".join(chunk({"content": t}) for t in tokens[i:j]))
                            w.flush()
                            if rec.first_token is None:
                                rec.first_token = time.monotonic()
                            i = j
                            rec.tokens_sent = i
                            rec.last_token = time.monotonic()
                            if i < len(tokens):
                                nxt = start + i / tps
                                delay = nxt - time.monotonic()
                                if delay > 0:
                                    time.sleep(delay)
                    w.write(chunk({}, finish="stop"))
                    w.write(chunk({}, usage={"prompt_tokens": 50, "completion_tokens": len(tokens),
                                             "total_tokens": 50 + len(tokens)}, choices=False))
                    w.write(b"data: [DONE]\n\n")
                    w.flush()
                    rec.done = time.monotonic()
                except (BrokenPipeError, ConnectionResetError) as exc:
                    rec.error = f"{type(exc).__name__} after {rec.tokens_sent} tokens"
                    rec.done = time.monotonic()

        return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description="loopback OpenAI-compatible streaming server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--tps", type=float, default=200.0, help="tokens per second; 0 = all at once")
    parser.add_argument("--tokens", type=int, default=10_000)
    parser.add_argument("--prompt-word", help="only a last user message with this word gets the "
                        "long reply; the others get a short one")
    parser.add_argument("--warm", action="store_true",
                        help="short replies are warm-turn replies (150-300 tokens of Markdown)")
    args = parser.parse_args()
    srv = SSEServer(args.host, args.port, tps=args.tps, tokens=args.tokens,
                    prompt_word=args.prompt_word, warm=args.warm)
    print(f"serving {len(srv.tokens)} tokens ({len(srv.text)} chars) at {srv.base_url}, "
          f"{'full speed' if not args.tps else f'{args.tps:g} tok/s'}", flush=True)
    srv.start()
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        srv.stop()


if __name__ == "__main__":
    main()
