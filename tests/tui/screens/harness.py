"""A bare App that opens one screen on mount and records what it dismisses with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

_UNSET = object()


class ScreenHarness(App[None]):
    def __init__(self, make_screen: Callable[[], Screen[Any]]) -> None:
        super().__init__()
        self.make_screen = make_screen
        self.results: list[Any] = []

    def compose(self) -> ComposeResult:
        yield Static("underneath")

    def on_mount(self) -> None:
        self.push_screen(self.make_screen(), self.results.append)

    @property
    def result(self) -> Any:
        return self.results[-1] if self.results else _UNSET


NOT_DISMISSED = _UNSET
