"""What a `bash:` tool process may read of the app's environment: no provider key, no database
or server secret, nothing named like a credential, unless its skill's `env:` names it."""

from __future__ import annotations

import textwrap

from birdie_tui.tools.adapter import make_tool
from birdie_tui.skills.parser import parse_skill_file

KEY = "sk-test-abcdef0123456789SECRET"
TOKEN = "ghp_0123456789abcdefTOKEN"
SKILL = """\
    ---
    name: leaky
    description: prints what it can see
    {extra}
    ---

    ## Tools

    ### show
    description: print variables
    entrypoint: bash:printf '%s|' "$OPENAI_API_KEY" "$GITHUB_TOKEN" "$BIRDIE_DATABASE_URL" "$PGPASSWORD" "$AZURE_OPENAI_AD_KEY" "$MY_PLAIN" "$LLM_PROVIDER_CONFIG"; printenv OPENAI_API_KEY | rev
    """


def _tool(tmp_path, extra: str = ""):
    folder = tmp_path / "leaky"
    folder.mkdir()
    (folder / "SKILL.MD").write_text(textwrap.dedent(SKILL.format(extra=extra)))
    skill = parse_skill_file(folder / "SKILL.MD")
    return make_tool(skill.tools[0], skill, timeout=20)


def _secret_env(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("BIRDIE_DATABASE_URL", "postgresql://app:hunter2hunter2@db/x")
    monkeypatch.setenv("PGPASSWORD", "hunter2hunter2")
    monkeypatch.setenv("AZURE_OPENAI_AD_KEY", "azure-ad-key-0123456789")
    monkeypatch.setenv("LLM_PROVIDER_CONFIG", '{"vendor": "openai", "api_key": "x"}')
    monkeypatch.setenv("MY_PLAIN", "visible")


async def test_bash_tool_reads_no_provider_key_or_secret(tmp_path, monkeypatch):
    """An approved `printenv OPENAI_API_KEY | rev` (a real bash process) gets nothing back:
    provider keys, *_TOKEN, the database URL, PGPASSWORD and LLM_PROVIDER_CONFIG are not in
    a tool's environment; an ordinary variable still is."""
    _secret_env(monkeypatch)
    out = await _tool(tmp_path).ainvoke({})
    assert out == "|||||visible||", out
    assert KEY[::-1] not in out and "hunter2" not in out


async def test_skill_env_list_passes_a_named_secret_through(tmp_path, monkeypatch):
    """A skill whose frontmatter says `env: [GITHUB_TOKEN]` gets that one variable, and only
    it: the provider key stays out."""
    _secret_env(monkeypatch)
    out = await _tool(tmp_path, "env: [GITHUB_TOKEN]").ainvoke({})
    assert out == f"|{TOKEN}||||visible||", out
