"""No password of a `--database-url` or `--server` URL is printed: not in the "Resume this
session" line (which names the variable to set instead, and still works when pasted), not in
an error line. Real `birdie-tui --print` processes, a real PostgreSQL."""

from __future__ import annotations

import pytest

from birdie_tui.resume import resume_command, resume_line

from .helpers import assert_one_line_error, run_cli

pytestmark = pytest.mark.integration

PASSWORD = "hunter2-Secret-pw"


def _with_password(url: str) -> str:
    return url.replace("birdie@", f"birdie:{PASSWORD}@", 1)


def test_resume_line_names_the_variable_not_the_password(pg_url, tmp_path):
    """`--print` with a password in --database-url: stderr never holds it; the resume line
    reads the URL from "$BIRDIE_DATABASE_URL" and says to set it; with the variable set, the
    line as printed continues the session."""
    url = _with_password(pg_url)
    first = run_cli(tmp_path / "a", "--database-url", url, "--print", "one")
    assert first.returncode == 0, first.stderr
    assert PASSWORD not in first.stderr + first.stdout
    line = next(x for x in first.stderr.splitlines() if x.startswith("Resume this session:"))
    assert '--database-url "$BIRDIE_DATABASE_URL" --session-id ' in line
    assert "set BIRDIE_DATABASE_URL" in line
    sid = line.split("--session-id ", 1)[1].split()[0]
    # Pasted as printed, with the variable set (the shell expands it): the same session.
    again = run_cli(tmp_path / "b", "--database-url", url, "--session-id", sid, "--print", "two",
                    "--output-format", "stream-json", env={"BIRDIE_DATABASE_URL": url})
    assert again.returncode == 0, again.stderr
    assert f'"id": "{sid}"' in again.stdout and PASSWORD not in again.stdout + again.stderr


def test_unreachable_database_and_server_errors_hide_the_password(tmp_path):
    """A database or server URL with a password at a port nothing listens on: one error line,
    without the password."""
    db = run_cli(tmp_path, "--database-url", f"postgresql://app:{PASSWORD}@127.0.0.1:1/x",
                 "--print", "hi")
    assert PASSWORD not in assert_one_line_error(db)
    server = run_cli(tmp_path, "--server", f"http://app:{PASSWORD}@127.0.0.1:1", "--print", "hi")
    assert PASSWORD not in assert_one_line_error(server)


def test_resume_command_keeps_plain_urls_and_hides_credentials():
    """A URL without a secret is printed as is (a user name is no secret); a password or a
    bare token in the user part makes the line name the variable instead."""
    plain = resume_command("s1", database_url="postgresql://alice@db:5432/team")
    assert plain == "birdie-tui --database-url postgresql://alice@db:5432/team --session-id s1"
    assert resume_line(plain) == f"Resume this session: {plain}"
    token = resume_command("t1", server="https://ghp_0123456789abcdef@lg.example")
    assert token == 'birdie-tui --server "$BIRDIE_SERVER" --session-id t1'
    assert "set BIRDIE_SERVER to the URL first" in resume_line(token)
    secret = resume_command("s2", user="bob", database_url=f"postgres://a:{PASSWORD}@db/x")
    assert PASSWORD not in secret and '"$BIRDIE_DATABASE_URL"' in secret


def test_server_url_shown_without_its_user_part():
    """The status bar's host and /info's server URL never carry a token or password."""
    from birdie_tui.service.remote.client import describe, host_of, shown_url

    url = f"https://tok:{PASSWORD}@lg.example:8443/base"
    assert host_of(url) == "lg.example:8443"
    assert shown_url(url) == "https://***@lg.example:8443/base"
    assert PASSWORD not in describe(OSError("refused"), url)
