"""Approvals over ACP: a gated tool call becomes `session/request_permission`, with the
choices the TUI's dialog offers, and the session's mode (ask / auto / read-only, an ACP
session mode) decides first, as shift+tab's does in the TUI.

The door runs in "ask" mode under an ACP agent, so every call the rules leave open reaches
`SessionApprover`: each ACP session keeps its own mode, which the process-wide door mode could
not. Deny rules, allow rules and "always" answers saved in the session still decide before it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from acp.schema import (
    AllowedOutcome,
    PermissionOption,
    PermissionOptionKind,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from birdie_tui.acp.updates import tool_kind, tool_title
from birdie_tui.file_args import absolute, new_text_key, path_arg
from birdie_tui.modes import ApprovalMode
from birdie_tui.service.rows import ApprovalAnswer, ApprovalRequest

log = logging.getLogger("birdie_tui.acp")

# option id -> (its kind, its label, the answer it gives)
_Choice = tuple[PermissionOptionKind, str, ApprovalAnswer]
ONCE = "allow_once"
REJECT = "reject_once"
REJECT_ALWAYS = "reject_always"

Ask = Callable[[str, ToolCallUpdate, list[PermissionOption]],
               Awaitable[RequestPermissionResponse]]


def choices(request: ApprovalRequest) -> dict[str, _Choice]:
    """What the client may answer: once, always (this command / this tool / this skill, the
    scopes the TUI offers and saves the same way), reject, reject for the rest of the session."""
    out: dict[str, _Choice] = {ONCE: ("allow_once", "Allow once", ApprovalAnswer("allow"))}
    if request.rule_for("command") is not None and request.command:
        out["allow_command"] = ("allow_always", f"Always allow {request.rule_for('command')}",
                                ApprovalAnswer("allow", remember="command"))
    out["allow_tool"] = ("allow_always", f"Always allow the tool {request.name}",
                         ApprovalAnswer("allow", remember="tool"))
    if request.skill:
        out["allow_skill"] = ("allow_always", f"Always allow the skill {request.skill}",
                              ApprovalAnswer("allow", remember="skill"))
    out[REJECT] = ("reject_once", "Reject", ApprovalAnswer("deny", reason="rejected by the user"))
    out[REJECT_ALWAYS] = ("reject_always", f"Reject {request.name} for this session",
                          ApprovalAnswer("deny", reason="rejected by the user for this session"))
    return out


class SessionApprover:
    """The approver one ACP session's turns run with."""

    def __init__(self, session_id: str, ask: Ask, mode: Callable[[], ApprovalMode],
                 cwd: Callable[[], str]) -> None:
        self._session_id = session_id
        self._ask = ask
        self._mode = mode
        self._cwd = cwd
        self.rejected_tools: set[str] = set()  # "reject for this session"

    async def __call__(self, request: ApprovalRequest) -> ApprovalAnswer | None:
        mode = self._mode()
        if mode == "read-only":
            return ApprovalAnswer("deny", reason="read-only mode: tools that need approval "
                                                 "do not run")
        if mode == "auto":
            return ApprovalAnswer("allow")
        if request.name in self.rejected_tools:
            return ApprovalAnswer("deny", reason=f"{request.name} was rejected for this session")
        offered = choices(request)
        options = [PermissionOption(option_id=key, name=label, kind=kind)
                   for key, (kind, label, _) in offered.items()]
        response = await self._ask(self._session_id, self._call(request), options)
        outcome: Any = response.outcome
        if not isinstance(outcome, AllowedOutcome) or outcome.option_id not in offered:
            # Cancelled (the prompt is being cancelled) or an option we never offered.
            return ApprovalAnswer("deny", reason="the request was cancelled")
        if outcome.option_id == REJECT_ALWAYS:
            self.rejected_tools.add(request.name)
        return offered[outcome.option_id][2]

    def _call(self, request: ApprovalRequest) -> ToolCallUpdate:
        from acp import text_block, tool_content, tool_diff_content

        content: list[Any] = []
        detail = request.why or ""
        if request.command:
            detail = f"{detail}\n{request.command}".strip()
        found, key = path_arg(request.args), new_text_key(request.args)
        if found is not None and key is not None:  # a whole file written: the editor's diff
            target = absolute(found[1], self._cwd())
            content.append(tool_diff_content(target, request.args[key], _current(target)))
        elif request.diff:  # an edit the editor cannot show as a diff block: the text diff
            content.append(tool_content(text_block(request.diff)))
        if detail:
            content.append(tool_content(text_block(detail)))
        status: Literal["pending"] = "pending"
        title = tool_title(request.name, request.args)
        if request.agent:  # a sub-agent's call: the editor says whose
            title = f"{request.agent} › {title}"
        return ToolCallUpdate(tool_call_id=request.id, title=title,
                              kind=tool_kind(request.name, request.args), status=status,
                              raw_input=request.args, content=content or None)


def _current(path: str) -> str | None:
    """The file as it is, for the editor's diff (None: new, unreadable or too large)."""
    from birdie_tui.acp.updates import read_for_diff

    return read_for_diff(path)
