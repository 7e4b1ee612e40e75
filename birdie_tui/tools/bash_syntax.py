"""The pieces `bash_lexer` builds while it reads a `bash:` template (and its error)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?")
PARAM = re.compile(r"\$\{([!#]?)([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-]?)")
PARAM_OP = re.compile(r":?[-=+?]")
REDIR = re.compile(r"<<<|<<-|<<|<>|<&|<|>>|>\||>&|>|&>>|&>")
SEP = re.compile(r";;&|;;|;&|&&|\|\||\|&|[;&|]")

KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time", "esac",
            "coproc"}
DECLARE = {"declare", "typeset", "local", "export", "readonly"}
QUOTES = {"sq", "dq", "ansi"}


class BashTemplateError(ValueError):
    """The template puts a placeholder where its value could be run or read as a name."""


@dataclass(eq=False)
class Slot:
    name: str
    style: str  # word | dq | sq | ansi
    line: int
    direct: bool = False  # part of a command word itself (not inside $(…), arithmetic …)
    at_start: bool = False  # nothing literal before it in its word
    option: str | None = None  # the command a leading '-' would be an option of
    echo: bool = False
    assign: str | None = None  # the variable the value is assigned to, if any


# What the lexer emits: template text, or a slot where a placeholder's reference goes.
Piece = str | Slot


@dataclass(eq=False)
class Word:
    start: int
    out_at: int
    slots: list[Slot] = field(default_factory=list)
    literal: bool = False
    expansion: bool = False
    assign: str | None = None
    kind: str = "arg"  # arg | assign | redir
    op: str = ""  # for a redirection target: the operator before it
    heredoc: Heredoc | None = None
    raw: str = ""


@dataclass(eq=False)
class Command:
    words: list[Word] = field(default_factory=list)
    cur: Word | None = None
    redir: str | None = None
    cond: bool = False
    piped: bool = False  # its stdin is the previous command's output

    def args(self) -> list[Word]:
        return [w for w in self.words if w.kind == "arg"]


@dataclass(eq=False)
class Frame:
    kind: str  # top cmdsub btick array | sq dq ansi heredoc | arith arithb subscript | pword pother
    cmd: Command | None = None
    depth: int = 0
    dq: bool = False
    name: str | None = None
    cases: int = 0
    slots: int = 0
    tainted: bool = False

    def command(self) -> Command:
        """The simple command being read: only top, cmdsub, btick and array frames read commands."""
        assert self.cmd is not None, f"a {self.kind} frame reads no command"
        return self.cmd


@dataclass
class Shared:
    slots: list[Slot] = field(default_factory=list)
    evaluates: str | None = None  # bash evaluates text as arithmetic or a name: integers only
    runs: str | None = None  # code is built from expansions: no placeholders at all


@dataclass
class Heredoc:
    delim: str
    strip: bool
    quoted: bool
    out_at: int
    out_end: int
    code: str | None = None  # the interpreter that reads this body as its program


def separator_at(t: str, i: int) -> str:
    """The control operator at `i`: the lexer asks only at one of ;&| (or a <> no redirection takes)."""
    m = SEP.match(t, i)
    assert m is not None, f"no control operator at {t[i:i + 2]!r}"
    return m.group()


def param_at(t: str, i: int) -> tuple[str, str, int]:
    """At "${": the `!` or `#` before the name, the name, and where it ends (each part may be empty)."""
    m = PARAM.match(t, i)
    assert m is not None, "PARAM matches at every ${"
    return m.group(1), m.group(2), m.end()


def plain(w: Word) -> str | None:
    """The word's text after quote removal if it is a plain literal (no placeholder or expansion)."""
    return None if w.slots or w.expansion else unquote(w.raw)


def unquote(raw: str) -> str:
    """Quote removal for a word without expansions: '…', "…" and backslashes, as bash does it."""
    out, q, i = [], "", 0
    while i < len(raw):
        c, nxt = raw[i], raw[i + 1:i + 2]
        if q == "'" and c != "'" or (q == '"' and c not in '"\\'):
            out.append(c)
        elif c == "\\" and nxt and (not q or nxt in '$`"\\\n'):
            out.append("" if nxt == "\n" else nxt)
            i += 1
        elif c in "'\"" and q in ("", c):
            q = "" if q else c
        else:
            out.append(c)
        i += 1
    return "".join(out)


def alone(w: Word) -> bool:
    """The word is one placeholder and nothing else (quotes aside)."""
    return len(w.slots) == 1 and w.slots[0].direct and not w.literal and not w.expansion


def heredoc_end(t: str, j: int, h: Heredoc) -> tuple[int, int]:
    """Where the body starting at `j` ends: (start of the delimiter line, just after it)."""
    while j < len(t):
        k = t.find("\n", j)
        k = len(t) if k < 0 else k
        if (t[j:k].lstrip("\t") if h.strip else t[j:k]) == h.delim:
            return j, min(k + 1, len(t))
        j = k + 1
    return len(t), len(t)


def escaped_body(body: str, known: frozenset[str], line: int) -> list[Piece]:
    """A quoted here-document body for an unquoted one: its text escaped, its placeholders slots."""
    out: list[Piece] = []
    pos = 0
    for m in PLACEHOLDER.finditer(body):
        if m.group(1) in known:
            out.append(re.sub(r"([\\$`])", r"\\\1", body[pos:m.start()]))
            out.append(Slot(m.group(1), "dq", line + body.count("\n", 0, m.start())))
            pos = m.end()
    out.append(re.sub(r"([\\$`])", r"\\\1", body[pos:]))
    return out
