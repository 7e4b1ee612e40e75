"""Triggers in an agent file's frontmatter (`every:`, `cron:` with `tz:`, `watch:` with
`debounce:`, and `input:` / `approval:` for the runs) and in a settings `schedules` entry.

Both read the same keys through `read_triggers`; each refusal is an `AgentFileError` from the
caller's `fail(key, message)`, so an agent file's names the key's line and a settings entry's
names the file and the entry. A cron expression is checked by APScheduler, the library that
fires it (`CronTrigger.from_crontab`): no cron parser of our own.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, cast

from birdie_tui.agent_files.fields import Fields, typename
from birdie_tui.agent_files.models import AgentFileError, AgentParam
from birdie_tui.schedules.models import RUN_APPROVALS, RunApproval, Trigger, TriggerKind

__all__ = ["KINDS", "TRIGGER_KEYS", "agent_triggers", "parse_interval", "read_triggers"]

KINDS: tuple[TriggerKind, ...] = ("every", "cron", "watch")
TRIGGER_KEYS = frozenset({"every", "cron", "tz", "watch", "debounce", "input", "approval"})
Fail = Callable[[str, str], AgentFileError]

_UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
_INTERVAL = re.compile(r"^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$")
_INTERVAL_HELP = "write 30s, 30m, 2h, 1d, 1h30m or a number of seconds"
_JSON_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,),
                                            "number": (int, float), "boolean": (bool,),
                                            "array": (list,), "object": (dict,)}


def parse_interval(value: Any, minimum: float = 1.0) -> float:
    """An interval in seconds (`1s`, `30m`, `2h`, `1d`, `1h30m`, `0.5s`, or a bare number of
    seconds), at least `minimum`; ValueError with the reason when it is none."""
    if isinstance(value, bool) or value is None:
        raise ValueError(f"got {typename(value)}: {_INTERVAL_HELP}")
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip().lower()
        found = _INTERVAL.match(text) if text else None
        if re.fullmatch(r"\d+(?:\.\d+)?", text):
            seconds = float(text)
        elif found and any(found.groups()):
            seconds = sum(float(part) * size for part, size in
                          zip(found.groups(), _UNITS.values()) if part)
        else:
            raise ValueError(f"{value!r} is not an interval: {_INTERVAL_HELP}")
    else:
        raise ValueError(f"got {typename(value)}: {_INTERVAL_HELP}")
    if not math.isfinite(seconds) or seconds < minimum:
        raise ValueError(f"{value!r} is shorter than the shortest allowed, {minimum:g}s")
    return seconds


def read_triggers(meta: Mapping[str, Any], *, fail: Fail, key_of: Callable[[str], str],
                  line_of: Callable[[str], int | None], path: Path | None,
                  agent: str | None, inputs: tuple[AgentParam, ...] | None,
                  prompt: str | None = None) -> tuple[Trigger, ...]:
    """The triggers `meta` declares (one per kind present), () when it has no trigger key.
    `inputs` are the agent's declared inputs (None: a plain prompt, which takes none)."""
    present = [k for k in sorted(TRIGGER_KEYS) if k in meta]
    kinds = [k for k in KINDS if k in meta]
    if not kinds:
        if present:
            raise fail(present[0], f"'{present[0]}' belongs to a trigger: add 'every', "
                                   "'cron' or 'watch'")
        return ()
    if "tz" in meta and "cron" not in meta:
        raise fail("tz", "'tz' is the time zone of a 'cron' trigger: add 'cron' or drop it")
    if "debounce" in meta and "watch" not in meta:
        raise fail("debounce", "'debounce' applies to a 'watch' trigger: add 'watch' or drop it")
    when = {kind: _kind_fields(kind, meta, fail) for kind in kinds}  # in the file's order
    values = _run_values(meta, fail, inputs)
    approval, allow = _approval(meta.get("approval", "read-only"), fail)
    return tuple(Trigger(key=key_of(kind), kind=kind, agent=agent, prompt=prompt,
                         inputs=values, approval=approval, allow=allow, path=path,
                         line=line_of(kind), **fields) for kind, fields in when.items())


def _kind_fields(kind: str, meta: Mapping[str, Any], fail: Fail) -> dict[str, Any]:
    if kind == "every":
        return {"every_s": _interval(meta["every"], "every", fail, 1.0)}
    if kind == "cron":
        return _cron(meta["cron"], meta.get("tz"), fail)
    return {"watch": _watch(meta["watch"], fail),
            # a burst of saves is one run; below 0.1s an editor's save is already two events
            "debounce_s": _interval(meta.get("debounce", 1), "debounce", fail, 0.1)}


def _interval(value: Any, key: str, fail: Fail, minimum: float) -> float:
    try:
        return parse_interval(value, minimum)
    except ValueError as exc:
        raise fail(key, f"field '{key}': {exc}") from None


def _cron(expr: Any, tz: Any, fail: Fail) -> dict[str, Any]:
    if not isinstance(expr, str) or not expr.strip():
        raise fail("cron", f"field 'cron' must be five fields as text (quote it: "
                           f"cron: \"0 9 * * *\"), got {typename(expr)}")
    if tz is not None:
        tz = _zone(tz, fail)
    # Built as the scheduler builds it (crontab's weekdays: 0 and 7 are Sunday); only files
    # with `cron:` pay for importing APScheduler.
    from birdie_tui.schedules.timing import crontab_trigger

    try:
        crontab_trigger(expr.strip(), tz)
    except (ValueError, TypeError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise fail("cron", f"field 'cron': {expr.strip()!r} is not a cron expression "
                           f"(minute hour day month weekday): {reason}") from None
    return {"cron": " ".join(expr.split()), "tz": tz}


def _zone(tz: Any, fail: Fail) -> str:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if not isinstance(tz, str) or not tz.strip():
        raise fail("tz", f"field 'tz' must be a time zone name such as Europe/Paris, got "
                         f"{typename(tz)}")
    try:
        ZoneInfo(tz.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise fail("tz", f"field 'tz': unknown time zone {tz!r} (an IANA name such as "
                         "Europe/Paris or UTC)") from None
    return tz.strip()


def _watch(value: Any, fail: Fail) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(
            isinstance(v, str) and v.strip() and "\x00" not in v for v in items):
        raise fail("watch", "field 'watch' must be a path or glob, or a non-empty list of "
                            f"them, got {typename(value)}")
    return tuple(v.strip() for v in items)


def _run_values(meta: Mapping[str, Any], fail: Fail,
                inputs: tuple[AgentParam, ...] | None) -> dict[str, Any]:
    """`input:` checked against the declared inputs: names known, required ones given,
    values of the declared type."""
    given = meta.get("input", {})
    if inputs is None:
        if "input" in meta:
            raise fail("input", "'input' gives an agent's inputs: a plain prompt takes none")
        return {}
    if not isinstance(given, dict) or not all(isinstance(k, str) for k in given):
        raise fail("input", f"field 'input' must be a mapping of input names to values, got "
                            f"{typename(given)}")
    declared = {p.name: p for p in inputs}
    names = ", ".join(declared) or "none"
    for name, value in given.items():
        param = declared.get(name)
        if param is None:
            raise fail("input", f"field 'input': the agent has no input {name!r} (its inputs: "
                                f"{names})")
        types = _JSON_TYPES.get(param.type, (object,))
        if value is None or (isinstance(value, bool) and bool not in types) \
                or not isinstance(value, types):
            raise fail("input", f"field 'input': {name!r} must be {param.type}, got "
                                f"{typename(value)}")
    missing = [p.name for p in inputs if p.required and p.name not in given]
    if missing:
        raise fail("input" if "input" in meta else _first_kind(meta),
                   f"the trigger must give the agent's required input(s) {', '.join(missing)} "
                   "under 'input:'")
    return dict(given)


def _first_kind(meta: Mapping[str, Any]) -> str:
    return next(k for k in KINDS if k in meta)


def _approval(value: Any, fail: Fail) -> tuple[RunApproval, tuple[str, ...]]:
    """`approval: read-only|ask|auto`, or `{mode: ..., allow: [rules]}`."""
    modes = ", ".join(RUN_APPROVALS)
    allow: Any = []
    mode = value
    if isinstance(value, dict):
        unknown = sorted(str(k) for k in value if k not in ("mode", "allow"))
        if unknown:
            raise fail("approval", f"field 'approval': unknown key(s) {', '.join(unknown)} "
                                   "(known: mode, allow)")
        mode, allow = value.get("mode", "read-only"), value.get("allow", [])
    if mode not in RUN_APPROVALS:
        raise fail("approval", f"field 'approval' must be one of {modes} (or a mapping with "
                               f"'mode' and 'allow'), got {mode!r}")
    if not isinstance(allow, list) or not all(_is_rule(r) for r in allow):
        raise fail("approval", "field 'approval': 'allow' must be a list of permission rules "
                               "as settings write them: tool or tool(pattern)")
    return cast(RunApproval, mode), tuple(r.strip() for r in allow)


def _is_rule(rule: Any) -> bool:
    if not isinstance(rule, str) or not rule.strip() or "\n" in rule or "\x00" in rule:
        return False
    name, paren, _ = rule.strip().partition("(")
    return bool(name.strip()) and (not paren or rule.strip().endswith(")"))


def agent_triggers(fields: Fields, name: str, inputs: tuple[AgentParam, ...]
                   ) -> tuple[Trigger, ...]:
    """An agent file's triggers, keyed "<agent>:<kind>", each at its key's line."""
    return read_triggers(fields.meta, fail=fields.fail, key_of=lambda kind: f"{name}:{kind}",
                         line_of=fields.line, path=fields.path, agent=name, inputs=inputs)
