"""The front door on a shared PostgreSQL database: /info names the database (password
masked), the browser's rows name who last wrote each session, and the resume line gives the
URL back only when it came from the command line."""

from __future__ import annotations

import pytest

from birdie_tui.service import local_birdie

pytestmark = pytest.mark.integration


async def test_status_rows_and_resume_line_on_a_database(pg_url, tmp_path):
    """A URL with a password: status shows it masked; rows carry user@host; the resume line
    never holds the password: it reads the URL from $BIRDIE_DATABASE_URL."""
    user, _, rest = pg_url.partition("://")[2].partition("@")
    secret_url = f"postgresql://{user}:hunter2@{rest}"
    env = {"BIRDIE_HOME": str(tmp_path / "home"), "USER": "carol", "PATH": "/usr/bin:/bin"}
    birdie = local_birdie(environ=env, database_url=secret_url)
    await birdie.start()
    try:
        events = [e async for e in birdie.send("hello team")]
        assert events[-1].type == "done"
        status = birdie.status()
        assert "hunter2" not in status.data_dir and "***" in status.data_dir
        assert status.data_dir.startswith("postgresql://") and str(tmp_path / "home") in \
            status.data_dir
        [row] = birdie.session_rows()
        assert row.current and row.turns == 1
        await birdie.new_session()
        rows = {r.id: r for r in birdie.session_rows()}
        assert rows[status.session_id].written_by.startswith("carol@")
        await birdie.open_session(status.session_id)
        assert birdie.resume_command() == ('birdie-tui --database-url "$BIRDIE_DATABASE_URL" '
                                           f"--session-id {status.session_id}")
    finally:
        await birdie.close()


async def test_two_homes_on_one_database_see_each_other_s_turns(pg_url, tmp_path, skills_dir):
    """Two machines (two homes, two users) on one database, the same session open in both:
    a turn one runs shows in the other's next pulse, once, said as open elsewhere, and its
    transcript has it without reopening the session."""
    def door(name: str) -> object:
        env = {"BIRDIE_HOME": str(tmp_path / name), "USER": name, "PATH": "/usr/bin:/bin"}
        return local_birdie(skills_dirs=[skills_dir], environ=env, database_url=pg_url)

    alice, bob = door("alice"), door("bob")
    await alice.start()
    try:
        [_ async for _ in alice.send("from alice")]
        sid = alice.status().session_id
        assert not (await alice.session_pulse()).changed
        await bob.start(session_id=sid)
        try:
            [_ async for _ in bob.send("from bob")]
        finally:
            await bob.close()
        pulse = await alice.session_pulse()
        assert pulse.changed and pulse.elsewhere
        assert not (await alice.session_pulse()).changed
        assert [i.content for i in await alice.transcript() if i.role == "user"] == [
            "from alice", "from bob"]
        [_ async for _ in alice.send("alice again")]  # the history goes on from bob's turn
        assert [i.content for i in await alice.transcript() if i.role == "user"] == [
            "from alice", "from bob", "alice again"]
    finally:
        await alice.close()
