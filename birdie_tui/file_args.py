"""Which arguments of a tool call name a file, and which carry its new text (no app imports).

One spelling for the two readers that must agree: the approval dialog's diff
(`agent/approvals.py`, `proposed_diff`) and a write done through the front end's workspace
(`workspace_calls.py`): a call is shown as the change it then makes.
"""

from __future__ import annotations

import os
from typing import Any

# Argument names read as file paths (besides a schema's `format: path`).
PATH_NAMES = {"path", "file", "filename", "file_path", "filepath", "dir", "directory",
              "folder", "src", "dst", "source", "destination", "target"}
PATH_SUFFIXES = ("_path", "_file", "_dir", "_directory")
# A file's whole new text, or an edit: the old text replaced (once) by the new.
NEW_TEXT_KEYS = ("content", "contents", "text", "new_content", "file_text")
EDIT_KEYS = (("old_string", "new_string"), ("old_text", "new_text"), ("old_str", "new_str"))


def is_path_arg(name: str, spec: Any) -> bool:
    if isinstance(spec, dict) and spec.get("format") == "path":
        return True
    low = name.lower()
    return low in PATH_NAMES or low.endswith(PATH_SUFFIXES)


def path_arg(args: dict[str, Any]) -> tuple[str, str] | None:
    """(name, value) of the first text argument named like a path, as the diff reads it."""
    return next(((k, v) for k, v in args.items() if isinstance(v, str) and is_path_arg(k, None)),
                None)


def new_text_key(args: dict[str, Any]) -> str | None:
    """The argument holding a file's whole new text, if the call has one."""
    return next((k for k in NEW_TEXT_KEYS if isinstance(args.get(k), str)), None)


def edit_pair(args: dict[str, Any]) -> tuple[str, str] | None:
    """(old, new) of an edit, if the call is one."""
    for old_key, new_key in EDIT_KEYS:
        old, new = args.get(old_key), args.get(new_key)
        if isinstance(old, str) and isinstance(new, str):
            return old, new
    return None


def absolute(path: str, cwd: str) -> str:
    """A path argument as a tool reads it (relative to `cwd`, `~` expanded), made absolute:
    what a front end is given to read, write or show for that argument."""
    return os.path.abspath(os.path.join(cwd, os.path.expanduser(path)))


__all__ = ["EDIT_KEYS", "NEW_TEXT_KEYS", "PATH_NAMES", "PATH_SUFFIXES", "absolute", "edit_pair",
           "is_path_arg", "new_text_key", "path_arg"]
