"""Fuzz: no argument value, in any bash context a template can give it, runs a command.

Every hostile value carries payloads that touch a marker file; the marker must never appear.
Where the context is safe the command must also receive the value byte for byte. Covers the
bundled tools, every bash tool of the original Birdie 0.1.5, and awkward templates that put a
placeholder in each context the renderer knows (quotes, $'…', $(…), backticks, ${…:-…},
here-documents, here-strings, case, [[ ]], for, arrays, functions, arithmetic).
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from birdie_tui.skills import bundled_skills_dir, load_skills
from birdie_tui.tools.entrypoints import bash_script

from ..compat.conftest import birdie_env  # noqa: F401  (the session fixture: the real Birdie's venv)
from .bash_fuzz_support import MARK, REFUSED, WORK, hostile, no_marker, run_template, safe_name, stub_dir

X = {"type": "object", "properties": {"x": {"type": "string"}}}
CWD = WORK / "cwd"
CWD.mkdir(exist_ok=True)
STUBS = stub_dir("ls", "cat", "grep", "mkdir", "bash")
_ECHO_OPTION = re.compile(r"-[neE]+")


def _same(v):
    return v


def _no_dash(f):
    return lambda v: REFUSED if v.startswith("-") else f(v)


def _strip(v):
    return v.rstrip("\n")


def _echo(v):
    return REFUSED if _ECHO_OPTION.fullmatch(v) else v + "\n"


# (template, expected output for value v, or REFUSED)
AWKWARD = [
    ("printf '%s' {x}", _same),
    ("printf '%s' \"{x}\"", _same),
    ("printf '%s' '{x}'", _same),
    ("printf '%s' \"a{x}b\"", lambda v: f"a{v}b"),
    ("printf '%s' 'a{x}b'", lambda v: f"a{v}b"),
    ("printf '%s' $'a\\t{x}\\n'", lambda v: f"a\t{v}\n"),
    ("printf '%s' {x}{x}\"{x}\"'{x}'", lambda v: v * 4),
    ("printf -- '%s' {x}", _same),
    ("printf '%s' \"$(printf '%s' {x})\"", _strip),
    ("printf '%s' \"a $(printf '%s' \"{x}\") b\"", lambda v: f"a {_strip(v)} b"),
    ("printf '%s' \"`printf '%s' {x}`\"", _strip),
    ("printf '%s' `printf '%s' \"{x}\" | od -An -tx1 | tr -d '[:space:]'`", lambda v: v.encode().hex()),
    ("printf '%s' \"${UNSET_VAR:-{x}}\"", _same),
    ("printf '%s' ${UNSET_VAR:-{x}}", _same),
    ("printf '%s' \"${UNSET_VAR-'{x}'}\"", lambda v: f"'{v}'"),
    ("printf '%s' ${UNSET_VAR-'{x}'}", _same),
    ("printf '%s' \"${UNSET_VAR:-\"{x}\"}\"", _same),
    ("SET_VAR=1; printf '%s' \"${SET_VAR:+{x}}\"", _same),
    ("printf '%s' \"${#UNSET_VAR}{x}\"", lambda v: "0" + v),
    ("printf '%s' \"$'{x}'\" # {x}", lambda v: f"$'{v}'"),
    ("cat <<EOF\n<{x}>\nEOF", lambda v: f"<{v}>\n"),
    ("cat <<'EOF'\n$HOME `x` \\ {x}\nEOF", lambda v: f"$HOME `x` \\ {v}\n"),
    ("cat <<-EOF\n\t{x}\n\tEOF", lambda v: v + "\n"),
    ("printf '%s' \"$(cat <<EOF\n{x}\nEOF\n)\"", _strip),
    ("cat <<< {x}", lambda v: v + "\n"),
    ("cat <(printf '%s' {x})", _same),
    ("v={x}; printf '%s' \"$v\"", _same),
    ("export V2={x}; bash -c 'printf \"%s\" \"$V2\"'", _same),
    ("a=({x} z); printf '%s|' \"${a[@]}\"", lambda v: f"{v}|z|"),
    ("case {x} in *) printf '%s' {x};; esac", _same),
    ("[[ {x} == {x} ]] && printf ok", lambda v: "ok"),
    ("for i in {x}; do printf '%s' \"$i\"; done", _same),
    ("{ printf '%s' {x}; }", _same),
    ("if true; then printf '%s' {x}; fi", _same),
    ("printf '%s' \"{x}\" | cat", _same),
    ("r=$(case a in a) printf '%s' {x};; esac); printf '%s' \"$r\"", _strip),
    ("f() { printf '%s' \"$1\"; }; f {x}", _no_dash(_same)),
    ("sh -c 'printf \"%s\" \"$1\"' sh {x}", _no_dash(_same)),
    ("echo {x}", _echo),
    ("echo \"{x}\" > out; cat out", _echo),
]

# whole numbers only: the template evaluates arithmetic
ARITH = [
    ("printf '%s' $(( {x} + 1 ))", lambda n: str(n + 1)),
    ("n={x}; printf '%s' $(( n * 2 ))", lambda n: str(n * 2)),
    ("(( {x} > 0 )) && printf pos || printf nonpos", lambda n: "pos" if n > 0 else "nonpos"),
    ("[[ {x} -eq {x} ]] && printf eq", lambda n: "eq"),
    ("declare -i k={x}; printf '%s' \"$k\"", str),
    ("let 'y = {x} + 2'; printf '%s' \"$y\"", lambda n: str(n + 2)),
    ("printf '%s' \"$[ {x} * 3 ]\"", lambda n: str(n * 3)),
    ("a=(5 6 7); a[{x} * 0 + 1]=9; printf '%s' \"${a[*]}\"", lambda n: "5 9 7"),
]


# Bash fragments for random templates: every context the renderer knows, and the constructs that
# make bash evaluate text, but no explicit runner of values (eval {x}, bash -c {x}, trap, source …).
PIECES = [
    "printf '%s' ", "echo ", "cat ", "{x}", "{x}", "{x}", " ", "\n", ";", "|", "&&", "'", '"', "$(", ")", "(",
    "`", "${V:-", "${V#", "${V:=", "}", "$((", "((", "))", " + ", "$[", "]", "[[ ", " ]]", " -eq ", " == ",
    "-v ", "let ", "a[", "]=", "v=", "$v", '"$v"', "${!v}", "declare -i ", "read ", "case ", " in ", "*) ",
    ";; esac", "for i in ", "; do ", "; done", "<<EOF\n", "<<'EOF'\n", "<<-EOF\n", "\nEOF\n", "<<< ", "$'",
    "\\", "#", "> /dev/null", "2>&1", "{ ", " }", "export ", "local ", "PS4=", "set -x;", "OPTIND=", "RANDOM=",
    "a=(", "printf -v w ", "[ ", " ]", "test ", "unset ", "${v:", "@P}", "x", "$1", "set -- ", "shift;", "$@",
    '"$@"', "[ -v ", "${a[$v]}", "${a[@]}", "n=", "$((n))", "declare ", "typeset -n r=", "$r", ">&", "<&",
    "1>&", " >& ", "[[ -v ", "${v@P}", "mapfile -C echo ", "a[$v]=", "local -i ", "getopts ab ", "$(<", "<(",
    ">(", "time ", "! ", "if ", "then ", "fi", "while false; do ", "f(){ ", "; }", "v2=$v;", "((v))",
    '[ "$v" -eq 1 ]', "bash -c 'printf %s \"$1\"' _ ", "sh -c 'v=$1; echo $((v))' _ ",
]


def _check_output(out, err, expected):
    if expected is REFUSED:
        assert out is None and err and "starts with '-'" in err, err
    else:
        assert err is None, err
        assert out == expected.encode()


@pytest.mark.fuzz
@settings(max_examples=1500, deadline=None)
@given(case=st.sampled_from(AWKWARD), value=hostile)
def test_awkward_templates_pass_values_through_exactly(case, value):
    """In every safe context the command gets the value byte for byte, and nothing runs."""
    template, expect = case
    out, err = run_template(template, {"x": value}, X, CWD)
    assert no_marker(), (template, value)
    _check_output(out, err, expect(value))


@settings(max_examples=400, deadline=None)
@given(case=st.sampled_from(ARITH), value=st.integers(-10**6, 10**6) | hostile)
def test_arithmetic_templates_take_whole_numbers_only(case, value):
    """A template that evaluates arithmetic takes integers (and computes right); anything else is refused."""
    template, expect = case
    out, err = run_template(template, {"x": value}, X, CWD)
    assert no_marker(), (template, value)
    if isinstance(value, int):
        assert err is None and out == expect(value).encode(), (err, out)
    elif not re.fullmatch(r"[+-]?[0-9]+", value):
        assert out is None and "must be a whole number" in err, err


@pytest.mark.fuzz
@settings(max_examples=1500, deadline=None)
@given(pieces=st.lists(st.sampled_from(PIECES), min_size=2, max_size=12), value=hostile)
def test_random_templates_never_let_a_value_run(pieces, value):
    """Whatever bash a template holds, a value never runs: the template or the value is refused, or
    the value is data (most random templates are not even valid bash; those that are run)."""
    template = "".join(pieces)
    template += "" if "{x}" in template else " {x}"
    assume(template.strip() != "{x}")  # a template that is only {x} runs the value, by design
    run_template(template, {"x": value}, X, CWD)
    assert no_marker(), (template, value)


def _bash_tools(skills_dir: Path) -> dict:
    result = load_skills([skills_dir])
    return {t.name: t for s in result.skills for t in s.tools if t.entrypoint.startswith("bash:")}


def _dot(v):
    return "./" + v if v.startswith("-") else v


BUNDLED = {  # tool -> the argv its command must receive
    "list_files": lambda a: ["ls", "-la", "--", a["path"]],
    "read_file": lambda a: ["cat", "--", a["path"]],
    "search_text": lambda a: ["grep", "-rn", "--", a["pattern"], a["path"]],
    "run_bash": lambda a: REFUSED if a["command"].startswith("-") else ["bash", "-c", a["command"]],
}
BIRDIE_015 = {  # write_file/append_file use the echo builtin: checked on a real file instead
    "read_file": lambda a: ["cat", _dot(a["path"])],
    "list_dir": lambda a: ["ls", "-la", _dot(a["path"])],
    "create_directory": lambda a: ["mkdir", "-p", _dot(a["path"])],
}


def _check_argv(tool, args, expect):
    out, err = run_template(tool.entrypoint[5:], args, tool.schema, CWD, path_first=STUBS)
    assert no_marker(), (tool.name, args)
    if expect is REFUSED:
        assert out is None and "starts with '-'" in err, err
    else:
        assert err is None, err
        assert out.split(b"\0")[:-1] == [a.encode() for a in expect]


@pytest.fixture(scope="module")
def bundled_tools():
    return _bash_tools(bundled_skills_dir())


def test_every_bundled_bash_tool_is_fuzzed(bundled_tools):
    """The fuzzes below cover each bash tool the bundled skills ship, no more, no fewer
    (write_file, a `printf` builtin, on a real file)."""
    assert set(bundled_tools) == set(BUNDLED) | {"write_file"}


@pytest.mark.fuzz
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=hostile, name=st.text(alphabet="abc-_.", min_size=1, max_size=8))
def test_bundled_write_file_writes_hostile_content_exactly(bundled_tools, content, name):
    """write_file puts any content into the file byte for byte, and nothing it holds runs; a
    name starting with '-' is a file name, not an option."""
    assume(name not in (".", ".."))
    tool = bundled_tools["write_file"]
    target = CWD / name
    target.unlink(missing_ok=True)
    out, err = run_template(tool.entrypoint[5:], {"path": name, "content": content},
                            tool.schema, CWD)
    assert no_marker(), (name, content)
    assert err is None, err
    assert target.read_bytes() == content.encode("utf-8", "surrogateescape")
    target.unlink()


@pytest.mark.fuzz
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_bundled_tools_get_hostile_values_as_plain_arguments(bundled_tools, data):
    """Each bundled bash tool hands every value to its command as one exact argument; nothing runs."""
    name = data.draw(st.sampled_from(sorted(BUNDLED)))
    tool = bundled_tools[name]
    args = data.draw(st.fixed_dictionaries({p: hostile for p in tool.schema["properties"]}))
    _check_argv(tool, args, BUNDLED[name](args))


@pytest.fixture(scope="module")
def birdie_tools(birdie_env):  # noqa: F811
    return _bash_tools(birdie_env.skills_dir)


@pytest.mark.compat
@pytest.mark.parametrize("birdie_env", ["0.1.5"], indirect=True)
def test_every_birdie_015_bash_tool_is_fuzzed(birdie_tools):
    """The fuzz below covers each bash tool Birdie 0.1.5 ships."""
    assert set(birdie_tools) == set(BIRDIE_015) | {"write_file", "append_file", "run_bash"}


@pytest.mark.compat
@pytest.mark.parametrize("birdie_env", ["0.1.5"], indirect=True)
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_birdie_015_tools_get_hostile_values_as_plain_arguments(birdie_tools, data):
    """Birdie 0.1.5's bash tools pass hostile values as data: exact arguments, exact file contents."""
    name = data.draw(st.sampled_from(sorted(birdie_tools)))
    tool = birdie_tools[name]
    args = data.draw(st.fixed_dictionaries({p: hostile for p in tool.schema["properties"]}))
    if name in BIRDIE_015:
        _check_argv(tool, args, BIRDIE_015[name](args))
    elif name == "run_bash":  # `bash:{command}`: the value is the command line, as Birdie runs it
        script, values = bash_script(tool.entrypoint[5:], args, tool.schema)
        assert script == 'export -n BIRDIE_ARG_0_command; eval -- "${BIRDIE_ARG_0_command}"'
        assert values == {"BIRDIE_ARG_0_command": args["command"]}
    else:
        _check_echo_into_file(tool, args)


def _check_echo_into_file(tool, args):
    folder = Path(tempfile.mkdtemp(dir=WORK))
    try:
        args = {**args, "path": safe_name(args["path"])}
        out, err = run_template(tool.entrypoint[5:], args, tool.schema, folder)
        assert no_marker(), (tool.name, args)
        expected = _echo(args["content"])
        if expected is REFUSED:
            assert out is None and "echo would read it as an option" in err, err
        else:
            assert err is None, err
            assert (folder / args["path"]).read_bytes() == expected.encode()
    finally:
        shutil.rmtree(folder)


def test_marker_is_live():
    """The oracle can fail: the same payload run as shell text does create the marker."""
    out, err = run_template(f"touch {MARK}", {}, X, CWD)
    assert err is None and not no_marker()
