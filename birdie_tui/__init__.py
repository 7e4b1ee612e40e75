"""birdie-tui: a terminal home for Birdie, the SKILL.MD-driven LangGraph agent.

docs/architecture.md maps the package: which folder holds what, and the layers between them.
"""

from __future__ import annotations

__all__ = ["version"]


def version() -> str:
    """The installed distribution's version ("unknown" when it is not installed). Here, not
    in the command line's parsers: the server reports it too, and never imports the CLI."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("birdie-tui")
    except PackageNotFoundError:
        return "unknown"
