"""Which tool calls run without asking, which wait for the user, which never run.

A call is *gated* when its skill declares any `## Permissions` capability (as upstream Birdie),
its skill's `require_approval` rule names it, its tool block says `approval: ask`, or (with
`approval: outside_workdir`) a path argument leaves the working directory. Rules then decide:

  deny rule → denied · read-only mode → gated calls denied · ask rule → asked ·
  allow rule, or the skill in the session's `approved_skills` → runs · auto mode → runs ·
  gated → asked · otherwise → runs.

A rule is `tool` or `tool(pattern)`. For a `bash:` tool the pattern is shell words matched
against the command's words (allow: one simple command, nothing chained; deny and ask: any
command in the line, however written); for other tools a glob over the arguments as compact
JSON, or `key=glob`. The grammar is in `rule_match`.
Rules come from settings.json (`"permissions": {"allow": [...], "ask": [...], "deny": [...]}`)
and from the session JSON (`approval_rules`: the "always allow" answers given in it).

The request travels through LangGraph's `interrupt()` (see `graph.run_tools`), so it is part
of the checkpoint: it survives a restart and crosses a network; everything in it is plain JSON.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from birdie_tui.modes import APPROVAL_MODES, ApprovalMode
# Path, new-text and edit arguments: one spelling shared with writes done in a client's
# workspace (tools/workspace_calls.py), so the diff asked about is the change made.
from birdie_tui.file_args import edit_pair, is_path_arg, new_text_key, path_arg


# The session keys of saved "always" answers (upstream's approved_skills, our approval_rules).
APPROVED_SKILLS = "approved_skills"
APPROVAL_RULES = "approval_rules"

MODES = APPROVAL_MODES  # (spelled once, in birdie_tui.modes)
Mode = ApprovalMode
REMEMBER = ("command", "tool", "skill")
TOOL_APPROVAL = ("ask", "never", "outside_workdir")  # a tool block's `approval:` values

DIFF_LIMIT = 200_000  # characters of a proposed file shown as a diff; beyond, a summary


@dataclass(frozen=True)
class ApprovalRequest:
    """One tool call waiting for the user (plain data: it is stored in the checkpoint)."""

    id: str
    name: str
    args: dict[str, Any]
    skill: str = ""
    permissions: tuple[str, ...] = ()
    why: str = ""  # what gated it, for the dialog
    command: str = ""  # the command line a `bash:` tool would run, else the args as JSON
    diff: str | None = None  # a file write or edit: unified diff against the file today
    paths_outside: tuple[str, ...] = ()
    agent: str = ""  # the sub-agent whose call this is ("" : the session's own)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["permissions"] = list(self.permissions)
        data["paths_outside"] = list(self.paths_outside)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ApprovalRequest:
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        known["permissions"] = tuple(known.get("permissions") or ())
        known["paths_outside"] = tuple(known.get("paths_outside") or ())
        known["args"] = dict(known.get("args") or {})
        return cls(**known)

    def rule_for(self, remember: str) -> str | None:
        """The allow rule an "always" answer saves (None for `skill`: that is
        `approved_skills`); the dialog shows this very text before it is saved."""
        if remember == "command":
            return exact_rule(self.name, self.command, self.args)
        if remember == "tool":
            return self.name
        return None

    def saved_as(self, answer: ApprovalAnswer) -> tuple[str, str] | None:
        """Where an "always" answer to this request is kept, as Birdie keeps it in a session:
        (APPROVED_SKILLS, skill) or (APPROVAL_RULES, rule); None when it saves nothing."""
        if answer.decision != "allow" or not answer.remember:
            return None
        if answer.remember == "skill":
            return (APPROVED_SKILLS, self.skill) if self.skill else None
        rule = self.rule_for(answer.remember)
        return (APPROVAL_RULES, rule) if rule else None


@dataclass(frozen=True)
class ApprovalAnswer:
    decision: Literal["allow", "deny"]
    reason: str = ""  # a denial's reason, sent back to the model
    remember: str | None = None  # allow always: "command" | "tool" | "skill"

    def to_dict(self) -> dict[str, Any]:
        return {"decision": self.decision, "reason": self.reason, "remember": self.remember}

    @classmethod
    def from_value(cls, value: Any) -> ApprovalAnswer:
        """An answer from a resume value; anything unreadable is a denial (never a run)."""
        if isinstance(value, ApprovalAnswer):
            return value
        if isinstance(value, bool):
            return cls("allow" if value else "deny")
        if not isinstance(value, dict) or value.get("decision") not in ("allow", "deny"):
            return cls("deny", reason="unreadable approval answer")
        remember = value.get("remember")
        return cls(value["decision"], reason=str(value.get("reason") or "")[:2000],
                   remember=remember if remember in REMEMBER else None)


ALLOW_ONCE = ApprovalAnswer("allow")
DENY = ApprovalAnswer("deny")


def escape_glob(text: str) -> str:
    """`text` as a glob that matches only itself."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def exact_rule(name: str, command: str, args: dict[str, Any]) -> str:
    """The rule matching this call and no other: a shell tool's script (`run_bash(git
    status)`), else every argument by value (`write_file(path="a.md", content="hi")`)."""
    from birdie_tui.agent.rule_args import exact_args
    from birdie_tui.agent.rule_match import json_args, script_of

    script = script_of(command) if json_args(command) is None else None
    if script is not None:
        return f"{name}({escape_glob(script)})"
    return f"{name}({exact_args(args)})"


@dataclass(frozen=True)
class Rule:
    tool: str
    pattern: str | None = None

    @classmethod
    def parse(cls, text: str) -> Rule | None:
        text = str(text).strip()
        if not text:
            return None
        if text.endswith(")") and "(" in text:
            name, _, rest = text.partition("(")
            return cls(name.strip(), rest[:-1])
        return cls(text)

    def allows(self, tool: str, command: str, args: dict[str, Any] | None = None) -> bool:
        """As an allow rule: this exact call shape, nothing chained to it."""
        if self.tool not in (tool, "*"):
            return False
        from birdie_tui.agent.rule_match import allow_matches  # widgets import this module

        return self.pattern is None or allow_matches(self.pattern, command, args)

    def catches(self, tool: str, command: str, args: dict[str, Any] | None = None) -> bool:
        """As a deny or ask rule: anywhere in the line, however it is spelled."""
        if self.tool not in (tool, "*"):
            return False
        from birdie_tui.agent.rule_match import deny_matches

        return self.pattern is None or deny_matches(self.pattern, command, args)


def parse_rules(items: Any) -> list[Rule]:
    if not isinstance(items, list):
        return []
    return [rule for item in items if isinstance(item, str) and (rule := Rule.parse(item))]


@dataclass(frozen=True)
class Verdict:
    action: Literal["allow", "deny", "ask"]
    why: str = ""
    gated: bool = False  # an approval event is reported for gated calls only


@dataclass
class ApprovalPolicy:
    """Everything a decision needs; built by the engine for each turn (and rebuilt when the
    user answers "always")."""

    mode: str = "ask"
    allow: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)
    approved_skills: frozenset[str] = frozenset()
    workdir: Path | None = None
    # A run whose trigger says `approval: ask`: every skill tool's call needs an answer (an
    # allow rule gives it), not only the gated ones (schedules/models.py, RunApproval).
    gate_all: bool = False

    @classmethod
    def build(cls, *, mode: str, settings_rules: dict[str, Any] | None,
              session_rules: list[str], approved_skills: list[str],
              workdir: Path | None = None, gate_all: bool = False) -> ApprovalPolicy:
        rules = settings_rules or {}
        return cls(mode=mode if mode in MODES else "ask",
                   allow=parse_rules(rules.get("allow")) + parse_rules(session_rules),
                   ask=parse_rules(rules.get("ask")), deny=parse_rules(rules.get("deny")),
                   approved_skills=frozenset(approved_skills), workdir=workdir,
                   gate_all=gate_all)

    def gate(self, *, name: str, args: dict[str, Any], skill: Any, tool: Any) -> tuple[bool, str, tuple[str, ...]]:
        """(gated?, why, paths outside the working directory)."""
        approval = getattr(tool, "approval", None)
        outside = outside_paths(args, getattr(tool, "schema", None), self.workdir)
        if approval == "never":
            return False, "", outside
        if approval == "ask":
            return True, "its tool block says approval: ask", outside
        if approval == "outside_workdir" and outside:
            return True, "a path is outside the working directory", outside
        if skill is not None and skill.requires_approval(name):
            return True, f"skill {skill.name} requires approval for it", outside
        if skill is not None and skill.permissions:
            return True, f"skill {skill.name} declares {', '.join(skill.permissions)}", outside
        if skill is not None and self.gate_all:
            return True, "the run's approval is ask", outside
        return False, "", outside

    def decide(self, *, name: str, command: str, skill_name: str, gated: bool,
               why: str, args: dict[str, Any] | None = None) -> Verdict:
        for rule in self.deny:
            if rule.catches(name, command, args):
                return Verdict("deny", f"denied by the rule {describe(rule)}", True)
        if gated and self.mode == "read-only":
            return Verdict("deny", "read-only mode: tools that need approval do not run", True)
        if any(rule.catches(name, command, args) for rule in self.ask):
            return Verdict("allow" if self.mode == "auto" else "ask",
                           why or "a settings rule asks for it", True)
        if any(rule.allows(name, command, args) for rule in self.allow):
            return Verdict("allow", "allowed by a rule", gated)
        if gated and skill_name and skill_name in self.approved_skills:
            return Verdict("allow", f"skill {skill_name} approved for this session", True)
        if gated:
            return Verdict("allow" if self.mode == "auto" else "ask", why, True)
        return Verdict("allow")


def session_policy(*, mode: str, saved: Mapping[str, Any],
                   settings_rules: dict[str, Any] | None = None,
                   workdir: Path | None = None) -> ApprovalPolicy:
    """The policy a session runs under: the mode, the settings' rules (None: none known here,
    as on a server's client) and the "always" answers `saved` in the session (its JSON's
    extra keys, or a thread's `birdie` metadata: the same two keys)."""
    return ApprovalPolicy.build(mode=mode, settings_rules=settings_rules,
                                session_rules=_strings(saved.get(APPROVAL_RULES)),
                                approved_skills=_strings(saved.get(APPROVED_SKILLS)),
                                workdir=workdir, gate_all=_run_asks(saved))


def _run_asks(saved: Mapping[str, Any]) -> bool:
    """A session that is a run of a trigger with `approval: ask` (its `extra["run"]`)."""
    mark = saved.get("run")
    return isinstance(mark, Mapping) and mark.get("approval") == "ask"


def decided_answer(policy: ApprovalPolicy, request: ApprovalRequest) -> ApprovalAnswer | None:
    """The one decision on a pending request without the user, for every door: the answer
    the mode and rules give it (auto, read-only, a deny rule, an "always" saved meanwhile);
    None: the user is to be asked."""
    verdict = policy.decide(name=request.name, command=request.command,
                            skill_name=request.skill, gated=True, why=request.why,
                            args=request.args)
    return None if verdict.action == "ask" else ApprovalAnswer(verdict.action, reason=verdict.why)


def _strings(value: Any) -> list[str]:
    """A saved list read leniently: a hand-edited file or foreign metadata never breaks it."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def describe(rule: Rule) -> str:
    return rule.tool if rule.pattern is None else f"{rule.tool}({rule.pattern})"


def command_text(tool: Any, args: dict[str, Any]) -> str:
    """What a rule's pattern is matched against and what the dialog shows."""
    entry = getattr(tool, "entrypoint", "") or ""
    if entry.startswith("bash:"):
        from birdie_tui.tools.entrypoints import render_command

        try:
            return render_command(entry[len("bash:"):].strip(), args, tool.schema)
        except Exception:  # noqa: BLE001 - a value the tool refuses: it will fail when run
            pass
    return json.dumps(args, ensure_ascii=False, sort_keys=True, default=str)


def outside_paths(args: dict[str, Any], schema: Any, workdir: Path | None) -> tuple[str, ...]:
    """Path arguments that resolve (symlinks followed) outside the working directory."""
    root = Path(workdir or os.getcwd()).resolve()
    props = (schema or {}).get("properties") or {} if isinstance(schema, dict) else {}
    found = []
    for name, value in args.items():
        if not isinstance(value, str) or not value or not is_path_arg(name, props.get(name)):
            continue
        try:
            target = (root / os.path.expanduser(value)).resolve()
        except (OSError, RuntimeError, ValueError):
            found.append(value)
            continue
        if target != root and root not in target.parents:
            found.append(value)
    return tuple(found)


def proposed_diff(args: dict[str, Any], workdir: Path | None = None) -> str | None:
    """A unified diff for a call that writes or edits a file (a path argument plus new
    content, or an old/new pair), against the file as it is now; None for any other call."""
    found = path_arg(args)
    if found is None:
        return None
    path = found[1]
    target = Path(workdir or os.getcwd()) / os.path.expanduser(path)
    try:
        size = target.stat().st_size if target.is_file() else 0
        if size > DIFF_LIMIT:  # never read a huge file just to say it is too large
            return f"--- {path}\n+++ {path}\n(too large to show: the file has {size:,} bytes)\n"
        before = target.read_text(encoding="utf-8", errors="replace") if size else ""
    except OSError:
        before = ""
    after: str | None = None
    text_key, edit = new_text_key(args), edit_pair(args)
    if text_key is not None:
        after = args[text_key]
    elif edit is not None:
        old, new = edit
        if old and old not in before:
            return f"--- {path}\n(the text to replace is not in the file)\n"
        after = before.replace(old, new, 1)
    if after is None:
        return None
    if len(before) + len(after) > DIFF_LIMIT:
        return (f"--- {path}\n+++ {path}\n(too large to show: {len(before):,} → "
                f"{len(after):,} characters)\n")
    lines = difflib.unified_diff(before.splitlines(keepends=True),
                                 after.splitlines(keepends=True),
                                 fromfile=f"{path}" if before else "/dev/null",
                                 tofile=f"{path}")
    text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)
    return text or f"--- {path}\n(no change)\n"


__all__ = [
    "ALLOW_ONCE", "APPROVAL_RULES", "APPROVED_SKILLS", "DENY", "MODES", "REMEMBER",
    "ApprovalAnswer", "ApprovalPolicy", "ApprovalRequest", "Rule", "Verdict", "command_text",
    "decided_answer", "outside_paths", "proposed_diff", "session_policy",
]
