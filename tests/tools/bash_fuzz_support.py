"""Shared pieces of the bash-argument fuzz tests: hostile values, a marker file, a runner."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import tempfile
from pathlib import Path

from hypothesis import strategies as st

from birdie_tui.tools.bash_args import BashArgumentError, BashTemplateError
from birdie_tui.tools.entrypoints import BASH_COMMAND, bash_env, bash_script

BASH = shutil.which("bash") or "/bin/bash"
# Every payload touches this file: if it ever exists, a value ran a command.
WORK = Path(tempfile.mkdtemp(prefix="birdie-bash-fuzz-"))
atexit.register(shutil.rmtree, WORK, ignore_errors=True)
MARK = WORK / "MARK"
REFUSED = object()

_FRAGMENTS = tuple(f.replace("{M}", str(MARK)) for f in (
    "$(touch {M})", "`touch {M}`", ";touch {M};", " && touch {M}", "|touch {M}", "\ntouch {M}\n",
    "'$(touch {M})'", '"$(touch {M})"', "\\$(touch {M})", "$'\\'$(touch {M})'", "${x:-$(touch {M})}",
    "\\`touch {M}\\`", "a[$(touch {M})]", "x[`touch {M}`]", "'", '"', "\\", "$'\\x41'", "${IFS}", "*",
    "~", "-rf", "-n", "-e", "--", "--help", "$((1))", "}", "{", ")", "(", "EOF", "\n", " ", "\t", "$HOME",
    "{x}", "%s", "!", "#", "=", "<", ">", "&", ";", "|"))
_CHARS = st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",))

hostile = st.one_of(
    st.lists(st.sampled_from(_FRAGMENTS) | st.text(_CHARS, max_size=4), min_size=1, max_size=6).map("".join),
    st.text(_CHARS, max_size=30),
    st.sampled_from(_FRAGMENTS),
)


def safe_name(value: str) -> str:
    """`value` made usable as one file name in a folder (no '/', not '.', '..' or empty, < 200 bytes)."""
    name = value.replace("/", "_").encode()[:200].decode(errors="ignore")
    return name + "_" if name in ("", ".", "..") else name


def stub_dir(*names: str) -> Path:
    """A folder of executables that print their name and arguments, NUL-separated, and run nothing."""
    d = Path(tempfile.mkdtemp(dir=WORK, prefix="stubs-"))
    for name in names:
        p = d / name
        p.write_text(f"#!{BASH}\nprintf '%s\\0' \"${{0##*/}}\" \"$@\"\n")
        p.chmod(0o755)
    return d


def run_template(template: str, args: dict, schema: dict, cwd: Path, path_first: Path | None = None
                 ) -> tuple[bytes | None, str | None]:
    """Run a bash template the way `run_entrypoint` does: (stdout, None), or (None, refusal)."""
    try:
        script, values = bash_script(template, args, schema)
    except (BashTemplateError, BashArgumentError) as exc:
        return None, str(exc)
    env = bash_env(values)
    if path_first is not None:
        env["PATH"] = f"{path_first}:{env.get('PATH', '')}"
    proc = subprocess.run([BASH, *BASH_COMMAND[1:], script], env=env, cwd=cwd, capture_output=True,
                          stdin=subprocess.DEVNULL, timeout=30)
    return proc.stdout, None


def no_marker() -> bool:
    """True if no value ran a command (the marker is removed so one escape is not counted twice)."""
    if MARK.exists():
        MARK.unlink()
        return False
    return True
