"""The real Birdie 0.15.1: its skills load here as it reads them, and its sessions open and continue.

Birdie's view comes from Birdie's own code, run by its own interpreter in its own venv
(conftest.py, birdie_oracle.py, birdie_session_oracle.py): its loader for skills; its
SessionManager, DynamicAgent, graph, AsyncSqliteSaver and CLI turn for a session (only the
model is scripted). Our side is the real `birdie-tui` command line, offline, without API keys.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from birdie_tui.skills import Skill, load_skills

from ..cli.helpers import run_cli
from .conftest import BirdieEnv, _venv_env

pytestmark = [pytest.mark.compat, pytest.mark.parametrize("birdie_env", ["0.15.1"], indirect=True)]

SESSION_ORACLE = Path(__file__).with_name("birdie_session_oracle.py")
USER = "tester"
# Birdie 0.15 adds a model-settable `timeout_s` to bash/http tool schemas: another feature.
TIMEOUT_PARAM = "timeout_s"
# `Session` fields of Birdie 0.15.1, in the order its SessionManager.save writes them.
BIRDIE_KEYS = ["id", "user_id", "created_at", "updated_at", "turns", "enabled_skills",
               "disabled_skills", "enabled_agents", "disabled_agents", "approved_skills",
               "approved_acp_tools", "total_input_tokens", "total_output_tokens", "total_cost_usd"]
LIMITS_SKILL = """\
---
name: Deploy
version: 2.0.0
description: How we deploy.
location: guides/deploy
---
## Tools

### slow_call
description: Calls a slow thing.
entrypoint: bash:sleep {seconds}
timeout: 2.5
retries: 3
schema:
  type: object
  properties:
    seconds:
      type: number
    timeout:
      type: integer
  required: [seconds]

### fetch
description: Fetches.
entrypoint: http:get https://example.invalid/{id}
timeout: 45
retries: 0
schema:
  type: object
  properties:
    id:
      type: string
"""


def _ours(skills_dir: Path) -> dict[str, Skill]:
    result = load_skills([skills_dir])
    assert [str(e) for e in result.errors] == []
    return {s.name: s for s in result.skills}


def _seen_by_birdie(skill: dict[str, Any]) -> dict[str, Any]:
    return {"location": skill["location"], "tools": [
        {"name": t["name"], "description": t["description"], "entrypoint": t["entrypoint"],
         "timeout": t["timeout"], "retries": t["retries"],
         "properties": [p for p in (t["schema"] or {}).get("properties") or {} if p != TIMEOUT_PARAM],
         "required": list((t["schema"] or {}).get("required") or [])} for t in skill["tools"]]}


def _seen_by_us(skill: Skill) -> dict[str, Any]:
    return {"location": skill.location or skill.name, "tools": [
        {"name": t.name, "description": t.description, "entrypoint": t.entrypoint,
         "timeout": t.timeout_s, "retries": t.retries,
         "properties": [p for p in t.schema.get("properties") or {} if p != TIMEOUT_PARAM],
         "required": list(t.schema.get("required") or [])} for t in skill.tools]}


# ------------------------------------------------------------------------------- skills
def test_every_bundled_skill_loads_as_birdie_0151_reads_it(birdie_env: BirdieEnv, birdie_view):
    """Birdie 0.15.1's own skills all load here, with its locations, tools and tool limits."""
    assert Path(birdie_view["module"]).is_relative_to(birdie_env.site_packages)
    assert birdie_view["version"] == "0.15.1" and birdie_view["errors"] == []
    theirs = {s["name"]: s for s in birdie_view["skills"]}
    ours = _ours(birdie_env.skills_dir)
    assert sorted(ours) == sorted(theirs) and theirs
    for name, skill in theirs.items():
        assert _seen_by_us(ours[name]) == _seen_by_birdie(skill), name
        assert ours[name].version == skill["version"], name
        assert ours[name].always_inject is skill["always_inject"], name


def test_location_timeout_and_retries_are_read_as_birdie_0151_reads_them(birdie_env: BirdieEnv,
                                                                        tmp_path):
    """A skill using `location`, `timeout:` and `retries:` reads the same here as in Birdie."""
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "SKILL.MD").write_text(LIMITS_SKILL, encoding="utf-8")
    view = birdie_env.run_oracle(str(tmp_path))
    assert view["errors"] == []
    [theirs] = view["skills"]
    ours = _ours(tmp_path)["Deploy"]
    assert _seen_by_us(ours) == _seen_by_birdie(theirs)
    assert ours.location == theirs["location"] == "guides/deploy"
    assert [(t.timeout_s, t.retries) for t in ours.tools] == [(2.5, 3), (45.0, 0)]


# ------------------------------------------------------------------------------- sessions
def _birdie_session(env: BirdieEnv, home: Path, *args: str) -> dict[str, Any]:
    """Run Birdie's own session code (birdie_session_oracle.py) with HOME=home."""
    proc = subprocess.run([str(env.python), str(SESSION_ORACLE), *args], capture_output=True,
                          text=True, timeout=300, cwd=home, stdin=subprocess.DEVNULL,
                          env={**_venv_env(), "HOME": str(home)})
    assert proc.returncode == 0, f"Birdie session oracle failed:\n{proc.stderr[-3000:]}"
    return json.loads(proc.stdout)


@pytest.fixture
def birdie_session(birdie_env: BirdieEnv, tmp_path) -> dict[str, Any]:
    """A session Birdie 0.15.1 created, saved and ran one turn of (with a tool call)."""
    written = _birdie_session(birdie_env, tmp_path, "write", USER, str(birdie_env.skills_dir),
                              "plan my trip")
    assert "Planned by Birdie 0.15." in written["stdout"]  # Birdie's own turn really ran
    data = written["file"]
    assert list(data) == BIRDIE_KEYS
    assert (data["turns"], data["total_input_tokens"], data["total_output_tokens"]) == (1, 2500, 46)
    assert data["total_cost_usd"] == pytest.approx(0.025)
    assert data["approved_skills"] == ["Shell", "Filesystem"]
    return {**written, "home": tmp_path, "birdie_home": tmp_path / ".birdie"}


def test_a_birdie_0151_session_is_listed_with_its_totals(birdie_session):
    """`sessions list` shows Birdie 0.15.1's session with Birdie's token totals."""
    proc = run_cli(birdie_session["birdie_home"], "sessions", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    [row] = json.loads(proc.stdout)
    assert row["id"] == birdie_session["id"] and row["turns"] == 1
    assert (row["input_tokens"], row["output_tokens"]) == (2500, 46)
    text = run_cli(birdie_session["birdie_home"], "sessions", "list")
    assert text.returncode == 0 and "↑2500 ↓46" in text.stdout


def test_a_birdie_0151_session_continues_and_birdie_still_reads_it(birdie_env: BirdieEnv,
                                                                   birdie_session):
    """`--print` continues Birdie 0.15.1's session; Birdie then reads its keys, totals, history."""
    sid, before = birdie_session["id"], birdie_session["file"]
    proc = run_cli(birdie_session["birdie_home"], "--print", "hello", "--session-id", sid)
    assert proc.returncode == 0, proc.stderr
    path = birdie_session["birdie_home"] / "sessions" / USER / f"{sid}.json"
    after = json.loads(path.read_text())
    assert list(after)[:len(BIRDIE_KEYS)] == BIRDIE_KEYS  # every Birdie key, at its place
    for key in ("id", "user_id", "created_at", "enabled_skills", "disabled_skills",
                "enabled_agents", "disabled_agents", "approved_skills", "approved_acp_tools"):
        assert after[key] == before[key], key
    assert after["turns"] == 2
    assert after["total_input_tokens"] > 2500 and after["total_output_tokens"] > 46
    assert after["total_input_tokens"] == after["input_tokens"]
    assert after["total_output_tokens"] == after["output_tokens"]
    assert after["total_cost_usd"] >= before["total_cost_usd"]

    read = _birdie_session(birdie_env, birdie_session["home"], "read", USER, sid,
                           str(birdie_env.skills_dir))
    assert read["session"] == {k: after[k] for k in BIRDIE_KEYS}  # Birdie's load sees our update
    kinds = [kind for kind, _ in read["messages"]]
    assert kinds == ["human", "ai", "tool", "ai", "human", "ai"]
    assert read["messages"][3][1] == "Planned by Birdie 0.15." and read["messages"][4][1] == "hello"
