"""Everything the command line does without the TUI: `--print`, `skills check`, `sessions`.

Each command returns an exit code; user-facing problems become one line on stderr.

Exit statuses of `--print`:
  0  the turn ran and finished
  1  the turn failed (provider or engine error; the session keeps a valid history), or the
     session stayed busy with another process's turn for BIRDIE_SESSION_WAIT seconds
  2  bad input: usage, unknown/invalid/corrupt session, unknown skill, missing key (nothing created)
  3  the turn finished, but a tool call was denied by a rule or the read-only mode (or a
     sub-agent's call needed an approval --print cannot ask)
  4  the turn stopped: a tool call waits for approval (the session keeps it; answer with
     `--print --session-id SID --approve CALL_ID|all` or `--deny CALL_ID|all`)
  130 interrupted, 141 output closed (broken pipe)
  143, 129  stopped by SIGTERM / SIGHUP: the running turn was cancelled, the session kept
In text mode the command that resumes the session is printed to stderr after the turn.
Files found damaged and moved aside are reported on stderr as `birdie-tui: recovered: ...`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any

from birdie_tui.cli.json_result import TurnSummary, stop_reason
from birdie_tui.cli.signals import cancel_on_signal
from birdie_tui.resume import resume_line
from birdie_tui.screen_text import clean, literal, one_line
from birdie_tui.text import counted


EXIT_TURN_FAILED = 1
EXIT_USAGE = 2
EXIT_APPROVAL_REFUSED = 3
EXIT_APPROVAL_PENDING = 4
STDIN_LIMIT = 32 * 1024 * 1024  # bytes of a message read from standard input


def _fail(message: str, code: int = EXIT_USAGE) -> int:
    from birdie_tui.secrets import scrub

    # Errors quote providers, servers and files: no escape sequence of theirs reaches the terminal.
    print(f"birdie-tui: {clean(scrub(message))}", file=sys.stderr)
    return code


def _print_recovered(message: str) -> None:
    print(f"birdie-tui: recovered: {clean(message)}", file=sys.stderr, flush=True)


def _shown(text: str, stream: Any) -> str:
    """Text for a person: neutralised on a terminal (`screen_text.clean`); exact when it goes
    to a file or a pipe, where a program reads it."""
    return clean(text) if stream.isatty() else text


@contextlib.contextmanager
def _recovery_on_stderr() -> Iterator[None]:
    """Files repaired while this command runs are reported on stderr as it happens."""
    from birdie_tui.store.recovery import add_listener

    remove = add_listener(_print_recovered)
    try:
        yield
    finally:
        remove()


def _user_errors() -> tuple[type[BaseException], ...]:
    from birdie_tui.agent.options import EngineError
    from birdie_tui.providers.config import ConfigError
    from birdie_tui.service import BirdieError
    from birdie_tui.store.paths import InvalidName

    return (BirdieError, EngineError, ConfigError, InvalidName)


def _guarded(run: Callable[[], Coroutine[Any, Any, int]]) -> int:
    try:
        with _recovery_on_stderr():
            return asyncio.run(run())
    except _user_errors() as exc:
        return _fail(str(exc))
    except ConnectionError as exc:
        # A database or server lost at any moment (`DatabaseUnavailable`) is already one line
        # naming it; anything else of the kind is a bug to see whole.
        if getattr(exc, "user_facing", False) is not True:
            raise
        return _fail(str(exc), EXIT_TURN_FAILED)


def birdie_options(args: argparse.Namespace) -> dict[str, Any]:
    return {"user": getattr(args, "user", None), "skills_dirs": getattr(args, "skills_dir", None),
            "agents_dirs": getattr(args, "agents_dir", None),
            "config_file": getattr(args, "config", None),
            "database_url": getattr(args, "database_url", None)}


# ---------------------------------------------------------------------------- --print
def print_command(args: argparse.Namespace) -> int:
    async def run() -> int:
        from birdie_tui.service import local_birdie, remote_birdie

        server = getattr(args, "server", None)
        birdie = remote_birdie(server, user=getattr(args, "user", None)) if server \
            else local_birdie(**birdie_options(args))
        try:
            # Strict: a bad session id, unknown skill or missing key is exit 2, nothing created.
            started = await birdie.start(session_id=args.session_id,
                                         continue_last=bool(args.continue_session),
                                         enable=args.enable or (), disable=args.disable or (),
                                         strict=True)
            broken = len(birdie.broken_files())
            if broken:
                print(f"birdie-tui: warning: {counted(broken, 'skill file problem')}; "
                      "run `birdie-tui skills check` for details", file=sys.stderr)
            return await _print_turn(birdie, started.new, args)
        finally:
            await birdie.close()

    # SIGTERM/SIGHUP: the turn is cancelled as Esc would (tools killed, history repaired),
    # then exit 128+signum (birdie_tui.cli.signals)
    return _guarded(lambda: cancel_on_signal(run()))


def read_message(args: argparse.Namespace) -> str | None:
    """Fill `args.message` from standard input when it is `-`, or when no message was given
    and stdin is not a terminal (`cat notes | birdie-tui -p`): beyond the OS argument limit.
    Returns a problem to report (usage), or None."""
    if args.approve or args.deny:
        return None
    if args.message not in ("-", ""):
        return _attach_piped(args)  # a message and a pipe: the model gets both
    wanted = args.message == "-" or (args.message == "" and not _stdin_is_tty())
    if not wanted:
        return None if args.message else (
            "--print needs a message (or `-` to read it from standard input)")
    text, problem = _read_stdin()
    if problem is None and not text.strip():
        problem = "the message on standard input is empty"
    if problem is None:
        args.message = text
    return problem


def _read_stdin() -> tuple[str, str | None]:
    try:
        data = sys.stdin.buffer.read(STDIN_LIMIT + 1)
    except (OSError, ValueError, AttributeError) as exc:
        return "", f"could not read the message from standard input: {exc}"
    if len(data) > STDIN_LIMIT:
        return "", f"the message on standard input is over {STDIN_LIMIT // (1024 * 1024)} MB"
    return data.decode("utf-8", errors="replace"), None


def _attach_piped(args: argparse.Namespace) -> str | None:
    """Append piped stdin to the message given (birdie_tui.cli.piped); a pipe silent for
    BIRDIE_STDIN_WAIT seconds is left, with a line on stderr, rather than waited for."""
    from birdie_tui.cli.piped import stdin_is_piped, stdin_ready, stdin_wait, with_piped

    if not stdin_is_piped():
        return None
    wait = stdin_wait()
    if not stdin_ready(wait):
        print(f"birdie-tui: nothing on standard input after {wait:g} s; sending the message "
              "without it (`< /dev/null` skips the wait, BIRDIE_STDIN_WAIT sets it)",
              file=sys.stderr, flush=True)
        return None
    text, problem = _read_stdin()
    if problem is None:
        args.message = with_piped(args.message, text)
    return problem


def _stdin_is_tty() -> bool:
    try:
        return sys.stdin is None or sys.stdin.isatty()
    except (OSError, ValueError):
        return True


def _answers(pending: list[Any], args: argparse.Namespace) -> dict[str, Any]:
    """`--approve`/`--deny` as an answer per pending call; raises BirdieError when one is
    left unanswered or names no pending call."""
    from birdie_tui.service import BirdieError
    from birdie_tui.service.rows import ApprovalAnswer

    ids = [request.id for request in pending]
    listed = ", ".join(f"{r.id} ({r.name})" for r in pending)
    if not pending:
        raise BirdieError("this session has no tool call waiting for approval")
    unknown = [c for c in [*args.approve, *args.deny] if c != "all" and c not in ids]
    if unknown:
        raise BirdieError(f"no pending call {unknown[0]!r}; waiting: {listed}")
    answers = {}
    for call_id in ids:
        if call_id in args.deny:
            answers[call_id] = ApprovalAnswer("deny", reason="denied with --deny")
        elif call_id in args.approve or "all" in args.approve:
            answers[call_id] = ApprovalAnswer("allow")
        elif "all" in args.deny:
            answers[call_id] = ApprovalAnswer("deny", reason="denied with --deny")
    missing = [r for r in pending if r.id not in answers]
    if missing:
        raise BirdieError("answer every pending call (or use `all`); still waiting: "
                          + ", ".join(f"{r.id} ({r.name})" for r in missing))
    return answers


async def _with_mentions(message: str) -> str:
    """`@path` mentions attached as the TUI attaches them (`birdie_tui.mentions`); a file not
    attached is said on stderr, and the message still goes."""
    from birdie_tui.mentions.attach import expand

    if "@" not in message:
        return message
    try:
        root = os.getcwd()
    except OSError:  # the working directory is gone: nothing to attach from
        return message
    expanded = await asyncio.to_thread(expand, message, root)
    for note in expanded.notes:
        print(f"birdie-tui: {clean(note)}", file=sys.stderr)
    return expanded.text


async def _print_turn(birdie: Any, new: bool, args: argparse.Namespace) -> int:
    from birdie_tui.events import SessionOpened
    from birdie_tui.secrets import scrub
    from birdie_tui.service import BirdieError

    resuming = bool(args.approve or args.deny)
    if resuming:
        try:
            answers = _answers(await birdie.pending_approvals(), args)
        except BirdieError as exc:
            return _fail(str(exc))
    # The session file is created only now, when the turn is sure to run.
    try:
        session_id = birdie.save_session()
    except BirdieError as exc:
        return _fail(str(exc), EXIT_TURN_FAILED)
    stream_json = args.output_format == "stream-json"
    summary = TurnSummary(session_id) if args.output_format == "json" else None
    if stream_json:
        _emit(SessionOpened(id=session_id, new=new).to_dict())
    if args.auto_approve:
        birdie.set_approval_mode("auto")

    outcome = await _stream_turn(birdie.resume(answers) if resuming
                                 else birdie.send(await _with_mentions(args.message)),
                                 stream_json, args, summary)
    code = _exit_status(birdie, outcome, session_id)
    if summary is not None:  # one object, whatever happened
        _emit(_summed_up(birdie, summary, outcome, code))
    elif not stream_json and outcome.reply:
        reply = _shown(scrub(outcome.reply), sys.stdout)
        sys.stdout.write(reply if reply.endswith("\n") else reply + "\n")
        sys.stdout.flush()  # the reply before the notes on stderr, on a shared terminal
    _tell(birdie, outcome, session_id)
    if args.output_format == "text" and not outcome.waiting and outcome.error is None:
        command = birdie.resume_command()
        if command:
            print(resume_line(command), file=sys.stderr)
    return code


def _exit_status(birdie: Any, outcome: _Outcome, session_id: str) -> int:
    if outcome.error:
        return EXIT_TURN_FAILED
    if outcome.waiting:
        return EXIT_APPROVAL_PENDING
    return EXIT_APPROVAL_REFUSED if outcome.denied or outcome.child_denied else 0


def _summed_up(birdie: Any, summary: TurnSummary, outcome: _Outcome, code: int
               ) -> dict[str, Any]:
    calls = birdie.ledger().calls  # the turn's, each priced (None: a price unknown)
    costs = [c.cost for c in calls]
    return summary.result(
        reply=outcome.reply, error=outcome.error, code=code,
        stop_reason=stop_reason(error=outcome.error, waiting=bool(outcome.waiting),
                                refused=bool(outcome.denied or outcome.child_denied),
                                limited=summary.limited),
        cost=None if any(c is None for c in costs) else sum(c or 0.0 for c in costs),
        pending=[{"id": e.id, "name": e.name, "args": e.args} for e in outcome.waiting])


def _tell(birdie: Any, outcome: _Outcome, session_id: str) -> None:
    """What stopped or refused something, on stderr (every output format)."""
    if outcome.error:
        _fail(outcome.error, EXIT_TURN_FAILED)
        return
    if outcome.waiting:
        for event in outcome.waiting:
            # What the user approves is shown exactly: every control character as such.
            args_text = literal(json.dumps(event.args, ensure_ascii=False, default=str))
            _fail(f"approval needed: {literal(event.name)} {_short(args_text)} "
                  f"(call {literal(event.id)})")
        ids = " ".join(f"--approve {e.id}" for e in outcome.waiting)
        again = birdie.resume_command() or f"birdie-tui --session-id {session_id}"
        _fail(f"the turn waits; answer with: {again} --print {ids}   "
              "(or --deny CALL_ID, or --approve all)")
    elif outcome.denied:
        _fail(f"not run: {', '.join(dict.fromkeys(outcome.denied))} (denied by a rule "
              "or the read-only mode)")
    elif outcome.child_denied:
        _fail(f"not run: {', '.join(dict.fromkeys(outcome.child_denied))} (a sub-agent's "
              "call denied by a rule or the mode, or needing an approval --print cannot "
              "ask: --auto-approve or an allow rule runs it)")


@dataclass
class _Outcome:
    reply: str = ""
    error: str | None = None
    waiting: list[Any] = field(default_factory=list)  # approval events left pending
    denied: list[str] = field(default_factory=list)  # tools refused by a rule or the mode
    child_denied: list[str] = field(default_factory=list)  # "agent › tool" refused in a child


async def _stream_turn(turn: Any, stream_json: bool, args: argparse.Namespace,
                       summary: TurnSummary | None = None) -> _Outcome:
    """Write a turn's events (stream-json) and gather what the exit status depends on (and,
    for `--output-format json`, the summary)."""
    outcome = _Outcome()
    # aclosing: if writing fails (closed pipe), the turn is closed and its history
    # repaired now, while the checkpointer is still open.
    async with contextlib.aclosing(turn) as events:
        async for event in events:
            if stream_json:
                _emit(event.to_dict())
            if summary is not None:
                summary.add(event)
            if event.type == "error":
                outcome.error = event.message
            elif event.type == "done":
                outcome.reply = event.text
            elif event.type == "approval" and event.decision == "pending":
                outcome.waiting.append(event)
            elif event.type == "approval" and event.decision == "denied" \
                    and event.id not in args.deny and "all" not in args.deny:
                outcome.denied.append(event.name)
            elif event.type == "child" and event.event.type == "approval" \
                    and event.event.decision == "denied":
                # A sub-agent's call is asked while it runs: --print cannot, so it is refused.
                outcome.child_denied.append(f"{event.agent} › {event.event.name}")
    return outcome


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit:,} more)"


def _emit(obj: dict[str, Any]) -> None:
    """One stream-json line; every string in it scrubbed of keys and credentials. A last safety
    net keeps the line valid JSON in UTF-8 whatever an event holds: a lone surrogate becomes
    U+FFFD, an object JSON does not know its text."""
    from birdie_tui.secrets import scrub_data
    from birdie_tui.text import scrub_surrogates

    line = json.dumps(scrub_data(obj), ensure_ascii=False, default=str)
    sys.stdout.write(scrub_surrogates(line) + "\n")
    sys.stdout.flush()


# ---------------------------------------------------------------------------- skills check
def skills_command(args: argparse.Namespace) -> int:
    from birdie_tui.agent.options import default_skill_dirs
    from birdie_tui.secrets import scrub
    from birdie_tui.skills.loader import load_skills
    from birdie_tui.store.paths import BirdiePaths

    dirs = args.dirs or default_skill_dirs(BirdiePaths.from_env())
    result = load_skills(dirs)
    if args.json:
        print(json.dumps({"skills": [s.to_dict() for s in result.skills],
                          "errors": [e.to_dict() for e in result.errors]}, indent=2))
    else:
        for skill in result.skills:
            tools = ", ".join(t.name for t in skill.tools) or "-"
            if skill.mcp_server is not None:  # its tools are known only once it runs
                cfg = skill.mcp_server
                tools = scrub(f"from MCP server ({cfg.transport}: "
                              f"{' '.join([cfg.command or cfg.url or '', *cfg.args])})")
            triggers = ", ".join(skill.triggers) or "-"
            state = "on" if skill.enabled_by_default else "off"
            print(one_line(f"ok    {skill.name:<18} {skill.kind:<12} default {state:<3}  "
                           f"tools: {tools}  triggers: {triggers}"))
        for error in result.errors:
            print(one_line(f"ERROR {error}"))
        print(f"{counted(len(result.skills), 'skill')}, {counted(len(result.errors), 'error')}")
    return 1 if result.errors else 0


# ---------------------------------------------------------------------------- sessions
def sessions_command(args: argparse.Namespace) -> int:
    from birdie_tui.cli.sessions import database_command

    done = database_command(args)  # the shared database's list, import, export --to-home
    if done is not None:
        return done
    if args.action == "list":
        return _guarded(lambda: _sessions_list(args))
    return _guarded(lambda: _sessions_export(args))


async def _sessions_list(args: argparse.Namespace) -> int:
    from birdie_tui.cli.sessions import print_sessions
    from birdie_tui.store import BirdiePaths, SessionStore
    from birdie_tui.store.paths import default_user, validate_user

    store = SessionStore(BirdiePaths.from_env(), validate_user(args.user or default_user()))
    # Corrupt files found here are reported by the recovery listener, as they are moved aside.
    # Summaries come from the index cache: only files changed since the last listing are read.
    return print_sessions(store.summaries(), as_json=args.json, shared=False)


async def _sessions_export(args: argparse.Namespace) -> int:
    from birdie_tui.service import local_birdie
    from birdie_tui.service.protocol import SessionNotFound
    from birdie_tui.store.paths import validate_session_id

    validate_session_id(args.id)
    try:
        # Through the door, without opening the session (nor starting the door).
        text = await local_birdie(**birdie_options(args)).export_stored(args.id, args.format)
    except SessionNotFound as exc:
        return _fail(str(exc), 1)
    text = _shown(text, sys.stdout)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
