"""How a permission rule's pattern meets a tool call: shell commands as words, arguments as data.

A shell command (`bash -c '…'` read as the script inside) is split into words as bash splits
them; every simple command is found, those in `$(…)`, backticks, `(…)` and `<(…)` included.
An **allow** pattern matches one simple command, a glob per word (a last word ending in `*`
accepts any further words); a line with more (operators, substitutions, redirections, `${…}`,
a comment) or a control character never matches, so it is asked. A pattern whose only glob
characters are `[*]`, `[?]`, `[[]` (an "always allow this exact command") also matches exactly
its own text, and only that when it holds a quote, `\\`, `$`, `~` or `[`. A **deny** (or
ask) pattern is checked against every simple command, scripts in arguments (`bash -c "…"`)
included: its program may be any word of a command, by basename;
its options are a set of letters (`-rf` = `-r -f`, `--force` = `-f`, case ignored).
Patterns over a tool's arguments (not a shell script: `key=glob`, `key="…", key2=…`) are read
by `rule_args`; `*` is every call. docs/skills.md § Rule patterns.
"""

from __future__ import annotations

import codecs
import fnmatch
import os
import re
from dataclasses import dataclass, field
from typing import Any

from birdie_tui.agent.rule_args import CONTROL, data_match, exact_text, json_args, skip

SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash"})
MAX_NESTING = 64  # nested $( ( ` " deeper than this: the line counts as unparseable
MAX_SCRIPT_DEPTH = 4  # how deep a deny rule looks into scripts passed as arguments
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]")
QUOTING = re.compile(r"['\"\\$~\[]")  # where words could match text bash reads otherwise
SCRIPTY = re.compile(r"[\s;&|$`()<>]")
BRACES = re.compile(r"\{[^{}\s]*(,|\.\.)[^{}\s]*\}")  # {a,b} {1..3}: one word becomes several
RUN, DQ_RUN = re.compile(r"[^\s;&|<>()`\\$'\"#{]*"), re.compile(r"[^\"`\\$]*")


@dataclass
class Command:
    words: list[str] = field(default_factory=list)
    dynamic: list[bool] = field(default_factory=list)  # the word holds an expansion


@dataclass
class Line:
    commands: list[Command] = field(default_factory=list)
    compound: bool = False  # anything beyond words: operators, substitutions, redirections...
    control: bool = False  # a control character anywhere
    broken: bool = False  # unterminated or too deeply nested: bash would not read it as we do

    @property
    def simple(self) -> bool:
        return len(self.commands) == 1 and not (self.compound or self.control or self.broken)


@dataclass
class _Frame:
    kind: str  # top | sub (ends at ")") | tick (ends at "`") | dq (inside "…")
    cmd: Command = field(default_factory=Command)
    cur: list[str] | None = None
    dyn: bool = False
    redirect: bool = False  # the next word is a redirection's target, not an argument


class _Lexer:
    def __init__(self, text: str):
        self.t, self.i, self.n = text, 0, len(text)
        self.line = Line(control=bool(CONTROL.search(text)))
        self.frames = [_Frame("top")]

    def run(self) -> Line:
        while self.i < self.n:
            self._dq() if self.frames[-1].kind == "dq" else self._top(self.frames[-1])
        if len(self.frames) > 1:
            self.line.broken = True
        for f in reversed(self.frames):
            if f.kind != "dq":
                self._end_cmd(f)
        return self.line

    def _add(self, text: str, dyn: bool = False) -> None:
        f = self.frames[-2] if self.frames[-1].kind == "dq" else self.frames[-1]  # a "…" is inside a word
        if f.cur is None:
            f.cur = []
        f.cur.append(text)
        f.dyn = f.dyn or dyn

    def _end_word(self, f: _Frame) -> None:
        if f.cur is None:
            return
        if not f.redirect:
            f.cmd.words.append("".join(f.cur))
            f.cmd.dynamic.append(f.dyn)
        f.cur, f.dyn, f.redirect = None, False, False

    def _end_cmd(self, f: _Frame) -> None:
        self._end_word(f)
        if f.cmd.words:
            self.line.commands.append(f.cmd)
        f.cmd, f.redirect = Command(), False

    def _push(self, kind: str, skip: int) -> None:
        self.i += skip
        if kind != "dq":
            self.line.compound = True
        if len(self.frames) >= MAX_NESTING:
            self.line.broken, self.i = True, self.n
            return
        self.frames.append(_Frame(kind))

    def _top(self, f: _Frame) -> None:
        c = self.t[self.i]
        if c in " \t":
            self._end_word(f)
            self.i += 1
        elif c in "\n;&|":
            self._end_cmd(f)
            self.line.compound = True
            self.i += 1
        elif c in "<>":
            self._redirect(f)
        elif c == "(":
            self._end_cmd(f)
            self._push("sub", 1)
        elif c == ")" or (c == "`" and f.kind == "tick"):
            self._close(f, c)
        elif c == "`":
            self._add("`", dyn=True)
            self._push("tick", 1)
        elif c == "#" and f.cur is None:
            self.line.compound = True
            end = self.t.find("\n", self.i)
            self.i = self.n if end < 0 else end
        else:
            self._word_char(c, dq=False)

    def _close(self, f: _Frame, c: str) -> None:
        self.i += 1
        if (c == ")") != (f.kind == "sub"):  # a ")" with no "(": bash refuses the line
            self.line.broken = True
        else:
            self._end_cmd(f)
            self.frames.pop()

    def _word_char(self, c: str, dq: bool) -> None:
        if c == "\\":
            nxt = self.t[self.i + 1:self.i + 2]
            if nxt == "\n":
                self._add("")
            elif dq and nxt not in ('$', '`', '"', '\\'):
                self._add("\\" + nxt)
            else:
                self._add(nxt)
            self.i += 2
        elif c == "$":
            self._dollar(dq)
        elif c == "'" and not dq:
            self._single_quote()
        elif c == '"':
            self._add("")
            self._push("dq", 1)
        else:
            if c == "{" and not dq and BRACES.match(self.t, self.i):
                self.line.compound = True
            end = skip(DQ_RUN if dq else RUN, self.t, self.i + 1)  # plain text in one step
            self._add(self.t[self.i:end])
            self.i = end

    def _dq(self) -> None:
        c = self.t[self.i]
        if c == '"':
            self.frames.pop()
            self.i += 1
        elif c == "`":
            self._add("`", dyn=True)
            self._push("tick", 1)
        else:
            self._word_char(c, dq=True)

    def _single_quote(self) -> None:
        end = self.t.find("'", self.i + 1)
        if end < 0:
            self.line.broken, end = True, self.n
        self._add(self.t[self.i + 1:end])
        self.i = end + 1

    def _dollar(self, dq: bool) -> None:
        nxt = self.t[self.i + 1:self.i + 2]
        if nxt == "(":
            self._add("$(", dyn=True)
            self._push("sub", 2)
        elif nxt == "{":
            self.line.compound = True
            end = _closing_brace(self.t, self.i + 1)
            if end < 0:
                self.line.broken, end = True, self.n - 1
            self._add(self.t[self.i:end + 1], dyn=True)
            self.i = end + 1
        elif nxt == "'" and not dq:
            self.line.compound = True
            self._ansi_c_quote()
        elif nxt == '"' and not dq:
            self.i += 1  # $"…" is "…" translated
        elif m := NAME.match(self.t, self.i + 1):
            self._add(self.t[self.i:m.end()], dyn=True)
            self.i = m.end()
        else:
            self._add("$")
            self.i += 1

    def _ansi_c_quote(self) -> None:
        j = self.i + 2
        while j < self.n and self.t[j] != "'":
            j += 2 if self.t[j] == "\\" else 1
        if j >= self.n:
            self.line.broken = True
        body = self.t[self.i + 2:j]
        try:
            body = codecs.decode(body.encode("utf-8", "surrogatepass"), "unicode_escape")
        except (UnicodeError, ValueError):
            pass
        self._add(body)
        self.i = j + 1

    def _redirect(self, f: _Frame) -> None:
        self.line.compound = True
        if f.cur is not None and "".join(f.cur).isdigit() and not f.dyn:
            f.cur = None  # the fd of 2>, not a word
        else:
            self._end_word(f)
        if self.t[self.i + 1:self.i + 2] == "(":  # <(…) >(…): a command runs
            self._add("<(", dyn=True)
            self._push("sub", 2)
            return
        self.i += 1
        while self.i < self.n and self.t[self.i] in "<>&|-":
            self.i += 1
        f.redirect = True


def _closing_brace(text: str, start: int) -> int:
    depth = 0
    for j in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return j
    return -1


def parse(text: str) -> Line:
    """The simple commands of a shell line, and whether it is anything more than one."""
    return _Lexer(text).run()


def script_of(text: str) -> str | None:
    """The script of `bash -c 'script'` (what the bundled run_bash renders), else None."""
    line = parse(text)
    if len(line.commands) != 1 or line.compound or line.broken:
        return None  # a control character inside the quoted script is the script's own
    cmd = line.commands[0]
    if len(cmd.words) != 3 or cmd.words[1] != "-c" or any(cmd.dynamic) \
            or os.path.basename(cmd.words[0]) not in SHELLS:
        return None
    return cmd.words[2]


def unwrap(text: str) -> str:
    """The script inside `bash -c '…'` (up to three deep), else the text."""
    for _ in range(3):
        if (script := script_of(text)) is None:
            break
        text = script
    return text


def _data_match(pattern: str, command: str, args: dict[str, Any] | None, allow: bool) -> bool | None:
    """A pattern read against the arguments as data; None when it is a shell-words pattern: a
    shell tool's script (`bash -c …`) is never matched as text."""
    data = json_args(command)
    if data is None and unwrap(command) != command:
        return None
    return data_match(pattern, command, data, args, allow)


def allow_matches(pattern: str, command: str, args: dict[str, Any] | None = None) -> bool:
    """Whether an allow rule's pattern lets this call run without asking."""
    if pattern.strip() == "*":
        return True  # `tool(*)` is `tool`: every call
    if (hit := _data_match(pattern, command, args, allow=True)) is not None:
        return hit
    pattern, command = unwrap(pattern), unwrap(command)
    exact = exact_text(pattern)
    if exact is not None and (exact == command or QUOTING.search(pattern)):
        return exact == command  # `rm '[*]'` or `rm '~'` must not match `rm *` or `rm ~`
    want, got = parse(pattern), parse(command)
    if not (want.simple and got.simple):
        return False
    return _words_match(want.commands[0].words, got.commands[0])


def _words_match(pattern: list[str], cmd: Command) -> bool:
    rest = pattern[-1].endswith("*") and not pattern[-1].endswith("[*]")
    fixed = pattern[:-1] if pattern[-1] == "*" else pattern
    if len(cmd.words) < len(fixed) or (not rest and len(cmd.words) != len(fixed)):
        return False
    return all(not dyn and fnmatch.fnmatchcase(word, glob)
               for glob, word, dyn in zip(fixed, cmd.words, cmd.dynamic))


def deny_matches(pattern: str, command: str, args: dict[str, Any] | None = None) -> bool:
    """Whether a deny (or ask) rule's pattern catches this call, however the line is written."""
    if (hit := _data_match(pattern, command, args, allow=False)) is not None:
        return hit
    if fnmatch.fnmatchcase(command, pattern):
        return True
    if (exact := exact_text(unwrap(pattern))) is not None and exact == unwrap(command):
        return True
    want = parse(unwrap(pattern))
    if want.broken or len(want.commands) != 1:
        return False
    words = want.commands[0].words
    line = _deep(command, 0)
    if any(_caught(words, cmd) for cmd in line.commands):
        return True
    program = re.sub(r"[*?\[\]]", "", words[0])
    return line.broken and bool(program) and bool(
        re.search(rf"(?<![\w.-]){re.escape(program)}(?![\w.-])", command))


def _deep(text: str, depth: int) -> Line:
    """`parse`, with every argument that looks like a script parsed too (for deny rules)."""
    line = parse(text)
    if depth < MAX_SCRIPT_DEPTH:
        for cmd in list(line.commands):
            for word in cmd.words[1:]:
                if SCRIPTY.search(word):
                    inner = _deep(word, depth + 1)
                    line.commands.extend(inner.commands)
                    line.broken = line.broken or inner.broken
    return line


def _caught(pattern: list[str], cmd: Command) -> bool:
    program, wanted = pattern[0], pattern[1:]
    for k, word in enumerate(cmd.words):
        if cmd.dynamic[k] or fnmatch.fnmatchcase(word, program) \
                or fnmatch.fnmatchcase(os.path.basename(word), program):
            if _has_all(wanted, cmd.words[k + 1:]):
                return True
    return False


def _letters(word: str) -> set[str]:
    if word.startswith("--"):
        return {word[2].lower()} if len(word) > 2 and word[2] not in "*?[" else set()
    return {c.lower() for c in word[1:] if c not in "*?[]"}


def _has_all(wanted: list[str], words: list[str]) -> bool:
    letters: set[str] = set()
    for word in words:
        if word == "--":
            break
        if word.startswith("-") and len(word) > 1:
            letters |= _letters(word)
    for glob in wanted:
        if not glob.strip("*"):
            continue
        if glob.startswith("-") and len(glob) > 1:
            if not _letters(glob) <= letters:
                return False
        elif not any(fnmatch.fnmatchcase(w, glob) for w in words):
            return False
    return True


__all__ = ["Line", "allow_matches", "deny_matches", "exact_text", "json_args", "parse", "script_of",
           "unwrap"]
