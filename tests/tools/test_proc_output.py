"""Huge tool output in bounded memory: a real `bash:` tool printing 50 MB, measured in a fresh
process; the truncation note still counts every character that was not shown."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from birdie_tui.skills import SkillTool
from birdie_tui.tools.entrypoints import MAX_TOOL_OUTPUT, run_entrypoint
from birdie_tui.tools.output import TextCapture

from ..conftest import clean_env

FIFTY_MB = 50_000_000

MEASURE = r"""
import asyncio, json, resource, sys, tracemalloc
from pathlib import Path
from birdie_tui.skills import SkillTool
from birdie_tui.tools.entrypoints import run_entrypoint

def tool(command):
    return SkillTool(name="t", description="d", entrypoint="bash:" + command)

async def main():
    size = int(sys.argv[1])
    await run_entrypoint(tool("echo warm"), {}, skill_dir=Path("."))  # imports, the reaper
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    out = await run_entrypoint(tool(f"head -c {size} /dev/zero | tr '\\0' x; echo err >&2"), {},
                               skill_dir=Path("."))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    print(json.dumps({"peak": peak, "rss_kb": grown, "error": out.error,
                      "length": len(out.content), "head": out.content[:10],
                      "tail": out.content[-60:]}))

asyncio.run(main())
"""


def test_fifty_mb_of_output_is_read_in_bounded_memory(isolated_home):
    """A `bash:` tool printing 50 MB: the process running it allocates well under 2 MB at the
    peak (the old reader kept 4 MB per stream, then decoded it), its RSS grows by far less than
    the output, and the result is the first 32,000 characters with an exact note."""
    proc = subprocess.run([sys.executable, "-c", MEASURE, str(FIFTY_MB)], capture_output=True,
                          text=True, env=clean_env(isolated_home), timeout=300)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.splitlines()[-1])
    print(f"50 MB output: traced peak {got['peak'] / 1e6:.2f} MB, RSS growth {got['rss_kb'] / 1e3:.1f} MB")
    assert got["peak"] < 2_000_000
    assert got["rss_kb"] < 40_000  # KB: a generous bound, far below the 50 MB printed
    assert not got["error"] and got["head"] == "x" * 10
    # every character not shown is counted: the rest of the x's, then "\n[stderr]\nerr"
    dropped = FIFTY_MB + len("\n[stderr]\nerr") - MAX_TOOL_OUTPUT
    assert got["tail"].endswith(f"\n… [truncated: {dropped} characters dropped]")


async def test_a_big_output_note_counts_what_was_not_shown(tmp_path):
    """3 MB from a command: 32,000 characters shown and the rest counted exactly."""
    tool = SkillTool(name="t", description="d",
                     entrypoint="bash:head -c 3000000 /dev/zero | tr '\\0' y")
    out = await run_entrypoint(tool, {}, skill_dir=tmp_path)
    assert out.content.startswith("y" * MAX_TOOL_OUTPUT)
    assert out.content[MAX_TOOL_OUTPUT:] == f"\n… [truncated: {3_000_000 - MAX_TOOL_OUTPUT} characters dropped]"


async def test_timed_out_output_is_bounded_too(tmp_path):
    """A command that floods its output and then hangs: the timeout's partial output is cut
    the same way, with the note."""
    tool = SkillTool(name="t", description="d",
                     entrypoint="bash:head -c 2000000 /dev/zero | tr '\\0' z; sleep 30")
    out = await run_entrypoint(tool, {}, skill_dir=tmp_path, timeout=1.5)
    assert out.error and out.content.startswith("Command timed out after 1.5s")
    assert "characters dropped]" in out.content and len(out.content) < MAX_TOOL_OUTPUT + 100


@pytest.mark.parametrize("data", ["héllo wörld € 😀 " * 5000, "plain ascii " * 4000],
                         ids=["multibyte", "ascii"])
def test_capture_counts_as_a_full_decode_would(data):
    """Fed in awkward chunks (split inside multi-byte characters), the capture holds the same
    text a full decode gives and counts the characters beyond what it holds."""
    raw = data.encode() + b"\xff\xfe tail"  # invalid bytes become U+FFFD, as in a full decode
    full = raw.decode("utf-8", errors="replace")
    capture = TextCapture(keep=1000)
    for i in range(0, len(raw), 7):
        capture.feed(raw[i:i + 7])
    capture.finish()
    assert capture.text == full[:1000]
    assert capture.dropped == len(full) - 1000


def test_a_dangling_partial_character_is_replaced():
    """A stream that stops inside a character ends with U+FFFD, not an error."""
    capture = TextCapture()
    capture.feed("ok €".encode()[:-1])
    capture.finish()
    assert capture.text == "ok \ufffd"


class _Big(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        body = "é" * 1_500_000  # 3 MB of UTF-8
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


async def test_a_big_http_body_is_cut_and_counted(tmp_path):
    """An HTTP body of 1.5 M two-byte characters: the first 32,000 shown, the rest counted."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Big)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        tool = SkillTool(name="t", description="d",
                         entrypoint=f"http:get http://127.0.0.1:{server.server_address[1]}/")
        out = await run_entrypoint(tool, {}, skill_dir=Path(tmp_path))
    finally:
        server.shutdown()
        server.server_close()
    assert not out.error and out.content.startswith("é" * MAX_TOOL_OUTPUT)
    assert out.content.endswith(f"[truncated: {1_500_000 - MAX_TOOL_OUTPUT} characters dropped]")
