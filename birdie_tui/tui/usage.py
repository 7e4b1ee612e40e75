"""The one error a command handler raises for a command used wrongly (its own module, so every
module with handlers can raise it without importing the others)."""

from __future__ import annotations


class UsageError(Exception):
    """A command used wrongly: its text is the one-line hint."""
