"""The streaming pipeline's floor: what a paced reply costs with nothing rendered.

`birdie-tui --print --output-format stream-json` (headless, no Textual) is pointed at the loopback
server of `sse_server.py`, run in a thread of this process, with the environment `peers.py`
gives birdie-tui (OPENAI_BASE_URL, a dummy OPENAI_API_KEY, LLM_VENDOR=openai, a temp
BIRDIE_HOME). Each run measures the child's user+sys CPU (`os.wait4`), so the server's own CPU
is not counted. A run with a --short reply (same server, same pace) measures start-up; the floor
is the long run minus the short one, per token, times --tokens.

Per run:
  cpu s         user+sys of the child, launch → exit
  token events  `token` lines written: the chunks that reached the door (one per model chunk)
  first token   the server's first token written → the first `token` line read here (same clock)
  last token    the server's last token written → the last `token` line read here

With --syscalls the child runs under `strace -f -c` and the bench prints the socket reads
(`recvfrom`) and `epoll_ctl` calls per 1,000 tokens of the long run minus the short one
(the CPU figures of such a run are strace's, not the app's).

    PYTHONPATH=$PWD python bench/pipeline_floor.py [--runs 1] [--tps 200] [--tokens 10000]
                                                   [--short 10] [--json] [--syscalls]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peers  # noqa: E402
from sse_server import SSEServer  # noqa: E402

PROMPT = "Please write the bird survey report"
PROMPT_WORD = "survey"


SYSCALLS = ("recvfrom", "epoll_ctl")


def strace_counts(path: Path) -> dict[str, int]:
    """Calls per syscall from `strace -c`'s summary table."""
    counts = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 5 and parts[-1] in SYSCALLS:
            counts[parts[-1]] = int(parts[3])
    return counts


def run_once(tokens: int, tps: float, syscalls: bool = False) -> dict:
    """One `--print` run against a fresh server streaming `tokens` tokens at `tps`."""
    srv = SSEServer(tps=tps, tokens=tokens, prompt_word=PROMPT_WORD, long_once=True).start()
    try:
        with tempfile.TemporaryDirectory(prefix="birdie-floor-") as tmp:
            home = Path(tmp)
            env = peers.base_env(home) | {
                "OPENAI_API_KEY": "dummy", "OPENAI_BASE_URL": srv.base_url,
                "LLM_VENDOR": "openai", "LLM_MODEL": "gpt-4o-mini",
                "BIRDIE_HOME": str(home / "birdie"), "BIRDIE_WATCH": "0",
            } | peers.birdie_code_env()
            exe = str(Path(sys.executable).with_name("birdie-tui"))
            trace = home / "strace.txt"
            prefix = (["strace", "-f", "-c", "-e", "trace=" + ",".join(SYSCALLS), "-o", str(trace)]
                      if syscalls else [])
            t0 = time.monotonic()
            proc = subprocess.Popen([*prefix, exe, "--print", PROMPT, "--output-format", "stream-json"],
                                    env=env, cwd=tmp, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
            assert proc.stdout is not None
            events, first, last, chars = 0, None, None, 0
            for line in proc.stdout:
                event = json.loads(line)
                if event.get("type") == "token":
                    now = time.monotonic()
                    events += 1
                    chars += len(event["text"])
                    first = now if first is None else first
                    last = now
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            wall = time.monotonic() - t0
            rec = next(iter(srv.long_records()), None)
            if proc.returncode or rec is None or rec.first_token is None:
                raise RuntimeError(f"run failed ({proc.returncode}): {stderr[-600:]}")
            return {
                "tokens": rec.tokens_sent, "cpu": usage.ru_utime + usage.ru_stime,
                "user": usage.ru_utime, "sys": usage.ru_stime, "wall": wall,
                "token_events": events, "chars": chars, "expected_chars": len(srv.text),
                "first_token_ms": (first - rec.first_token) * 1000 if first else None,
                "last_token_ms": (last - rec.last_token) * 1000 if last and rec.last_token
                else None,
                "maxrss_mib": usage.ru_maxrss / 1024,
                "syscalls": strace_counts(trace) if syscalls else {},
            }
    finally:
        srv.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--tps", type=float, default=200.0)
    parser.add_argument("--tokens", type=int, default=10_000)
    parser.add_argument("--short", type=int, default=10, help="tokens of the start-up run")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--syscalls", action="store_true",
                        help="count socket reads and epoll_ctl calls under strace (no CPU figures)")
    opts = parser.parse_args()
    rows = []
    for _ in range(opts.runs):  # interleaved, so a change in load touches both
        load = os.getloadavg()[0]
        short = run_once(opts.short, opts.tps, opts.syscalls)
        long = run_once(opts.tokens, opts.tps, opts.syscalls)
        # The short reply has a few hundred tokens of its own (`reply_text`'s minimum): the
        # floor is scaled to --tokens from the difference in tokens, not taken as is.
        per_token = (long["cpu"] - short["cpu"]) / max(long["tokens"] - short["tokens"], 1)
        rows.append({"load": load, "short": short, "long": long,
                     "floor": per_token * opts.tokens})
    if opts.json:
        print(json.dumps(rows, indent=2))
        return
    if opts.syscalls:
        for row in rows:
            long, short = row["long"], row["short"]
            tokens = max(long["tokens"] - short["tokens"], 1)
            per = {name: (long["syscalls"].get(name, 0) - short["syscalls"].get(name, 0))
                   * 1000 / tokens for name in SYSCALLS}
            print(f"load {row['load']:.2f}  {long['token_events']} token events  "
                  + "  ".join(f"{name} {n:.0f}" for name, n in per.items()) + " per 1,000 tokens")
        return
    for row in rows:
        long, short = row["long"], row["short"]
        print(f"load {row['load']:.2f}  long: cpu {long['cpu']:.2f} s (user {long['user']:.2f}, "
              f"sys {long['sys']:.2f}), wall {long['wall']:.1f} s, {long['token_events']} token "
              f"events, chars {long['chars']}/{long['expected_chars']}, first token "
              f"{long['first_token_ms']:.1f} ms, last token {long['last_token_ms']:.1f} ms, "
              f"max RSS {long['maxrss_mib']:.0f} MiB  |  short: cpu {short['cpu']:.2f} s, "
              f"{short['tokens']} tokens, {short['token_events']} token events  |  floor {row['floor']:.2f} s")
    if len(rows) > 1:
        print(f"median floor {statistics.median(r['floor'] for r in rows):.2f} s")


if __name__ == "__main__":
    main()
