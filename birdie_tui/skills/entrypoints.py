"""Running a skill tool's entrypoint (`bash:`, `http:`, `python:`; `grpc:`/`container:` refused).

`run_entrypoint` never raises for a tool failure: it returns `ToolOutcome(error=True)` with a
readable message. Arguments are checked against the tool's JSON schema first (`arguments.py`).
Bash arguments never become shell text: each placeholder is a reference to an environment
variable that holds the value (`bash_args.py`), and bash starts with no startup files, BASH_ENV
or imported functions; a timed-out or cancelled command has its whole process group killed.
`http:` requests run on httpx's AsyncClient, so cancelling the turn cancels them. Output is
capped at `MAX_TOOL_OUTPUT` characters.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import importlib.util
import inspect
import json
import os
import re
import signal
import sys
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from birdie_tui.text import one_line

from .arguments import ArgumentError, prepare_arguments
from .bash_args import ENV_PREFIX, BashArgumentError, BashTemplateError, bind, compile_template, preview
from .models import HTTP_METHODS, SkillTool

MAX_TOOL_OUTPUT = 32_000
# -p (privileged mode): no BASH_ENV/ENV file, no functions imported from the environment,
# SHELLOPTS/BASHOPTS/CDPATH/GLOBIGNORE from the environment ignored
BASH_COMMAND = ("bash", "--noprofile", "--norc", "-p", "-c")
_READ_LIMIT = 4 * 1024 * 1024  # bytes kept per stream; the rest is counted and dropped
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass
class ToolOutcome:
    content: str
    error: bool = False


def truncate_output(text: str) -> str:
    if len(text) <= MAX_TOOL_OUTPUT:
        return text
    return text[:MAX_TOOL_OUTPUT] + f"\n… [truncated: {len(text) - MAX_TOOL_OUTPUT} characters dropped]"


def to_text(value: Any) -> str:
    """How an argument value is written into a command or URL."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


async def run_entrypoint(tool: SkillTool, args: dict[str, Any], *, skill_dir: Path,
                         timeout: float = 120.0) -> ToolOutcome:
    """Run `tool.entrypoint` with `args`; errors come back as `ToolOutcome(error=True)`.

    Arguments that do not match the tool's schema never reach the shell, the URL or the
    function: the model gets the validator's one-line reason and can call again."""
    try:
        args = prepare_arguments(tool.name, tool.schema, args)
    except ArgumentError as exc:
        return ToolOutcome(str(exc), True)
    scheme, _, target = tool.entrypoint.partition(":")
    scheme = scheme.strip().lower()
    try:
        if scheme == "bash":
            out = await _run_bash_tool(tool.name, target, args, tool.schema, timeout)
        elif scheme == "http":
            out = await _run_http(target.strip(), args, tool.schema, timeout)
        elif scheme == "python":
            out = await _run_python(target.strip(), args, Path(skill_dir), timeout)
        elif scheme in ("grpc", "container"):
            out = ToolOutcome(f"entrypoint scheme '{scheme}' is not supported by birdie-tui", True)
        elif not _:
            out = ToolOutcome(f"invalid entrypoint {tool.entrypoint!r} (expected 'scheme:target')", True)
        else:
            out = ToolOutcome(f"unknown entrypoint scheme '{scheme}' (expected bash, http or python)", True)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a bug or an odd input: still report, never raise
        out = ToolOutcome(f"{type(exc).__name__}: {exc}", True)
    return ToolOutcome(truncate_output(out.content), out.error)


# --------------------------------------------------------------------------- bash


def _bash_plan(template: str, args: dict[str, Any], schema: dict[str, Any] | None):
    props = (schema or {}).get("properties") or {}
    plan = compile_template(template, frozenset(set(props) | set(args)))
    return plan, {k: to_text(v) for k, v in args.items()}, props


def bash_script(template: str, args: dict[str, Any], schema: dict[str, Any] | None = None
                ) -> tuple[str, dict[str, str]]:
    """The script bash runs for `template` and the variables that carry the values (`bash_args`).

    Raises `BashTemplateError` for a template that puts a placeholder where its value could run
    or be read as a name, `BashArgumentError` for a value it cannot take."""
    plan, values, props = _bash_plan(template, args, schema)
    return bind(plan, values, props)


def render_command(template: str, args: dict[str, Any], schema: dict[str, Any] | None = None) -> str:
    """The command with its values written in, shell-quoted, for people to read (an approval
    prompt, a log line). Never what runs: `bash_script` keeps values out of the script."""
    return preview(*_bash_plan(template, args, schema))


async def _run_bash_tool(name: str, template: str, args: dict[str, Any], schema: dict[str, Any],
                         timeout: float) -> ToolOutcome:
    try:
        script, values = bash_script(template, args, schema)
    except (BashTemplateError, BashArgumentError) as exc:
        return ToolOutcome(f"cannot run {name}: {exc}", True)
    return await _run_bash(script, values, timeout)


def bash_env(values: dict[str, str]) -> dict[str, str]:
    """This process's environment without BASH_ENV/ENV (startup files bash would run) or stray
    BIRDIE_ARG_* variables, plus the values."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("BASH_ENV", "ENV") and not k.startswith(ENV_PREFIX)}
    env.update(values)
    return env


async def _read(stream: asyncio.StreamReader, buf: bytearray, dropped: list[int]) -> None:
    while chunk := await stream.read(65536):
        room = _READ_LIMIT - len(buf)
        buf.extend(chunk[:max(room, 0)])
        dropped[0] += max(len(chunk) - max(room, 0), 0)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return


def _kill_group_hard(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


async def _terminate(proc: asyncio.subprocess.Process, readers: list[asyncio.Task]) -> None:
    _kill_group(proc.pid)
    for _ in range(20):  # up to ~0.5 s of grace for SIGTERM
        try:
            os.killpg(proc.pid, 0)
        except (ProcessLookupError, PermissionError):
            break
        await asyncio.sleep(0.025)
    _kill_group_hard(proc.pid)
    try:
        await asyncio.wait_for(proc.wait(), 5)
    except (asyncio.TimeoutError, ProcessLookupError):
        pass
    for r in readers:
        r.cancel()


def _decode(buf: bytearray, dropped: int) -> str:
    text = buf.decode("utf-8", errors="replace")
    return text + (f"\n… [{dropped} more bytes not read]" if dropped else "")


async def _run_bash(script: str, values: dict[str, str], timeout: float) -> ToolOutcome:
    proc = await asyncio.create_subprocess_exec(
        *BASH_COMMAND, script, env=bash_env(values),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, start_new_session=True)
    out, err, d_out, d_err = bytearray(), bytearray(), [0], [0]
    readers = [asyncio.ensure_future(_read(proc.stdout, out, d_out)),
               asyncio.ensure_future(_read(proc.stderr, err, d_err))]
    try:
        await asyncio.wait_for(asyncio.gather(*readers, proc.wait()), timeout)
    except asyncio.TimeoutError:
        await _terminate(proc, readers)
        partial = _decode(out, d_out[0]).strip()
        msg = f"Command timed out after {timeout:g}s and was killed."
        return ToolOutcome(msg + (f"\n[partial stdout]\n{partial}" if partial else ""), True)
    except asyncio.CancelledError:
        await asyncio.shield(_terminate(proc, readers))
        raise
    stdout, stderr = _decode(out, d_out[0]), _decode(err, d_err[0])
    rc = proc.returncode
    if rc != 0:
        why = f"killed by signal {-rc}" if rc is not None and rc < 0 else f"exited with code {rc}"
        parts = [f"Command {why}."]
        if stderr.strip():
            parts.append(f"[stderr]\n{stderr.rstrip()}")
        if stdout.strip():
            parts.append(f"[stdout]\n{stdout.rstrip()}")
        return ToolOutcome("\n".join(parts), True)
    if stderr.strip():
        stdout = f"{stdout.rstrip()}\n[stderr]\n{stderr.rstrip()}" if stdout.strip() else f"[stderr]\n{stderr.rstrip()}"
    return ToolOutcome(stdout, False)


# --------------------------------------------------------------------------- http

_BODY_METHODS = ("post", "put", "patch")
_ERROR_EXCERPT = 1_000  # characters of an error response's body shown with its status


async def _run_http(target: str, args: dict[str, Any], schema: dict[str, Any], timeout: float) -> ToolOutcome:
    method, _, url = target.partition(" ")
    method, url = method.strip().lower(), url.strip()
    if method not in HTTP_METHODS or not url:
        return ToolOutcome(f"invalid http entrypoint 'http:{target}' (expected 'http:get URL' or 'http:post URL')", True)
    known = set(schema.get("properties") or {}) | set(args)
    used: set[str] = set()

    def fill(m: re.Match) -> str:
        if m.group(1) not in known:
            return m.group(0)
        used.add(m.group(1))
        return urllib.parse.quote(to_text(args.get(m.group(1))), safe="")

    url = _PLACEHOLDER.sub(fill, url)
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        return ToolOutcome(f"refusing non-http(s) URL {url!r}", True)
    rest = {k: v for k, v in args.items() if k not in used and v is not None}
    data = None
    headers = {"User-Agent": "birdie-tui", "Accept": "*/*"}
    if method in _BODY_METHODS:
        data = json.dumps(rest, default=str).encode()
        headers["Content-Type"] = "application/json"
    elif rest:
        query = urllib.parse.urlencode({k: to_text(v) for k, v in rest.items()})
        url += ("&" if urllib.parse.urlsplit(url).query else "?") + query
    return await _http_call(method.upper(), url, data, headers, timeout)


async def _http_call(method: str, url: str, data: bytes | None, headers: dict[str, str],
                     timeout: float) -> ToolOutcome:
    """One request on httpx's AsyncClient: a cancelled turn (Esc) cancels it mid-flight, and
    `timeout` bounds the whole exchange, not just each read."""
    import httpx  # ~0.1 s: paid on the first http: call, not at startup

    try:
        async with asyncio.timeout(timeout):
            async with httpx.AsyncClient(follow_redirects=True, timeout=timeout) as client:
                async with client.stream(method, url, content=data, headers=headers) as resp:
                    body = await _body_text(resp)
    except (TimeoutError, httpx.TimeoutException):
        return ToolOutcome(f"HTTP {method} {url} timed out after {timeout:g}s", True)
    except httpx.HTTPError as exc:
        return ToolOutcome(f"HTTP request to {url} failed: {one_line(exc)}", True)
    if resp.is_error:
        excerpt = body.strip()
        if len(excerpt) > _ERROR_EXCERPT:
            excerpt = excerpt[:_ERROR_EXCERPT] + "…"
        status = f"HTTP {resp.status_code} {resp.reason_phrase}".rstrip()
        return ToolOutcome(status + (f"\n{excerpt}" if excerpt else ""), True)
    return ToolOutcome(body, False)


async def _body_text(resp: Any) -> str:
    """The body as text, at most `_READ_LIMIT` bytes of it (the rest is never downloaded)."""
    raw = bytearray()
    async for chunk in resp.aiter_bytes():
        raw.extend(chunk[:_READ_LIMIT - len(raw)])
        if len(raw) >= _READ_LIMIT:
            break
    try:
        return bytes(raw).decode(resp.encoding or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return bytes(raw).decode("utf-8", errors="replace")


# --------------------------------------------------------------------------- python

# (file, module) -> (stamp, module): an edited tools.py is re-imported on its next call.
_MODULE_CACHE: dict[tuple[str, str], tuple[tuple[int, int], Any]] = {}


def _load_module(module: str, skill_dir: Path) -> Any:
    """`module` from the skill's own folder if the file is there, else a normal import."""
    rel = Path(*module.split("."))
    for candidate in (skill_dir / rel.with_suffix(".py"), skill_dir / rel / "__init__.py"):
        if candidate.is_file():
            key = (str(candidate.resolve()), module)
            stat = candidate.stat()
            mtime = (stat.st_mtime_ns, stat.st_size)  # two saves within one tick differ in size
            cached = _MODULE_CACHE.get(key)
            if cached and cached[0] == mtime:
                return cached[1]
            digest = hashlib.sha1(str(skill_dir.resolve()).encode()).hexdigest()[:12]
            unique = f"_birdie_skill_{digest}_{module.replace('.', '_')}"
            spec = importlib.util.spec_from_file_location(unique, candidate)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {candidate}")
            mod = importlib.util.module_from_spec(spec)
            sys.modules[unique] = mod
            try:
                spec.loader.exec_module(mod)
            except BaseException:
                sys.modules.pop(unique, None)
                raise
            _MODULE_CACHE[key] = (mtime, mod)
            return mod
    return importlib.import_module(module)


def _resolve(target: str, skill_dir: Path):
    if ":" in target:
        module, func = target.rsplit(":", 1)
    else:
        module, _, func = target.rpartition(".")
    if not module or not func:
        raise ValueError(f"invalid python entrypoint 'python:{target}' (expected module.function)")
    obj = _load_module(module, skill_dir)
    for part in func.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise TypeError(f"'{target}' is not callable")
    return obj


async def _run_python(target: str, args: dict[str, Any], skill_dir: Path, timeout: float) -> ToolOutcome:
    try:
        return await asyncio.wait_for(_call_python(target, args, skill_dir), timeout)
    except asyncio.TimeoutError:
        return ToolOutcome(f"python:{target} timed out after {timeout:g}s", True)


async def _call_python(target: str, args: dict[str, Any], skill_dir: Path) -> ToolOutcome:
    try:
        func = await asyncio.to_thread(_resolve, target, skill_dir)
        if inspect.iscoroutinefunction(func):
            result = await func(**args)
        else:
            result = await asyncio.to_thread(func, **args)
            if inspect.isawaitable(result):
                result = await result
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        return ToolOutcome(f"{type(exc).__name__}: {exc}", True)
    if isinstance(result, str):
        return ToolOutcome(result, False)
    return ToolOutcome(json.dumps(result, default=str, ensure_ascii=False), False)
