"""What the running turn lends a model that runs Birdie's tools itself (an ACP agent, which
calls them over the MCP bridge while its one model call lasts).

Every other model only proposes calls, and the graph's tools node decides and runs them. An
ACP agent's calls happen inside the agent node, so the node sets this seam around the model
call (`agent/graph.py`): the approval verdict of a call, the approval mode (for the agent's
own permission requests) and the stream writer that makes the calls visible as the turn's
tool events. A leaf: the graph imports it, it imports nothing of the agent.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

# (call id, tool name, arguments) -> (action: allow | deny | ask, why, gated?)
Verdict = Callable[[str, str, dict[str, Any]], tuple[str, str, bool]]


def _no_report(_: dict[str, Any]) -> None:
    return None


@dataclass(frozen=True)
class TurnSeam:
    verdict: Verdict
    mode: str = "ask"  # the session's approval mode (modes.ApprovalMode)
    report: Callable[[dict[str, Any]], None] = field(default=_no_report)


_SEAM: ContextVar[TurnSeam | None] = ContextVar("birdie_acp_turn_seam", default=None)


def current_seam() -> TurnSeam | None:
    """The seam of the model call running in this context (None outside a turn)."""
    return _SEAM.get()


@contextlib.contextmanager
def lend_seam(seam: TurnSeam) -> Iterator[None]:
    """`seam` for the model call made inside the block (the context is per task, so two
    sessions' turns side by side each see their own)."""
    token = _SEAM.set(seam)
    try:
        yield
    finally:
        _SEAM.reset(token)


__all__ = ["TurnSeam", "Verdict", "current_seam", "lend_seam"]
