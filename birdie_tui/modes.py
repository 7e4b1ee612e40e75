"""The two modes a session runs in, each spelled once (a leaf: it imports nothing).

Settings, the engine, the served graph, both doors and the TUI name these types and tuples.
"""

from __future__ import annotations

from typing import Literal, get_args

# How tools that need approval are treated: asked, run without asking, or never run.
ApprovalMode = Literal["ask", "auto", "read-only"]
APPROVAL_MODES: tuple[ApprovalMode, ...] = get_args(ApprovalMode)
# The same, least permissive first (an operator's ceiling caps a thread's choice).
PERMISSIVENESS: tuple[ApprovalMode, ...] = ("read-only", "ask", "auto")
# How skill bodies reach the prompt: trigger phrases, the model's get_skill, or both.
LoadingMode = Literal["triggers", "model", "both"]
LOADING_MODES: tuple[LoadingMode, ...] = get_args(LoadingMode)

__all__ = ["APPROVAL_MODES", "LOADING_MODES", "PERMISSIVENESS", "ApprovalMode", "LoadingMode",
           "approval_mode_of", "loading_mode_of"]


def approval_mode_of(value: object) -> ApprovalMode | None:
    """`value` as an approval mode, or None when it is not one (typed user or file input)."""
    return next((mode for mode in APPROVAL_MODES if mode == value), None)


def loading_mode_of(value: object) -> LoadingMode | None:
    """`value` as a loading mode, or None when it is not one."""
    return next((mode for mode in LOADING_MODES if mode == value), None)
