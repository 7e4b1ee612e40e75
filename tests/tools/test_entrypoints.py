"""python:, http: and unsupported entrypoints, for real (loopback HTTP server, real modules)."""

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from birdie_tui.skills import SkillTool, load_skills
from birdie_tui.tools.entrypoints import MAX_TOOL_OUTPUT, run_entrypoint

TOOLS_PY = '''
import asyncio
WHO = "{who}"
def hello(name, punct="!"):
    return f"hello {{name}}{{punct}} from {{WHO}}"
def data():
    return {{"a": [1, 2], "who": WHO}}
def boom():
    raise KeyError("nope")
async def later(n: int):
    await asyncio.sleep(0)
    return n * 2
'''


def tool(entrypoint: str, schema=None) -> SkillTool:
    return SkillTool(name="t", description="d", entrypoint=entrypoint,
                     schema=schema or {"type": "object", "properties": {}})


def make_py_skill(root: Path, folder: str, who: str) -> Path:
    d = root / folder
    d.mkdir(parents=True)
    (d / "tools.py").write_text(TOOLS_PY.format(who=who))
    return d


async def test_python_from_skill_folder(tmp_path):
    """Python entrypoints import from the skill folder or sys.path; failures are error results."""
    d = make_py_skill(tmp_path, "one", "one")
    schema = {"type": "object", "properties": {"name": {}, "punct": {"default": "?"}}}
    out = await run_entrypoint(tool("python:tools.hello", schema), {"name": "bob"}, skill_dir=d)
    assert (out.content, out.error) == ("hello bob? from one", False)
    out = await run_entrypoint(tool("python:tools:data"), {}, skill_dir=d)
    assert json.loads(out.content) == {"a": [1, 2], "who": "one"}
    out = await run_entrypoint(tool("python:tools.later"), {"n": 21}, skill_dir=d)
    assert out.content == "42"
    out = await run_entrypoint(tool("python:tools.boom"), {}, skill_dir=d)
    assert out.error and out.content == "KeyError: 'nope'"
    out = await run_entrypoint(tool("python:tools.missing"), {}, skill_dir=d)
    assert out.error and "AttributeError" in out.content
    out = await run_entrypoint(tool("python:json.dumps"), {"obj": [1]}, skill_dir=d)  # normal import
    assert out.content == "[1]"
    out = await run_entrypoint(tool("python:no_such_module_xyz.f"), {}, skill_dir=d)
    assert out.error and "ModuleNotFoundError" in out.content


async def test_two_skills_tools_py_do_not_clash(tmp_path):
    """Two skills each with a tools.py run their own module."""
    a, b = make_py_skill(tmp_path, "a", "A"), make_py_skill(tmp_path, "b", "B")
    t = tool("python:tools.hello")
    out_a = await run_entrypoint(t, {"name": "x"}, skill_dir=a)
    out_b = await run_entrypoint(t, {"name": "x"}, skill_dir=b)
    assert out_a.content.endswith("from A") and out_b.content.endswith("from B")


async def test_bundled_planning_tools(isolated_home, tmp_path):
    """The bundled planning skill adds, completes and lists todos kept in todo.json."""
    (planning,) = [s for s in load_skills([Path(__file__).resolve().parents[2] / "skills"]).skills if s.name == "planning"]
    by = {t.name: t for t in planning.tools}

    async def call(name, **args):
        return await run_entrypoint(by[name], args, skill_dir=planning.folder)

    assert (await call("todo_list")).content == "The todo list is empty."
    assert (await call("todo_add", text="write tests")).content == "Added todo #1: write tests"
    await call("todo_add", text="ship")
    assert not (await call("todo_done", id=1)).error
    assert (await call("todo_list")).content == "[x] #1 write tests\n[ ] #2 ship"
    assert (await call("todo_list", include_done=False)).content == "[ ] #2 ship"
    assert (await call("todo_done", id=9)).error
    assert json.loads((isolated_home / "todo.json").read_text())[1]["text"] == "ship"


class _Handler(BaseHTTPRequestHandler):
    hung = threading.Event()  # a /hang request arrived
    dropped = threading.Event()  # ...and its client closed the connection

    def log_message(self, *a):
        pass

    def _reply(self, code: int, payload: dict | str):
        body = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path.startswith("/hang"):  # never answers; notices when the client gives up
            type(self).hung.set()
            self.connection.settimeout(30)
            try:
                if self.rfile.read(1) == b"":
                    type(self).dropped.set()
            except OSError:
                pass
        elif self.path.startswith("/big"):
            self._reply(200, "a" * (MAX_TOOL_OUTPUT + 500))
        elif self.path.startswith("/fail-big"):
            self._reply(503, "e" * 50_000)
        elif self.path.startswith("/moved"):
            self.send_response(302)
            self.send_header("Location", "/w/after-redirect")
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self._reply(500 if self.path.startswith("/fail") else 200, {"method": "GET", "path": self.path})

    def do_POST(self):
        data = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self._reply(200, {"method": "POST", "path": self.path, "json": data,
                          "type": self.headers["Content-Type"]})


@pytest.fixture
def http_base():
    _Handler.hung.clear()
    _Handler.dropped.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


async def test_http_get_post_and_errors(http_base, tmp_path):
    """HTTP entrypoints encode path and query, POST JSON, and report errors and bad URLs."""
    schema = {"type": "object", "properties": {"city": {}, "q": {}, "n": {"default": 3}}}
    out = await run_entrypoint(tool(f"http:get {http_base}/w/{{city}}?format=3", schema),
                               {"city": "New York/x", "q": "a b"}, skill_dir=tmp_path)
    assert not out.error
    assert json.loads(out.content)["path"] == "/w/New%20York%2Fx?format=3&q=a+b&n=3"
    out = await run_entrypoint(tool(f"http:post {http_base}/p", schema), {"q": "z", "city": None}, skill_dir=tmp_path)
    assert json.loads(out.content)["json"] == {"q": "z", "n": 3}
    assert json.loads(out.content)["type"] == "application/json"
    out = await run_entrypoint(tool(f"http:get {http_base}/fail"), {}, skill_dir=tmp_path)
    assert out.error and out.content.startswith("HTTP 500") and "/fail" in out.content
    out = await run_entrypoint(tool("http:get http://127.0.0.1:9/closed"), {}, skill_dir=tmp_path, timeout=5)
    assert out.error and "failed" in out.content
    out = await run_entrypoint(tool("http:get file:///etc/passwd"), {}, skill_dir=tmp_path)
    assert out.error and "non-http" in out.content


async def test_http_redirect_is_followed(http_base, tmp_path):
    """An HTTP entrypoint follows a redirect."""
    out = await run_entrypoint(tool(f"http:get {http_base}/moved"), {}, skill_dir=tmp_path)
    assert not out.error and json.loads(out.content)["path"] == "/w/after-redirect"


async def test_http_output_truncated_and_error_body_shortened(http_base, tmp_path):
    """Long HTTP bodies are truncated, and an error body is cut to a short excerpt."""
    out = await run_entrypoint(tool(f"http:get {http_base}/big"), {}, skill_dir=tmp_path)
    assert not out.error and out.content.startswith("a" * MAX_TOOL_OUTPUT)
    assert out.content.endswith("\n… [truncated: 500 characters dropped]")
    out = await run_entrypoint(tool(f"http:get {http_base}/fail-big"), {}, skill_dir=tmp_path)
    status, _, excerpt = out.content.partition("\n")
    assert out.error and status == "HTTP 503 Service Unavailable"
    assert excerpt.startswith("eee") and excerpt.endswith("…") and len(excerpt) < 2_000


async def test_http_timeout_is_an_error_result(http_base, tmp_path):
    """An HTTP call past its timeout is an error result and its connection is closed."""
    out = await run_entrypoint(tool(f"http:get {http_base}/hang"), {}, skill_dir=tmp_path, timeout=0.5)
    assert (out.content, out.error) == (f"HTTP GET {http_base}/hang timed out after 0.5s", True)
    assert _Handler.dropped.wait(10)  # and the connection was closed, not left to the server


async def test_http_cancel_drops_the_request(http_base, tmp_path):
    """Esc cancels the turn's task: the request must stop then, not run on in a thread."""
    task = asyncio.ensure_future(
        run_entrypoint(tool(f"http:get {http_base}/hang"), {}, skill_dir=tmp_path, timeout=60))
    assert await asyncio.to_thread(_Handler.hung.wait, 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(_Handler.dropped.wait, 10)


@pytest.mark.parametrize("entrypoint, fragment", [
    ("grpc:pkg.Svc/Method", "entrypoint scheme 'grpc' is not supported by birdie-tui"),
    ("container:alpine", "entrypoint scheme 'container' is not supported by birdie-tui"),
    ("ftp:thing", "unknown entrypoint scheme 'ftp'"),
    ("nothing", "invalid entrypoint"),
    ("http:fetch http://x", "invalid http entrypoint"),
])
async def test_unsupported_schemes(entrypoint, fragment, tmp_path):
    """Unsupported or malformed entrypoints give an error result naming the problem."""
    out = await run_entrypoint(tool(entrypoint), {}, skill_dir=tmp_path)
    assert out.error and fragment in out.content
