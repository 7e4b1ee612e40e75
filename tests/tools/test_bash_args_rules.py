"""bash: templates and values that are refused, and why; the leading-'-' rule; a clean environment."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from birdie_tui.skills import SkillTool, load_skills
from birdie_tui.tools.entrypoints import render_command, run_entrypoint
from birdie_tui.tools.bash_args import BashTemplateError
from birdie_tui.tools.entrypoints import bash_script

from ..compat.conftest import birdie_env  # noqa: F401  (the session fixture: the real Birdie's venv)

X = {"type": "object", "properties": {"x": {"type": "string"}}}


def schema(**props) -> dict:
    return {"type": "object", "properties": {k: v or {"type": "string"} for k, v in props.items()}}


def run(template: str, args: dict, sch: dict = X):
    tool = SkillTool(name="t", description="d", entrypoint="bash:" + template, schema=sch)
    return asyncio.run(run_entrypoint(tool, args, skill_dir=Path("."), timeout=20))


@pytest.fixture
def mark(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path / "MARK"


HOSTILE = "a[$(touch MARK)]"


@pytest.mark.parametrize("template", [
    "echo $(( {x} + 1 ))", "(( {x} > 1 )) && echo big", "echo $[ {x} ]", "let 'y = {x}'",
    "[[ {x} -eq 1 ]] && echo one", "[[ -v {x} ]]", "[ -v {x} ]", "declare -i n={x}", "a[{x}]=1",
    "n={x}; echo $(( n + 1 ))", "v={x}; echo \"${!v}\"", "RANDOM={x}", "OPTIND={x}", "v={x}; OPTIND=$v",
    "if(( {x} )); then echo y; fi", "v={x}; eval '(( v ))'", "bash -c '(( $1 ))' _ {x}",
    "v={x}; unset \"a[$v]\"", "v={x}; declare \"$v=1\"",
])
def test_arithmetic_and_name_evaluation_take_whole_numbers_only(template, mark):
    """Where bash evaluates text as arithmetic or a name, even through a variable, only integers pass."""
    out = run(template, {"x": HOSTILE})
    assert out.error and "must be a whole number" in out.content and "line 1" in out.content
    assert out.content.startswith("cannot run t: argument 'x' must be a whole number")
    assert not mark.exists()
    assert not run(template, {"x": "2"}).content.startswith("cannot run")


def test_arithmetic_with_an_integer_computes():
    """An integer in arithmetic is simply computed."""
    assert run("echo $(( {x} + 1 ))", {"x": "41"}).content == "42\n"
    assert run("echo $(( {n} * 2 ))", {"n": 21}, schema(n={"type": "integer"})).content == "42\n"


@pytest.mark.parametrize("template, fragment", [
    ("read {x}", "argument of read, which reads it as a variable name"),
    ("unset {x}", "argument of unset"),
    ("mapfile {x} < /dev/null", "argument of mapfile"),
    ("declare {x}=1", "argument of declare, which reads it as a variable name"),
    ("printf -v {x} '%s' 1", "would name the variable printf -v sets"),
    ("PS4={x}; set -x; true", "would be assigned to PS4"),
    ("BASH_ENV={x} bash -c true", "would be assigned to BASH_ENV"),
    ("export PATH={x}", "would be assigned to PATH"),
    ("LD_PRELOAD={x} ls", "would be assigned to LD_PRELOAD"),
    ("printf -v PS4 '%s' {x}", "would be assigned to PS4"),
    ("echo \"${a[{x}]}\"", "array subscript would be evaluated as arithmetic"),
    ("echo \"${v:{x}}\"", "operation other than a default value"),
    ("echo \"${v/{x}/y}\"", "operation other than a default value"),
    ("cat <<{x}\nhi\n", "here-document delimiter"),
    ("cat <<'E O'\n{x}\nE O\n", "needs a plain delimiter"),
    ("echo `echo \\$HOME {x}`", "use $(…) instead"),
    ("echo ${x}", "${x} is ambiguous"),
    ("eval \"echo {x}\"", "part of the code eval runs"),
    ("trap 'echo {x}' EXIT", "part of the code trap runs"),
    ("bash -c \"echo {x}\"", "embedded in the code bash runs: bash would parse the value as code"),
    ("sh -ec 'echo {x}'", "embedded in the code sh runs"),
    ("python3 -c \"print('{x}')\"", "embedded in the code python runs"),
    ("awk '{print \"{x}\"}' /dev/null", "embedded in the code awk runs"),
    ("sed -e 's/a/{x}/' /dev/null", "embedded in the code sed runs"),
    ("alias a={x}", "argument of alias"),
    ("hash -p {x} ls; ls", "argument of hash"),
    ("echo hi >& {x}", "target of >&, which bash expands twice"),
    ("echo hi 1>&{x}", "target of >&, which bash expands twice"),
    ("v={x}; echo hi >& \"$v\"", "the target of >& holds $…"),
    ("{x} --version", "would name the command to run"),
    ("$cmd {x}", "a command is named by an expansion"),
    ("v={x}; bash -c \"echo $v\"", "bash runs code that holds $…"),
    ("v={x}; PS4=$v; set -x; true", "PS4 is set from an expansion"),
    ("bash -c 'eval \"$1\"' _ {x}", "eval runs code that holds $…"),
    ("bash <<EOF\necho {x}\nEOF", "here-document that bash reads as its program"),
    ("python3 - <<'EOF'\nprint('{x}')\nEOF", "here-document that python reads as its program"),
    ("bash <<< \"echo {x}\"", "here-string bash reads as its program"),
    ("printf '%s' {x} | bash", "text is piped into bash"),
    ("env bash -c \"echo {x}\"", "embedded in the code bash runs"),
    ("find . -maxdepth 0 -exec sh -c \"echo {x}\" \\;", "embedded in the code sh runs"),
    ("ssh -p 22 host cat {x}", "ssh joins its command words"),
    ("printf '%s\\n' a | mapfile -C eval -c 1 arr; echo {x}", "mapfile -C runs a callback"),
])
def test_unsafe_contexts_refuse_the_template_with_its_line(template, fragment, mark):
    """A placeholder where no quoting helps fails the call, for any value, with the reason and line."""
    for value in (HOSTILE, "hello"):
        out = run(template, {"x": value})
        assert out.error and fragment in out.content, out.content
        assert out.content.startswith("cannot run t: line ") and "of the template" in out.content
    assert not mark.exists()


def test_refusal_names_the_line_of_a_multi_line_template():
    """The line number is the template's own line."""
    with pytest.raises(BashTemplateError, match=r"^line 3 of the template: \{x\} is an argument of read"):
        bash_script("set -e\necho start\nread {x}", {"x": "v"}, X)


def test_values_handed_whole_to_an_interpreter_run_as_the_template_says():
    """`bash -c {x}`, `eval {x}` and a template that is only `{x}` run the value: the template asks for it."""
    for template in ("bash -c {x}", "eval {x}", "{x}", "  {x}\n"):
        assert run(template, {"x": "echo a b | tr a-z A-Z"}).content == "A B\n"
    assert run("bash -c 'echo \"[$1]\"' _ {x}", {"x": "$(id) b"}).content == "[$(id) b]\n"


def test_quoted_here_document_is_filled_and_stays_literal():
    """<<'EOF' with placeholders becomes an unquoted here-document whose own text is escaped."""
    out = run("cat <<'EOF'\n$HOME `id` \\n {x}\nEOF\necho after", {"x": "$(id) `id` \\"})
    assert out.content == "$HOME `id` \\n $(id) `id` \\\nafter\n"
    out = run("cat <<\"EOF\"\n$HOME\nEOF", {"x": "unused"})
    assert out.content == "$HOME\n"


@pytest.mark.parametrize("template, sch, value, expected", [
    ("cat {x}", X, "-n", "starts with '-', so cat would read it as an option"),
    ("cat {path}", schema(path=None), "-n", "PATH-LIKE"),
    ("cat {srcFile}", schema(srcFile=None), "-n", "PATH-LIKE"),
    ("cat {x}", schema(x={"type": "string", "format": "path"}), "-n", "PATH-LIKE"),
    ("cat -- {x}", X, "-n", "PATH-LIKE"),
    ("cat {x}", schema(x={"type": "string", "x-allow-option": True}), "-n", ""),
    ("cat {profile}", schema(profile=None), "-n", "cat would read it as an option"),
    ("grep -e {x} f", X, "-v", "grep would read it as an option"),
    ("grep --regexp={x} /dev/null || echo none", X, "-v", "none\n"),
    ("ls -la {x}", X, "--help", "ls would read it as an option; the tool must put `--` before {x}"),
    ("[ {x} = y ]", X, "-v", "compare it inside [[ … ]]"),
    ("echo {x}", X, "-n", "print it with printf '%s\\n' {x} rather than echo"),
    ("echo {x}", X, "-x", "-x\n"),
    ("echo {x}", X, "- item", "- item\n"),
    ("echo hi {x}", X, "-n", "hi -n\n"),
    ("printf '%s' {x}", X, "-v", "-v"),
    ("printf {x}", X, "-v", "printf would read it as an option"),
    ("echo > {x}; ls -- {x}", X, "-out", "-out\n"),
    ("echo {x}{x}", X, "-", "--\n"),
])
def test_a_leading_dash_is_never_an_option_by_accident(template, sch, value, expected, tmp_path, monkeypatch):
    """'-…' at the start of an argument: `./` for paths, refused otherwise, unless `--` or allowed."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-n").write_text("the file -n\n")
    out = run(template, {next(iter(sch["properties"])): value}, sch)
    if expected == "PATH-LIKE":
        assert (out.content, out.error) == ("the file -n\n", False)
    elif "would read it" in expected or "compare it" in expected or "print it" in expected:
        assert out.error and expected in out.content and "x-allow-option: true" in out.content, out.content
    else:
        assert (out.content, out.error) == (expected, False)


def test_values_no_environment_can_carry_are_refused():
    """NUL bytes, lone surrogates and values over 128 KiB fail with a clear message, never truncated."""
    assert "contains a NUL byte" in run("echo {x}", {"x": "a\x00b"}).content
    assert "lone surrogate" in run("echo {x}", {"x": "a\ud800"}).content
    out = run("echo {x} | wc -c", {"x": "a" * 200_000})
    assert out.error and "too long" in out.content
    assert run("printf %s {x} | wc -c", {"x": "a" * 100_000}).content.strip() == "100000"


def test_empty_and_missing_values_are_one_empty_argument():
    """A bare placeholder is exactly one argument, even when the value is empty or left out."""
    two = schema(x=None, y=None)
    assert run("printf '[%s]' {x} {y}", {"x": ""}, two).content == "[][]"
    assert run("set -- {x} {y}; echo $#", {}, two).content == "2\n"


def test_startup_files_and_user_environment_cannot_inject(mark, monkeypatch, tmp_path):
    """BASH_ENV, ENV and exported functions in the user's environment do not run; stray BIRDIE_ARG_* are dropped."""
    hook = tmp_path / "hook.sh"
    hook.write_text(f"touch {mark}\n")
    monkeypatch.setenv("BASH_ENV", str(hook))
    monkeypatch.setenv("ENV", str(hook))
    monkeypatch.setenv("BASH_FUNC_printf%%", f"() {{ touch {mark}; }}")
    monkeypatch.setenv("BIRDIE_ARG_0_x", "planted")
    out = run("printf '%s' {x}; bash -c 'echo \" $BASH_ENV$ENV\"'", {"x": "value"})
    assert (out.content, out.error) == ("value \n", False)
    assert not mark.exists()


def test_values_do_not_reach_child_environments_or_other_names():
    """Values are shell variables of the template only; a property named PATH sets no PATH."""
    out = run("printf '%s ' {x}; env | grep -c '^BIRDIE_ARG_' || true", {"x": "v"})
    assert out.content == "v 0\n"
    out = run("printf '%s ' {PATH}; ls -d /", {"PATH": "/nowhere"}, schema(PATH=None))
    assert out.content == "/nowhere /\n"


def test_render_command_is_a_readable_preview():
    """`render_command` writes the checked values in, shell-quoted, for people to read."""
    sch = schema(path=None, x=None)
    shown = render_command("cat {path} && echo \"{x}\" '{x}'", {"path": "-a b", "x": "it's $1"}, sch)
    assert shown == "cat './-a b' && echo \"it's \\$1\" '''it'\"'\"'s $1'''"


@pytest.mark.compat
@pytest.mark.parametrize("birdie_env", ["0.1.5"], indirect=True)
def test_birdie_015_bash_tools_still_work(birdie_env, tmp_path, monkeypatch):  # noqa: F811
    """Birdie 0.1.5's own bash tools run as Birdie runs them, for ordinary values."""
    monkeypatch.chdir(tmp_path)
    tools = {t.name: t for s in load_skills([birdie_env.skills_dir]).skills for t in s.tools}

    def call(name, **args):
        return asyncio.run(run_entrypoint(tools[name], args, skill_dir=tmp_path, timeout=20))

    assert not call("create_directory", path="notes/-draft").error
    assert not call("write_file", path="notes/-draft/a.md", content="---\n- item 'one'\n$HOME").error
    assert not call("append_file", path="notes/-draft/a.md", content="more").error
    assert call("read_file", path="notes/-draft/a.md").content == "---\n- item 'one'\n$HOME\nmore\n"
    assert "-draft" in call("list_dir", path="notes").content
    assert call("run_bash", command="echo a b | tr a-z A-Z").content == "A B\n"
    assert (tmp_path / "notes" / "-draft" / "a.md").exists()


def test_template_problem_reports_refused_templates_without_values():
    """`template_problem` says why a template can never run (for `skills check`), None when it can."""
    from birdie_tui.tools.bash_args import template_problem

    assert template_problem("cat -- {path}", schema(path=None)) is None
    assert template_problem("echo {x}", None) is None  # no properties: {x} is not a placeholder
    assert template_problem("read {x}", X) == \
        "line 1 of the template: {x} is an argument of read, which reads it as a variable name"
