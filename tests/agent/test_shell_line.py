"""`!command`: the engine runs what the user typed as the model's `run_bash` would, under
the session's rules (a deny rule, the read-only mode), with no key in its environment."""

from __future__ import annotations

from birdie_tui.agent.approvals import ApprovalPolicy
from birdie_tui.agent.shell_line import run_shell_line


def policy(mode: str = "ask", deny: list[str] | None = None) -> ApprovalPolicy:
    return ApprovalPolicy.build(mode=mode, settings_rules={"deny": deny or []},
                                session_rules=[], approved_skills=[])


async def test_it_runs_in_ask_mode_without_asking_with_the_command_out_of_band(tmp_path,
                                                                                 monkeypatch):
    """Typing it is the approval; quotes and `$` reach bash as the user wrote them."""
    monkeypatch.chdir(tmp_path)
    line = await run_shell_line("echo 'a b' \"$HOME\" | tr a-z A-Z; pwd", policy=policy(),
                                timeout=10, max_call_timeout=None)
    assert not line.error and not line.refused
    assert line.output.splitlines()[0].startswith("A B /") and str(tmp_path) in line.output


async def test_a_deny_rule_and_the_read_only_mode_refuse_it(tmp_path):
    """Rules written for `run_bash` apply to what is typed; read-only refuses every command."""
    marker = tmp_path / "ran"
    denied = await run_shell_line(f"rm -rf {marker}", policy=policy(deny=["run_bash(rm *)"]),
                                  timeout=10, max_call_timeout=None)
    assert denied.error and "run_bash(rm *)" in denied.refused
    read_only = await run_shell_line(f"touch {marker}", policy=policy("read-only"), timeout=10,
                                     max_call_timeout=None)
    assert read_only.refused and not marker.exists()


async def test_no_provider_key_reaches_the_command_and_a_failure_says_its_status(monkeypatch):
    """The tool environment drops secrets; a failing command says how it ended."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    line = await run_shell_line("echo \"[$OPENAI_API_KEY]\"; exit 3", policy=policy(),
                                timeout=10, max_call_timeout=None)
    assert line.error and "[]" in line.output and "sk-secret" not in line.output
    assert "3" in line.output
