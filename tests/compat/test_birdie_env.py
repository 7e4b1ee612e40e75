"""The Birdie venv fixture itself: skip locally / fail under CI, no half-built venv left behind."""

from __future__ import annotations

import json
import shutil

import pytest

from . import conftest as env

pytestmark = pytest.mark.compat


@pytest.mark.parametrize("ci, outcome", [("true", pytest.fail.Exception), ("", pytest.skip.Exception),
                                         ("false", pytest.skip.Exception)])
def test_unavailable_birdie_skips_locally_but_fails_under_ci(monkeypatch, ci, outcome):
    """An unavailable Birdie venv skips the tests locally but fails them when CI=true."""
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="cannot install"):
        env._unavailable("cannot install birdie-agent==x")


def test_a_failed_install_leaves_no_venv_behind(monkeypatch, tmp_path):
    """A failed pip install of Birdie leaves only the lock file, no half-built venv."""
    if shutil.which(env.PYTHON) is None:
        pytest.skip(f"{env.PYTHON} is not on PATH")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    with pytest.raises(env.InstallError, match=r"pip install birdie-agent==0\.0\.0a0 exited"):
        env.ensure_birdie_venv("0.0.0a0")  # no such release
    assert sorted(p.name for p in (tmp_path / "birdie-tui-tests").iterdir()) == ["birdie-agent-0.0.0a0.lock"]


def test_a_venv_built_with_other_pins_is_not_reused(tmp_path):
    """A venv whose marker has other pins, or where Birdie cannot import, is not reused."""
    venv = tmp_path / "birdie-agent-0.1.5"
    (venv / "bin").mkdir(parents=True)
    (venv / env._MARKER).write_text(json.dumps({**env._spec("0.1.5"), "pins": ["mcp<1"]}))
    assert not env._is_ready(venv, "0.1.5")
    (venv / env._MARKER).write_text(json.dumps(env._spec("0.1.5")))
    assert not env._is_ready(venv, "0.1.5")  # the marker alone is not enough: Birdie must import
