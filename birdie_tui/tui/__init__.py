"""The Textual front end. `create_app(argv)` builds the app exactly as `birdie-tui <argv>` would,
without running it (Pilot and snapshot tests use it); `door_factory=` gives it another front
door (a test's fake, or a local door built with its own options)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from birdie_tui.tui.boot import DoorFactory


def create_app(argv: Sequence[str] = (), *, door_factory: DoorFactory | None = None,
               **options: Any) -> Any:
    from birdie_tui.cli.args import parse_main_args
    from birdie_tui.tui.app import BirdieApp

    args = parse_main_args(argv)
    return BirdieApp(args, door_factory=door_factory, **options)


def run_app(argv: Sequence[str]) -> int:
    app = create_app(argv)
    result = app.run()
    if app.resume_hint:
        print(app.resume_hint)
    return result if isinstance(result, int) else 0
