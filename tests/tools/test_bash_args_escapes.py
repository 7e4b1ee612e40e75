"""Hostile argument values, measured: how many ran a command, before and after values stopped
being shell-quoted into the command text.

The same 1,200 hostile values, spread over the risky template shapes (a placeholder in
"$(…)", in backticks, in "${X:-…}", in an unquoted here-document, in $'…', in arithmetic), are run
through the old renderer (shell-quoted values written into the command; copied below as it was)
and through the current one. An escape is a value that created its marker file.
"""

from __future__ import annotations

import random
import re
import shlex
import subprocess
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from birdie_tui.tools.entrypoints import to_text

from .bash_fuzz_support import BASH, WORK, run_template

pytestmark = pytest.mark.fuzz

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
SCHEMA = {"type": "object", "properties": {"x": {"type": "string"}}}
SHAPES = {
    "$(…) in quotes": 'printf "%s" "$(printf "%s" {x})"',
    "backticks": 'printf "%s" "`printf "%s" {x}`"',
    "${X:-…}": 'printf "%s" "${UNSET_VAR:-{x}}"',
    "unquoted here-doc": "cat <<EOF\n{x}\nEOF",
    "$'…'": "printf '%s' $'{x}'",
    "arithmetic": 'printf "%s" "$(( {x} + 1 ))"',
}
_PAYLOADS = ("$(touch {M})", "`touch {M}`", "'$(touch {M})'", '"$(touch {M})"', "';touch {M};'",
             '";touch {M};"', "\\'$(touch {M})", "a[$(touch {M})]", "'`touch {M}`'", "$'\\'`touch {M}`'",
             "'\"$(touch {M})\"'", "}$(touch {M})", "\ntouch {M}\n",
             "\\'\\'$(touch {M})\n", "\\''`touch {M}`\\'")
_FILLER = ("", "x", " ", "'", '"', "\\", "$", "}", "{", "-", "\n", "EOF", "*", "~", "$HOME", "%s")


def hostile_values(n: int = 1200) -> list[str]:
    """`n` reproducible hostile values, each with a {M} marker slot."""
    rng = random.Random(14)
    return [rng.choice(_FILLER) + rng.choice(_PAYLOADS) + rng.choice(_FILLER) for _ in range(n)]


def old_render_command(template: str, args: dict, schema: dict | None = None) -> str:
    """birdie-tui's old renderer (values shell-quoted into the command text)."""
    known = set((schema or {}).get("properties") or {}) | set(args)
    out: list[str] = []
    quote: str | None = None
    open_at = 0
    i, n = 0, len(template)
    while i < n:
        c = template[i]
        m = _PLACEHOLDER.match(template, i) if c == "{" else None
        if m and m.group(1) in known:
            value = to_text(args.get(m.group(1)))
            quoted = shlex.quote(value) if (value or quote) else ""
            end = m.end()
            if quote and len(out) == open_at and template.startswith(quote, end):
                out.pop()
                out.append(quoted)
                quote, end = None, end + 1
            elif quote:
                out.append(quote + quoted + quote)
            else:
                out.append(quoted)
            i = end
            continue
        if c == "\\" and quote != "'" and i + 1 < n:
            out.append(template[i:i + 2])
            i += 2
            continue
        out.append(c)
        if quote is None and c in "'\"":
            quote, open_at = c, len(out)
        elif c == quote:
            quote = None
        i += 1
    return "".join(out)


def _case(k: int, value: str, old: bool) -> tuple[str, bool]:
    shape = list(SHAPES)[k % len(SHAPES)]
    mark = WORK / f"escape-{'old' if old else 'new'}-{k}"
    args = {"x": value.replace("{M}", str(mark))}
    folder = WORK / "escapes"
    folder.mkdir(exist_ok=True)
    if old:
        subprocess.run([BASH, "-c", old_render_command(SHAPES[shape], args, SCHEMA)], cwd=folder,
                       capture_output=True, stdin=subprocess.DEVNULL, timeout=30)
    else:
        run_template(SHAPES[shape], args, SCHEMA, folder)
    escaped = mark.exists()
    mark.unlink(missing_ok=True)
    return shape, escaped


def count_escapes(old: bool) -> Counter:
    """Escapes per shape over the 1,200 values (each value goes to one shape, round robin)."""
    with ThreadPoolExecutor(4) as pool:
        results = pool.map(lambda kv: _case(kv[0], kv[1], old), enumerate(hostile_values()))
        return Counter(shape for shape, escaped in results if escaped)


def test_old_renderer_let_values_run_commands_and_the_new_one_does_not():
    """Before: hostile values escape in these shapes. After: none does, over the same 1,200 values."""
    before, after = count_escapes(old=True), count_escapes(old=False)
    assert set(before) == set(SHAPES), before  # every shape let some value through
    assert sum(after.values()) == 0, (dict(before), dict(after))


def test_escape_values_are_reproducible():
    """The measurement runs on the same values every time (a seeded generator)."""
    assert hostile_values() == hostile_values() and len(set(hostile_values())) > 300
    assert Path(WORK).is_dir()
