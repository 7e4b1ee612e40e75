"""`bash:` arguments travel out of band: a value never becomes shell text.

`compile_template` reads a template once (`bash_lexer`) and puts, in place of each `{name}`, a
reference to an environment variable quoted as its context needs: `"${V}"` in a bare word (one
argument, even when empty), `${V}` inside "…", a here-document or arithmetic, `'"${V}"'` inside
'…', `'"${V}"$'` inside $'…'; a quoted here-document (<<'EOF') with placeholders is unquoted and
its text escaped. Bash never parses a variable's value again, except where it evaluates text as
arithmetic or as a variable name, so:

- a template with any such construct (`$((…))`, `((…))`, `let`, `[[ … -eq … ]]`, `-v`, array
  subscripts, `declare -i`/`-n`, `${!x}`, `${x@P}`, `${x:offset}`, RANDOM/OPTIND/… assignments)
  takes whole numbers only, for every argument, since values can reach it through variables;
- a placeholder where no quoting helps is refused (`BashTemplateError`): names given to
  read/unset/declare/printf -v/…, assignments to PATH, IFS, PS4, BASH_ENV, LD_*…, code embedded
  in `eval "…"`, `bash -c "…"`, `python3 -c "…"`, awk/sed programs, ssh commands or a here-document
  an interpreter reads, `${x/…}`-style operations, array subscripts, here-document delimiters,
  `>&` targets (bash expands them twice), `…` holding backslashes, `${name}`, and a placeholder
  naming the command; a template with placeholders may not build code from `$…` either;
- a value starting with '-' where it would be an option of its command (see `_leading_dash`).

`bind` checks every value (`BashArgumentError`) and returns the script plus its variables.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from .bash_lexer import Lexer
from .bash_syntax import DECLARE, PLACEHOLDER, BashTemplateError, Command, Piece, Slot, Word, alone, plain

__all__ = ["BashArgumentError", "BashPlan", "BashTemplateError", "ENV_PREFIX", "bind", "compile_template",
           "preview", "template_problem"]

ENV_PREFIX = "BIRDIE_ARG_"
_INTEGER = re.compile(r"[+-]?[0-9]+")
_ECHO_OPTION = re.compile(r"-[neE]+")
_NAME_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_PATH_WORDS = {"path", "paths", "file", "files", "filename", "filenames", "filepath", "dir", "dirs",
               "directory", "directories", "dirname", "folder", "folders"}
_NO_OPTIONS = {"for", "select", "case", "function", "[[", "let"} | DECLARE
_NAME_TAKERS = {"read", "mapfile", "readarray", "unset", "getopts", "wait"}
_CODE_TAKERS = {"alias", "hash", "enable", "complete", "bind", "fc"}
_WRAPPERS = {"exec", "env", "sudo", "doas", "nohup", "nice", "timeout", "xargs", "stdbuf", "setsid", "chroot"}
SENSITIVE = {"PATH", "IFS", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "BASH_ENV", "ENV", "SHELLOPTS",
             "BASHOPTS", "CDPATH", "GLOBIGNORE", "BASH_XTRACEFD", "EXECIGNORE", "BASH_LOADABLES_PATH",
             "POSIXLY_CORRECT"}
_CODE_VARS = {"PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "BASH_ENV", "ENV"}  # their values are run
INT_VARS = {"RANDOM", "SRANDOM", "OPTIND", "HISTCMD"}  # an assignment evaluates arithmetic
_TEST_EVAL = {"-v", "-R"}
_COND_EVAL = {"-eq", "-ne", "-lt", "-le", "-gt", "-ge"} | _TEST_EVAL
# runners of code: the option letters that take a program (else they read one from a file or stdin)
_INTERPRETERS = {"bash": "c", "sh": "c", "dash": "c", "zsh": "c", "ksh": "c", "mksh": "c", "ash": "c",
                 "python": "c", "perl": "eE", "ruby": "e", "node": "ep"}
_SSH_ARG = {"-" + c for c in "BbcDEeFIiJLlmOopQRSWw"}  # ssh options that take an argument
_PROGRAMS = {"awk", "gawk", "mawk", "nawk", "sed"}
_PROGRAM_OPTIONS = {"-e", "--expression", "-f", "--file", "-F", "-v"}  # each takes an argument
_REFS = {"word": '"${%s}"', "dq": "${%s}", "sq": "'\"${%s}\"'", "ansi": "'\"${%s}\"$'"}
_ENV_STRING_MAX = 131072  # Linux MAX_ARG_STRLEN: the longest "NAME=value" a process can receive


class BashArgumentError(ValueError):
    """A value this template cannot take (NUL byte, option-like, not a whole number where one must be)."""


@dataclass(frozen=True)
class BashPlan:
    parts: tuple[Piece, ...]  # in template order
    slots: tuple[Slot, ...]
    evaluates: str | None  # why every value must be a whole number ("line 2: $((…))"), if it must


@lru_cache(maxsize=256)
def compile_template(template: str, known: frozenset[str]) -> BashPlan:
    """The template with its placeholders (names in `known`) as slots; `BashTemplateError` if refused."""
    m = PLACEHOLDER.fullmatch(template.strip())
    if m and m.group(1) in known:  # `bash:{command}`: the value is the command line, as Birdie runs it
        s = Slot(m.group(1), "word", 1)
        return BashPlan(("eval -- ", s), (s,), None)
    lexer = Lexer(template, known, apply_rules)
    parts = tuple(p for p in lexer.run() if p != "")
    slots = tuple(p for p in parts if isinstance(p, Slot))
    for s in slots:
        if s.assign and (s.assign in SENSITIVE or s.assign.startswith(("LD_", "DYLD_"))):
            raise BashTemplateError(f"line {s.line} of the template: {{{s.name}}} would be assigned to "
                                    f"{s.assign}, which bash or the dynamic loader acts on")
    if slots and lexer.sh.runs:
        raise BashTemplateError(f"{lexer.sh.runs}: a template with placeholders cannot do that, since a "
                                "value could become that code")
    evaluates = lexer.sh.evaluates or next(
        (f"line {s.line}: an assignment to {s.assign}" for s in slots if s.assign in INT_VARS), None)
    return BashPlan(parts, slots, evaluates)


def template_problem(template: str, schema: dict[str, Any] | None) -> str | None:
    """Why a `bash:` template can never run, whatever the values (for a load-time report), or None."""
    try:
        compile_template(template, frozenset((schema or {}).get("properties") or {}))
    except BashTemplateError as exc:
        return str(exc)
    return None


def bind(plan: BashPlan, values: dict[str, str], props: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """(script, variables): each slot's checked value in `BIRDIE_ARG_<n>_<name>`, never in the script.

    `values` are the arguments as text (a missing one is empty); `props` the schema's properties.
    The variables are un-exported first thing, so the commands the script runs do not inherit them."""
    env: dict[str, str] = {}
    refs: dict[int, str] = {}
    for k, s in enumerate(plan.slots):
        var = f"{ENV_PREFIX}{k}_{s.name}"
        prop = props.get(s.name)
        env[var] = _checked(plan, s, values.get(s.name) or "", prop if isinstance(prop, dict) else {})
        refs[id(s)] = _REFS[s.style] % var
    script = "".join(p if isinstance(p, str) else refs[id(p)] for p in plan.parts)
    return (f"export -n {' '.join(env)}; {script}" if env else script), env


def preview(plan: BashPlan, values: dict[str, str], props: dict[str, Any]) -> str:
    """The command with its (checked) values written in, shell-quoted: for people to read; never run."""
    shown = iter(bind(plan, values, props)[1].values())
    quote: dict[str, Callable[[str], str]] = {"word": shlex.quote, "sq": lambda v: f"'{shlex.quote(v)}'", "ansi": lambda v: f"'{shlex.quote(v)}$'",
             "dq": lambda v: re.sub(r'([\\$`"])', r"\\\1", v)}
    return "".join(p if isinstance(p, str) else quote[p.style](next(shown)) for p in plan.parts)


def _checked(plan: BashPlan, s: Slot, value: str, prop: dict[str, Any]) -> str:
    name = s.name
    if "\x00" in value:
        raise BashArgumentError(f"argument '{name}' contains a NUL byte, which no command argument can carry")
    try:
        size = len(os.fsencode(value))
    except UnicodeEncodeError:
        raise BashArgumentError(f"argument '{name}' is not valid text (it holds a lone surrogate)") from None
    if size + len(ENV_PREFIX) + len(name) + 8 >= _ENV_STRING_MAX:
        raise BashArgumentError(f"argument '{name}' is too long for a command ({size} bytes; the limit "
                                f"is {_ENV_STRING_MAX // 1024} KiB)")
    if plan.evaluates and not _INTEGER.fullmatch(value):
        raise BashArgumentError(f"argument '{name}' must be a whole number: this command evaluates text as "
                                f"arithmetic or as a variable name ({plan.evaluates}), where other text "
                                f"could run commands; got {_short(value)}")
    if s.option and value.startswith("-"):
        return _leading_dash(s, value, prop)
    return value


def _leading_dash(s: Slot, value: str, prop: dict[str, Any]) -> str:
    """A value starting with '-' that would stand at the start of an argument of `s.option`:
    passed as is if the property says `x-allow-option: true`; for echo, refused only if echo would
    take it as an option (-n, -e, -E); for a path-like property, written `./-…`; else refused."""
    if prop.get("x-allow-option") is True or (s.echo and not _ECHO_OPTION.fullmatch(value)):
        return value
    if not s.echo and _path_like(s.name, prop):
        return "./" + value
    if s.echo:
        fix = f"print it with printf '%s\\n' {{{s.name}}} rather than echo"
    elif s.option in ("[", "test"):
        fix = "compare it inside [[ … ]] rather than [ … ]"
    else:
        fix = f"put `--` before {{{s.name}}}, or attach it to its option (--option={{{s.name}}})"
    raise BashArgumentError(f"argument '{s.name}' is {_short(value)}: it starts with '-', so {s.option} would "
                            f"read it as an option; the tool must {fix}, or mark the property "
                            "`x-allow-option: true`")


def _path_like(name: str, prop: dict[str, Any]) -> bool:
    """`format: path`, or a string property named like a path (path, file, dir, folder …)."""
    if prop.get("format") == "path":
        return True
    kind = prop.get("type", "string")
    if kind != "string" and not (isinstance(kind, list) and "string" in kind):
        return False
    return any(part.lower() in _PATH_WORDS for part in _NAME_PARTS.findall(name))


def _short(value: str) -> str:
    return repr(value if len(value) <= 40 else value[:40] + "…")


# ---------------------------------------------------------------------------- command rules


def apply_rules(lx: Lexer, cmd: Command) -> None:
    """Judge one finished simple command: what each of its placeholders is to the command."""
    for w in cmd.words:
        if w.kind == "assign":
            _assign(lx, w.assign, [w])
        elif w.op in (">&", "<&"):  # bash expands a non-numeric `>&word` target a second time
            _duplication(lx, w)
    args = cmd.args()
    if not args:
        return
    lits = [plain(w) for w in args]
    k = 0
    while k < len(args) - 1 and lits[k] in ("command", "builtin"):
        k += 1
        while k < len(args) - 1 and (lits[k] or "").startswith("-"):
            k += 1
    name, rest, rl = lits[k], args[k + 1:], lits[k + 1:]
    if name is None:  # the command is chosen at run time: it could be eval, read, a value …
        _names_command(lx, args[k])
        _runs(lx, "a command is named by an expansion")
    if name in _WRAPPERS:  # env, sudo, xargs … {x}: the value names the program
        for w, lit in zip(rest, rl):
            _names_command(lx, w)
            if lit is None or not (lit[:1] == "-" or "=" in lit or lit.isdigit()):
                break
    _builtins(lx, name, rest, rl)
    runner = _code(lx, args[k:], lits[k:])
    if runner is not None:
        _stdin_code(lx, cmd, runner)
    if name not in _NO_OPTIONS:
        _exposure(name, rest, rl)


def _assign(lx: Lexer, name: str | None, words: list[Word]) -> None:
    if name is None:
        return
    for s in (s for w in words for s in w.slots):
        s.assign = s.assign or name
    if name in INT_VARS:
        lx.evaluates(f"an assignment to {name}")
    if name in _CODE_VARS and any(w.expansion for w in words):
        _runs(lx, f"{name} is set from an expansion, and bash runs its value")


def _names_command(lx: Lexer, w: Word) -> None:
    if w.slots:
        lx.refuse(w.slots[0].line, f"{{{w.slots[0].name}}} would name the command to run, so a value could "
                                   "pick any program or builtin (eval, read …); only a template that is nothing "
                                   "but {name} runs a value as a command line")


def _duplication(lx: Lexer, w: Word) -> None:
    if w.slots:
        lx.refuse(w.slots[0].line, f"{{{w.slots[0].name}}} is the target of {w.op}, which bash expands twice "
                                   "(a value there could run commands)")
    if w.expansion:
        _runs(lx, f"the target of {w.op} holds $…, which bash expands twice")


def _runs(lx: Lexer, what: str) -> None:
    lx.sh.runs = lx.sh.runs or f"line {lx.line()} of the template: {what}"


def _builtins(lx: Lexer, name: str | None, rest: list[Word], rl: list[str | None]) -> None:
    """Builtins that evaluate their arguments as arithmetic, variable names or code."""
    ops = {l for l in rl if l is not None} & (_TEST_EVAL if name in ("test", "[") else _COND_EVAL if name == "[[" else set())
    if name == "let" or ops:
        lx.evaluates(f"`{name} … {min(ops)} …`" if ops else "`let …`")
    if name in ("mapfile", "readarray") and "-C" in rl:
        _runs(lx, f"{name} -C runs a callback on the lines it reads")
    if name in DECLARE or name in _NAME_TAKERS:
        if name in DECLARE and any(l and l[0] in "-+" and ("i" in l or "n" in l) for l in rl):
            lx.evaluates(f"`{name} -i/-n`")
        for w in rest:
            if w.assign and name in DECLARE:
                _assign(lx, w.assign, [w])
            elif w.slots and (name != "wait" or "-p" in rl):
                lx.refuse(w.slots[0].line, f"{{{w.slots[0].name}}} is an argument of {name}, which reads it "
                                           "as a variable name")
            elif w.expansion or "[" in w.raw or w.raw in INT_VARS:
                lx.evaluates(f"`{name}` given a name built from an expansion or with a subscript")
    elif name == "printf":
        _printf(lx, rest, rl)
    elif name in ("for", "select") and rl:
        _assign(lx, rl[0], rest[1:])
    elif name in ("eval", "trap"):  # the code they run is the template's own: read it too
        texts: list[str] = []
        for j, w in enumerate(rest[:1] if name == "trap" else rest):
            if w.slots and not (j == 0 and alone(w)):
                lx.refuse(w.slots[0].line, f"{{{w.slots[0].name}}} is part of the code {name} runs; only "
                                           f"`{name} {{{w.slots[0].name}}}` (the whole value as code) is allowed")
            if not w.slots and (lit := plain(w)) is not None:
                texts.append(lit)
            elif not w.slots:
                _runs(lx, f"{name} runs code that holds $…")
        _inner_code(lx, " ".join(texts))
    elif name in _CODE_TAKERS and (slots := [s for w in rest for s in w.slots]):
        lx.refuse(slots[0].line, f"{{{slots[0].name}}} is an argument of {name}, which makes it code or a "
                                 "program bash runs")


def _inner_code(lx: Lexer, text: str) -> None:
    """Literal code run by eval, trap or a nested shell (bash -c '…'): its constructs count as the
    template's own (arithmetic there makes every argument integer-only, and so on)."""
    Lexer(text, frozenset(), apply_rules, shared=lx.sh, line0=lx.line() - 1).run()


def _printf(lx: Lexer, rest: list[Word], rl: list[str | None]) -> None:
    j = 0
    while j < len(rl) and (lit := rl[j]) and lit.startswith("-") and lit != "--":
        if lit.startswith("-v"):
            target = lit[2:] or (rl[j + 1] if j + 1 < len(rl) else None)
            if not lit[2:] and j + 1 < len(rest) and rest[j + 1].slots:
                s = rest[j + 1].slots[0]
                lx.refuse(s.line, f"{{{s.name}}} would name the variable printf -v sets")
            if not target or "[" in target:
                lx.evaluates("`printf -v` given a name built from an expansion or with a subscript")
            _assign(lx, target, rest)
            j += 1
        j += 1


def _code(lx: Lexer, args: list[Word], lits: list[str | None]) -> str | None:
    """Check the words a runner of code (bash/sh/python/perl/ruby/node, awk, sed, ssh; also behind
    env, sudo, xargs, find -exec …) takes as its program. A placeholder may be such a word whole
    (the template runs the value), never part of one. Returns the runner if it reads its program
    from stdin."""
    for p, lit in enumerate(lits):
        base = re.sub(r"[0-9.]+$", "", lit.rsplit("/", 1)[-1]) if lit else ""
        if base in _INTERPRETERS or base in _PROGRAMS or base == "ssh":
            break
    else:
        return None
    words, reads_stdin = _program_words(base, args[p + 1:], lits[p + 1:])
    for w in words:
        if w.slots and not (alone(w) and (base != "ssh" or len(words) == 1)):
            s = w.slots[0]
            how = ("ssh joins its command words into one line that the remote shell parses" if base == "ssh"
                   else f"{base} would parse the value as code")
            lx.refuse(s.line, f"{{{s.name}}} is embedded in the code {base} runs: {how}; pass the value as an "
                              f"argument of its own (bash -c '… \"$1\"' _ {{{s.name}}}, python3 -c "
                              f"'… sys.argv[1]' {{{s.name}}}, awk -v v={{{s.name}}})")
        if w.expansion and not w.slots:
            _runs(lx, f"{base} runs code that holds $… or `…`")
        elif (base in _INTERPRETERS and _INTERPRETERS[base] == "c" and base != "python" and not w.slots
              and (code := plain(w)) is not None):  # no slots and no expansion: a literal
            _inner_code(lx, code)
    return base if reads_stdin else None


def _program_words(base: str, rest: list[Word], rl: list[str | None]) -> tuple[list[Word], bool]:
    """(the words `base` runs as code, whether it reads its program from stdin)."""
    dash = [(l if l is not None else w.raw).startswith("-") and l != "-" for w, l in zip(rest, rl)]
    if base == "ssh":
        j = 0
        while j < len(rest) and dash[j]:
            j += 1 + (rl[j] in _SSH_ARG)
        return rest[j + 1:], len(rest) <= j + 1
    if base in _INTERPRETERS:
        flag = next((j for j, l in enumerate(rl) if dash[j] and l and not l.startswith("--")
                     and set(l[1:]) & set(_INTERPRETERS[base])), None)
        if flag is not None:
            return [w for j, w in enumerate(rest) if j > flag and not dash[j]][:1], False
        operands = [rl[j] for j in range(len(rest)) if not dash[j]]
        return [], not operands or operands[0] == "-"
    out, given, j = [], False, 0
    while j < len(rest):
        if rl[j] in _PROGRAM_OPTIONS:
            if rl[j] in ("-e", "--expression") and j + 1 < len(rest):
                out.append(rest[j + 1])
            given = given or rl[j] not in ("-F", "-v")
            j += 2
        elif dash[j]:
            j += 1
        else:
            return (out if given else out + [rest[j]]), False
    return out, False


def _stdin_code(lx: Lexer, cmd: Command, runner: str) -> None:
    """`runner` reads its program from stdin: a here-document or here-string there is code."""
    if cmd.piped:
        _runs(lx, f"text is piped into {runner}, which runs it")
    for w in cmd.words:
        if w.heredoc is not None:
            w.heredoc.code = runner
        elif w.op == "<<<" and w.slots and not alone(w):
            lx.refuse(w.slots[0].line, f"{{{w.slots[0].name}}} is embedded in a here-string {runner} reads as "
                                       "its program: pass the value as an argument instead")
        elif w.op == "<<<" and w.expansion:
            _runs(lx, f"{runner} runs a here-string that holds $… or `…`")


def _exposure(name: str | None, rest: list[Word], rl: list[str | None]) -> None:
    """Mark placeholders that start an argument while `name` may still read options."""
    ended = False
    for j, w in enumerate(rest):
        lit = rl[j]
        if not ended:
            for s in w.slots:
                if s.direct and s.at_start:
                    s.option, s.echo = name or "the command", name == "echo"
        if name == "echo":  # echo reads leading -n/-e/-E words only
            ended = ended or not (lit and _ECHO_OPTION.fullmatch(lit))
        elif name == "printf":  # printf reads options up to its format
            ended = ended or lit == "--" or not ((lit or "x").startswith("-") or (j and rl[j - 1] == "-v"))
        elif name not in ("test", "["):  # test has no `--`
            ended = ended or lit == "--"
