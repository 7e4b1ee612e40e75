"""The lexer behind `bash_args`: where each `{name}` placeholder of a `bash:` template sits.

It walks the template once, tracking the bash contexts that matter (words and simple commands,
'…', "…", $'…', $(…), `…`, ${…}, arithmetic, array subscripts, here-documents) and emits the
template as text pieces and `Slot`s: one per placeholder, with the quoting its context needs and
what the command around it is. `bash_args.apply_rules` judges each finished simple command.
A template construct that makes bash evaluate text (arithmetic, subscripts, indirection) is
recorded in `evaluates`; a placeholder no quoting can make safe raises `BashTemplateError`.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from .bash_syntax import (ASSIGN, DECLARE, KEYWORDS, NAME, PARAM_OP, PLACEHOLDER, QUOTES, REDIR, BashTemplateError,
                          Command, Frame, Heredoc, Piece, Shared, Slot, Word, escaped_body, heredoc_end, param_at,
                          plain, separator_at)

class Lexer:
    def __init__(self, text: str, known: frozenset[str], rules: Callable[[Lexer, Command], None],
                 root: str = "top", shared: Shared | None = None, line0: int = 0):
        self.t, self.known, self.rules, self.i, self.line0 = text, known, rules, 0, line0
        self.out: list[Piece] = []
        self.sh = shared if shared is not None else Shared()
        self.frames = [Frame(root, Command() if root == "top" else None)]
        self.pending: list[Heredoc] = []
        self.steps = {"top": self._top, "cmdsub": self._top, "btick": self._top, "array": self._top,
                      "sq": self._quoted, "dq": self._dq, "heredoc": self._dq, "ansi": self._quoted,
                      "arith": self._arith, "arithb": self._arith, "subscript": self._arith,
                      "pword": self._param, "pother": self._param}

    def run(self) -> list[Piece]:
        while self.i < len(self.t):
            self.steps[self.frames[-1].kind](self.frames[-1])
        while self.frames:  # unterminated constructs: bash rejects them; finish the bookkeeping
            f = self.frames.pop()
            if f.cmd is not None:
                self._end_cmd(f)
        return self.out


    def line(self) -> int:
        return self.line0 + self.t.count("\n", 0, self.i) + 1

    def refuse(self, line: int, what: str) -> None:
        raise BashTemplateError(f"line {line} of the template: {what}")

    def evaluates(self, what: str) -> None:
        self.sh.evaluates = self.sh.evaluates or f"line {self.line()}: {what}"

    def _take(self, n: int, literal: bool = False) -> None:
        self.out.append(self.t[self.i:self.i + n])
        self.i += n
        if literal and (w := self._direct()) is not None:
            w.literal = True

    def _push(self, kind: str, take: int = 0, **kw: Any) -> None:
        self._take(take)
        self.frames.append(Frame(kind, **kw))

    def _direct(self) -> Word | None:
        """The word being read at the innermost command level, if only quotes lie in between."""
        for f in reversed(self.frames):
            if f.cmd is not None:
                return f.cmd.cur
            if f.kind not in QUOTES:
                return None
        return None

    def _word(self, f: Frame) -> Word:
        cmd = f.command()
        cmd.cur = cmd.cur or Word(self.i, len(self.out))
        return cmd.cur

    def _mark_expansion(self) -> None:
        if (w := self._direct()) is not None:
            w.expansion = True

    def _close(self, f: Frame, n: int) -> None:
        if f.cmd is not None:
            self._end_cmd(f)
        self.frames.pop()
        self._take(n)
        if f.kind == "btick" and f.tainted and f.slots:
            self.refuse(self.line(), "a placeholder inside `…` that also holds a backslash "
                                       "cannot be made safe: use $(…) instead")
        for s in (s for w in f.command().words for s in w.slots) if f.kind == "array" else ():
            s.assign = f.name


    def _top(self, f: Frame) -> None:
        t, i, c, cmd = self.t, self.i, self.t[self.i], f.command()
        if c in " \t":
            self._end_word(f)
            self._take(1)
        elif c == "\n":
            self._end_cmd(f)
            self._take(1)
            self._heredocs()
        elif c == "#" and cmd.cur is None:
            j = t.find("\n", i)
            self._take((j if j >= 0 else len(t)) - i)
        elif c in "'\"":
            self._word(f)
            self._push("sq" if c == "'" else "dq", 1)
        elif c == "`":
            self._backtick(f)
        elif c == "$":
            self._word(f)
            self._dollar(dq=False)
        elif c == "{" and self._placeholder("word"):
            pass
        elif c == "\\":
            f.tainted = f.tainted or f.kind == "btick"
            self._word(f)
            self._take(2, literal=True)
        elif cmd.cond and c in "()<>&|":
            self._end_word(f)
            self._take(2 if t.startswith(("&&", "||"), i) else 1)
        elif c in "()":
            self._paren(f, c)
        elif c in ";&|<>":
            self._operator(f)
        elif not ((c == "=" and self._assignment(f)) or (c == "[" and self._subscript(f))):
            self._word(f)
            self._take(1, literal=True)

    def _backtick(self, f: Frame) -> None:
        if f.kind == "btick":
            return self._close(f, 1)
        self._word(f).expansion = True
        self._push("btick", 1, cmd=Command())

    def _paren(self, f: Frame, c: str) -> None:
        if c == "(" and self.t.startswith("((", self.i):  # arithmetic, even as `if((…))`
            self._end_word(f)
            self.evaluates("((…))")
            self._push("arith", 2)
            return
        self._end_cmd(f)
        if c == "(":
            f.depth += 1
            self._take(1)
        elif f.depth == 0 and (f.kind == "array" or (f.kind == "cmdsub" and not f.cases)):
            self._close(f, 1)
        else:
            f.depth = max(0, f.depth - 1)
            self._take(1)

    def _operator(self, f: Frame) -> None:
        t, i = self.t, self.i
        if t[i] in "<>" and t.startswith("(", i + 1):  # process substitution
            self._word(f).expansion = True
            self._push("cmdsub", 2, cmd=Command())
            return
        m = REDIR.match(t, i)
        if m and (t[i] in "<>" or m.group().startswith("&>")):
            w = (cmd := f.command()).cur
            if w is not None and t[w.start:i].isdigit():
                cmd.cur = None  # `2>`: a file descriptor, not a word
            else:
                self._end_word(f)
            cmd.redir = m.group()
            self._take(len(m.group()))
            return
        self._end_cmd(f)
        self._take(len(separator_at(t, i)))
        f.command().piped = self.out[-1] in ("|", "|&")  # the command _end_cmd just began

    def _assignment(self, f: Frame) -> bool:
        w = f.command().cur  # `name=` or `name[subscript]=`, the name literal
        if w is None or w.assign:
            return False
        m = ASSIGN.fullmatch(self.t, w.start, self.i)
        args = f.command().args()
        if not m or (args and plain(args[0]) not in DECLARE):
            return False
        w.assign = m.group(1)
        self._take(1)
        if self.t.startswith("(", self.i):
            self._push("array", 1, cmd=Command(), name=w.assign)
        return True

    def _subscript(self, f: Frame) -> bool:
        w, args = f.command().cur, f.command().args()
        if not (f.kind == "array" and w is None) and not (
                w is not None and not w.slots and not w.expansion and NAME.fullmatch(self.t, w.start, self.i)
                and (not args or plain(args[0]) in DECLARE)):
            return False
        self._word(f)
        self.evaluates("an array subscript")
        self._push("subscript", 1)
        return True

    def _quoted(self, f: Frame) -> None:  # '…' and $'…'
        c = self.t[self.i]
        if c == "\\" and f.kind == "ansi":
            self._take(2, literal=True)
        elif c == "'":
            self._close(f, 1)
        elif not (c == "{" and self._placeholder(f.kind)):
            self._take(1, literal=True)

    def _dq(self, f: Frame) -> None:  # "…", $"…" and unquoted here-document bodies
        c = self.t[self.i]
        if c == '"' and f.kind == "dq":
            self._close(f, 1)
        elif c == "\\":
            self._take(2, literal=True)
        elif c == "$":
            self._dollar(dq=True)
        elif c == "`":
            self._mark_expansion()
            self._push("btick", 1, cmd=Command())
        elif not (c == "{" and self._placeholder("dq")):
            self._take(1, literal=True)

    def _arith(self, f: Frame) -> None:
        t, i, c = self.t, self.i, self.t[self.i]
        close = "))" if f.kind == "arith" else "]"
        if c == ("(" if f.kind == "arith" else "["):
            f.depth += 1
            self._take(1)
        elif f.depth == 0 and t.startswith(close, i):
            self._close(f, len(close))
        elif c == close[0]:
            f.depth = max(0, f.depth - 1)
            self._take(1)
        else:
            self._nested(c, dq=True, style="dq")

    def _param(self, f: Frame) -> None:  # the word of ${X:-word} (pword) or any other operation
        c = self.t[self.i]
        if c == "}":
            self._close(f, 1)
        elif c == "'" and not f.dq:
            self._push("sq", 1)
        else:
            self._nested(c, dq=f.dq, style="dq" if f.dq else "word")

    def _nested(self, c: str, dq: bool, style: str) -> None:
        if c == "$":
            self._dollar(dq=dq)
        elif c == '"':
            self._push("dq", 1)
        elif c == "`":
            self._push("btick", 1, cmd=Command())
        elif c == "\\":
            self._take(2)
        elif not (c == "{" and self._placeholder(style)):
            self._take(1)

    def _dollar(self, dq: bool) -> None:
        t, i = self.t, self.i
        self._mark_expansion()
        if t.startswith("$((", i):
            self.evaluates("$((…))")
            self._push("arith", 3)
        elif t.startswith("$(", i):
            self._push("cmdsub", 2, cmd=Command())
        elif t.startswith("$[", i):
            self.evaluates("$[…]")
            self._push("arithb", 2)
        elif t.startswith("${", i):
            self._param_open(dq)
        elif not dq and t.startswith(("$'", '$"'), i):
            self._push("ansi" if t[i + 1] == "'" else "dq", 2)
        else:
            self._take(1)

    def _param_open(self, dq: bool) -> None:
        t = self.t
        bang, name, j = param_at(t, self.i)
        if name in self.known and not bang and t.startswith("}", j):
            self.refuse(self.line(), f"${{{name}}} is ambiguous (a shell variable, or the argument "
                                       f"{name}?): write {{{name}}} for the argument, ${name} for the variable")
        if bang == "!" and name and not t.startswith(("*", "@", "[@]", "[*]"), j):
            self.evaluates("${!…} (indirect expansion)")
        if t.startswith("[", j):
            k = t.find("]", j)
            k = len(t) if k < 0 else k + 1
            if any(p.group(1) in self.known for p in PLACEHOLDER.finditer(t, j, k)):
                self.refuse(self.line(), "a placeholder in an array subscript would be evaluated as arithmetic")
            if t[j:k] not in ("[@]", "[*]"):
                self.evaluates("an array subscript")
            j = k
        if t.startswith("}", j):
            self._take(j + 1 - self.i)
            return
        op = PARAM_OP.match(t, j)
        if not op and t.startswith(("@P", ":"), j):
            self.evaluates("${…@P}" if t[j] == "@" else "${…:offset}")
        self._take((op.end() if op else j) - self.i)
        self._push("pword" if op else "pother", dq=dq, name=name if op and "=" in op.group() else None)


    def _placeholder(self, style: str) -> bool:
        m = PLACEHOLDER.match(self.t, self.i)
        if not m or m.group(1) not in self.known:
            return False
        s = Slot(m.group(1), style, self.line())
        self.sh.slots.append(s)
        self._attach(s)
        self.out.append(s)
        self.i = m.end()
        return True

    def _attach(self, s: Slot) -> None:
        """Record `s` in the word it belongs to; refuse it where no quoting can make it safe."""
        above: list[str] = []
        for f in reversed(self.frames):
            if f.kind == "pother":
                self.refuse(s.line, f"{{{s.name}}} sits in a ${{…}} operation other than a default "
                                     "value (:-, -, :+, +, :=, =, :?, ?), where it could be evaluated")
            s.assign = s.assign or (f.name if f.kind == "pword" else None)
            f.slots += 1
            if f.cmd is not None:
                if f.cmd.cur is None and "arith" in above:
                    return  # in an `((…))` command: part of no word
                w = self._word(f)
                s.direct = all(k in QUOTES or k == "pword" for k in above)
                s.at_start = s.direct and not w.literal
                w.expansion = w.expansion or not s.direct
                w.slots.append(s)
                return
            above.append(f.kind)

    def _end_word(self, f: Frame) -> None:
        cmd, w = f.command(), f.command().cur
        if w is None:
            return
        cmd.cur, w.raw = None, self.t[w.start:self.i]
        first = not cmd.args()
        if cmd.redir:
            w.op, cmd.redir, w.kind = cmd.redir, None, "redir"
            if w.op in ("<<", "<<-"):
                self._heredoc_word(w, w.op)
        elif w.assign and first:
            w.kind = "assign"
        elif first and not w.slots and not w.expansion and w.raw in KEYWORDS:
            f.cases -= w.raw == "esac" and f.cases > 0
            return  # a keyword: the next word names a command again
        elif first and w.raw in ("case", "[["):
            f.cases += w.raw == "case"
            cmd.cond = w.raw == "[["
        elif cmd.cond and w.raw == "]]":
            cmd.cond = False
        cmd.words.append(w)

    def _end_cmd(self, f: Frame) -> None:
        self._end_word(f)
        if f.kind == "array":
            return
        cmd, f.cmd = f.command(), Command()
        if cmd.words:
            self.rules(self, cmd)


    def _heredoc_word(self, w: Word, op: str) -> None:
        if w.slots:
            self.refuse(w.slots[0].line, f"{{{w.slots[0].name}}} is a here-document delimiter")
        quoted = any(q in w.raw for q in "'\"\\")
        delim = re.sub(r"['\"\\]", "", w.raw)
        w.heredoc = Heredoc(delim, op == "<<-", quoted, w.out_at, len(self.out))
        self.pending.append(w.heredoc)

    def _heredocs(self) -> None:
        pending, self.pending = self.pending, []
        for h in pending:
            end, after = heredoc_end(self.t, self.i, h)
            body, start = self.t[self.i:end], len(self.out)
            if not h.quoted:
                sub = Lexer(body, self.known, self.rules, "heredoc", self.sh,
                            self.line0 + self.t.count("\n", 0, self.i))
                self.out.extend(sub.run())
            elif any(m.group(1) in self.known for m in PLACEHOLDER.finditer(body)):
                self._unquote(h, body)
            else:
                self.out.append(body)
            if h.code and any(isinstance(p, Slot) for p in self.out[start:]):
                self.refuse(self.line(), f"a placeholder in a here-document that {h.code} reads as its program "
                                          "would be parsed as code: pass the value as an argument instead")
            if h.code and not h.quoted and re.search(r"[$`]", body):
                self.sh.runs = self.sh.runs or (f"line {self.line()} of the template: {h.code} runs a "
                                                "here-document that holds $… or `…`")
            self.out.append(self.t[end:after])
            self.i = after

    def _unquote(self, h: Heredoc, body: str) -> None:
        """A quoted here-document (<<'EOF') with placeholders: unquote it, escape its text."""
        if not re.fullmatch(r"[A-Za-z0-9_]+", h.delim):
            self.refuse(self.line(), "a quoted here-document with placeholders needs a plain delimiter "
                                      "(letters, digits, _)")
        self.out[h.out_at:h.out_end] = [h.delim] + [""] * (h.out_end - h.out_at - 1)
        pieces = escaped_body(body, self.known, self.line())
        self.sh.slots.extend(p for p in pieces if isinstance(p, Slot))
        self.out.extend(pieces)
