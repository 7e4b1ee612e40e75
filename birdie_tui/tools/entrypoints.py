"""Running a skill tool's entrypoint (`bash:`, `http:`, `python:`; `grpc:`/`container:` refused).

`run_entrypoint` never raises for a tool failure: it returns `ToolOutcome(error=True)` with a
readable message. Arguments are checked against the tool's JSON schema first (`skills/arguments.py`).
Bash arguments never become shell text: each placeholder is a reference to an environment
variable that holds the value (`bash_args.py`), and bash starts with no startup files, BASH_ENV
or imported functions; a timed-out or cancelled command has its whole process group killed,
and the group is registered with the app's reaper (`reaper.py`), which kills it if the app dies.
`http:` requests run on httpx's AsyncClient, so cancelling the turn cancels them. Output is
read in bounded memory and capped at `MAX_TOOL_OUTPUT` characters (`output.py`).

`run_tool_call` is what a tool call runs: the model's `timeout_s` applied and `retries:`
honoured (`call_limits.py`) around `run_entrypoint`. Given the turn's workspace (a front end
that reads, writes and runs itself, `birdie_tui/workspace.py`), a `bash:` call may go there
instead (`workspace_calls.py`); the argv it is given is the one spawned here.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import urllib.parse
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from birdie_tui.secrets import tool_environment as tool_environment_without_secrets
from birdie_tui.skills.arguments import ArgumentError, prepare_arguments
from birdie_tui.skills.models import HTTP_METHODS, SkillTool
from birdie_tui.text import one_line
from birdie_tui.workspace import Workspace

from .bash_args import ENV_PREFIX, BashArgumentError, BashPlan, BashTemplateError, bind, compile_template, preview
from .call_limits import TIMEOUT_PARAM, call_timeout, max_timeout, retries_of, split_call_timeout
from .output import (
    INVALID,
    MAX_TOOL_OUTPUT,
    TIMEOUT,
    TextCapture,
    ToolOutcome,
    failed_why,
    timed_out_text,
    truncate_output,
)
from .python_entry import run_python
from .reaper import OWNER_VARIABLE, REAPER, tool_environment
from .workspace_calls import file_call, run_call

__all__ = ["BASH_COMMAND", "MAX_TOOL_OUTPUT", "ToolOutcome", "bash_env", "bash_script",
           "render_command", "run_entrypoint", "run_tool_call", "to_text", "truncate_output"]

# -p (privileged mode): no BASH_ENV/ENV file, no functions imported from the environment,
# SHELLOPTS/BASHOPTS/CDPATH/GLOBIGNORE from the environment ignored
BASH_COMMAND = ("bash", "--noprofile", "--norc", "-p", "-c")
_HTTP_LIMIT = 4 * 1024 * 1024  # bytes of an HTTP body read; the rest is never downloaded
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


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


async def run_tool_call(tool: SkillTool, args: dict[str, Any], *, skill_dir: Path,
                        timeout: float = 120.0, max_call_timeout: float | None = None,
                        env_allow: Iterable[str] = (),
                        workspace: Workspace | None = None) -> ToolOutcome:
    """One tool call as the model made it: `run_entrypoint`, tried again up to the tool's
    `retries` times after a failure that could pass (never after a timeout or a cancel)."""
    attempts = retries_of(tool) + 1
    for attempt in range(1, attempts + 1):
        outcome = await run_entrypoint(tool, args, skill_dir=skill_dir, timeout=timeout,
                                       max_call_timeout=max_call_timeout, env_allow=env_allow,
                                       workspace=workspace)
        if not outcome.error or outcome.kind in (TIMEOUT, INVALID):
            break
    if outcome.error and attempt > 1:
        outcome.content += f"\n(tried {attempt} times)"
    return outcome


async def run_entrypoint(tool: SkillTool, args: dict[str, Any], *, skill_dir: Path,
                         timeout: float = 120.0, max_call_timeout: float | None = None,
                         env_allow: Iterable[str] = (),
                         workspace: Workspace | None = None) -> ToolOutcome:
    """Run `tool.entrypoint` with `args`; errors come back as `ToolOutcome(error=True)`.
    A `bash:` call may run through `workspace` (`workspace_calls.py`).

    A `timeout_s` in `args` (bash/http tools) is the model's timeout for this call, clamped
    to [1, the tool's maximum] (`call_limits`); else `timeout` applies. Arguments that do not
    match the tool's schema never reach the shell, the URL or the function: the model gets
    the validator's one-line reason and can call again."""
    call_value, args = split_call_timeout(tool, args or {})
    try:
        timeout = call_timeout(call_value, timeout, max_timeout(tool, max_call_timeout))
        args = prepare_arguments(tool.name, tool.schema, args)
    except (ArgumentError, ValueError) as exc:
        return ToolOutcome(str(exc), True, INVALID)
    scheme, _, target = tool.entrypoint.partition(":")
    scheme = scheme.strip().lower()
    try:
        if scheme == "bash":
            out = await _run_bash_tool(tool.name, target, args, tool.schema, timeout,
                                       tuple(env_allow), workspace)
        elif scheme == "http":
            out = await _run_http(target.strip(), args, tool.schema, timeout)
        elif scheme == "python":
            out = await run_python(target.strip(), args, Path(skill_dir), timeout)
        elif scheme in ("grpc", "container"):
            out = ToolOutcome(f"entrypoint scheme '{scheme}' is not supported by birdie-tui", True, INVALID)
        elif not _:
            out = ToolOutcome(f"invalid entrypoint {tool.entrypoint!r} (expected 'scheme:target')", True, INVALID)
        else:
            out = ToolOutcome(f"unknown entrypoint scheme '{scheme}' (expected bash, http or python)", True, INVALID)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a bug or an odd input: still report, never raise
        out = ToolOutcome(f"{type(exc).__name__}: {exc}", True)
    return ToolOutcome(truncate_output(out.content, out.dropped), out.error, out.kind)


# --------------------------------------------------------------------------- bash


def _bash_plan(template: str, args: dict[str, Any], schema: dict[str, Any] | None
               ) -> tuple[BashPlan, dict[str, str], dict[str, Any]]:
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
    prompt, a log line). Never what runs: `bash_script` keeps values out of the script. The
    model's `timeout_s` is not part of the command (unless the schema declares it)."""
    if TIMEOUT_PARAM in args and TIMEOUT_PARAM not in ((schema or {}).get("properties") or {}):
        args = {k: v for k, v in args.items() if k != TIMEOUT_PARAM}
    return preview(*_bash_plan(template, args, schema))


async def _run_bash_tool(name: str, template: str, args: dict[str, Any], schema: dict[str, Any],
                         timeout: float, env_allow: tuple[str, ...] = (),
                         workspace: Workspace | None = None) -> ToolOutcome:
    if workspace is not None and (done := await file_call(workspace, template, args)) is not None:
        return done
    try:
        script, values = bash_script(template, args, schema)
    except (BashTemplateError, BashArgumentError) as exc:
        return ToolOutcome(f"cannot run {name}: {exc}", True, INVALID)
    if workspace is not None and workspace.can_run:
        return await run_call(workspace, name, [*BASH_COMMAND, script], values, timeout, env_allow)
    return await _run_bash(script, values, timeout, env_allow)


def bash_env(values: dict[str, str], allow: Iterable[str] = ()) -> dict[str, str]:
    """This process's environment without BASH_ENV/ENV (startup files bash would run), stray
    BIRDIE_ARG_* variables or secrets (provider keys, the database URL, *_TOKEN...: see
    `secrets.tool_environment`; `allow` names the ones the skill's `env:` passes on), plus the
    values and this app's tool mark (the reaper finds the tool's processes by it)."""
    env = {k: v for k, v in tool_environment_without_secrets(allow=allow).items()
           if k not in ("BASH_ENV", "ENV", OWNER_VARIABLE) and not k.startswith(ENV_PREFIX)}
    env.update(values)
    env.update(tool_environment())
    return env


async def _read(stream: asyncio.StreamReader, capture: TextCapture) -> None:
    while chunk := await stream.read(65536):
        capture.feed(chunk)
    capture.finish()


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


async def _terminate(proc: asyncio.subprocess.Process, readers: list[asyncio.Task[None]]) -> None:
    _kill_group(proc.pid)
    for _ in range(20):  # up to ~0.5 s of grace for SIGTERM
        try:
            os.killpg(proc.pid, 0)
        except (ProcessLookupError, PermissionError):
            break
        await asyncio.sleep(0.025)
    _kill_group_hard(proc.pid)
    REAPER.release(proc.pid)
    try:
        await asyncio.wait_for(proc.wait(), 5)
    except (asyncio.TimeoutError, ProcessLookupError):
        pass
    for r in readers:
        r.cancel()


async def _run_bash(script: str, values: dict[str, str], timeout: float,
                    env_allow: tuple[str, ...] = ()) -> ToolOutcome:
    REAPER.ready()
    proc = await asyncio.create_subprocess_exec(
        *BASH_COMMAND, script, env=bash_env(values, env_allow),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, start_new_session=True)
    REAPER.watch(proc.pid)  # its own session: the group id is its pid
    out, err = TextCapture(), TextCapture()
    assert proc.stdout is not None and proc.stderr is not None  # both asked for as PIPE
    readers = [asyncio.ensure_future(_read(proc.stdout, out)),
               asyncio.ensure_future(_read(proc.stderr, err))]
    waiting = asyncio.gather(*readers, proc.wait())
    # killed readers end it with CancelledError after the fact: read, so it is never logged
    waiting.add_done_callback(lambda f: f.cancelled() or f.exception())
    try:
        await asyncio.wait_for(waiting, timeout)
    except asyncio.TimeoutError:
        await _terminate(proc, readers)
        partial = out.text.strip()
        return ToolOutcome(timed_out_text(timeout, partial, "stdout"), True,
                           TIMEOUT, out.dropped if partial else 0)
    except asyncio.CancelledError:
        await asyncio.shield(_terminate(proc, readers))
        raise
    REAPER.settle(proc.pid)
    return _bash_result(proc.returncode, out, err)


def _bash_result(rc: int | None, out: TextCapture, err: TextCapture) -> ToolOutcome:
    stdout, stderr = out.text, err.text
    dropped = out.dropped + err.dropped
    if rc != 0:
        parts = [f"Command {failed_why(rc, -rc if rc is not None and rc < 0 else None)}."]
        if stderr.strip():
            parts.append(f"[stderr]\n{stderr.rstrip()}")
        if stdout.strip():
            parts.append(f"[stdout]\n{stdout.rstrip()}")
        return ToolOutcome("\n".join(parts), True, dropped=dropped)
    if stderr.strip():
        stdout = f"{stdout.rstrip()}\n[stderr]\n{stderr.rstrip()}" if stdout.strip() else f"[stderr]\n{stderr.rstrip()}"
    return ToolOutcome(stdout, False, dropped=dropped)


# --------------------------------------------------------------------------- http

_BODY_METHODS = ("post", "put", "patch")
_ERROR_EXCERPT = 1_000  # characters of an error response's body shown with its status


async def _run_http(target: str, args: dict[str, Any], schema: dict[str, Any], timeout: float) -> ToolOutcome:
    method, _, url = target.partition(" ")
    method, url = method.strip().lower(), url.strip()
    if method not in HTTP_METHODS or not url:
        return ToolOutcome(f"invalid http entrypoint 'http:{target}' (expected 'http:get URL' or 'http:post URL')",
                           True, INVALID)
    known = set(schema.get("properties") or {}) | set(args)
    used: set[str] = set()

    def fill(m: re.Match[str]) -> str:
        if m.group(1) not in known:
            return m.group(0)
        used.add(m.group(1))
        return urllib.parse.quote(to_text(args.get(m.group(1))), safe="")

    url = _PLACEHOLDER.sub(fill, url)
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        return ToolOutcome(f"refusing non-http(s) URL {url!r}", True, INVALID)
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
        return ToolOutcome(f"HTTP {method} {url} timed out after {timeout:g}s", True, TIMEOUT)
    except httpx.HTTPError as exc:
        return ToolOutcome(f"HTTP request to {url} failed: {one_line(exc)}", True)
    if resp.is_error:
        excerpt = body.text.strip()
        if len(excerpt) > _ERROR_EXCERPT:
            excerpt = excerpt[:_ERROR_EXCERPT] + "…"
        status = f"HTTP {resp.status_code} {resp.reason_phrase}".rstrip()
        return ToolOutcome(status + (f"\n{excerpt}" if excerpt else ""), True)
    return ToolOutcome(body.text, False, dropped=body.dropped)


async def _body_text(resp: Any) -> TextCapture:
    """The body's text, decoded as it arrives; at most `_HTTP_LIMIT` bytes of it are read
    (the rest is never downloaded) and only what can be shown is held."""
    body = TextCapture(resp.encoding or "utf-8")
    async for chunk in resp.aiter_bytes():
        body.feed(chunk[:_HTTP_LIMIT - body.bytes])
        if body.bytes >= _HTTP_LIMIT:
            break
    body.finish()
    return body
