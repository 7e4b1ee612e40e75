"""A message bigger than the model's context window is refused before anything is saved, and
a compaction that frees nothing is neither applied nor reported as a success."""

from __future__ import annotations

import pytest

from birdie_tui.agent.window import message_over_window, output_reserve

from .conftest import collect

WINDOW = 32_768


def test_a_message_over_the_window_says_how_big_what_the_window_is_and_what_to_do():
    """The refusal names the message's size, the room the window leaves and what to do; a
    message that fits, or a model whose window is unknown, is let through."""
    room = WINDOW - output_reserve(WINDOW) - 1_000
    assert message_over_window("word " * 1_000, WINDOW, fixed_tokens=1_000) is None
    problem = message_over_window("word " * 60_000, WINDOW, fixed_tokens=1_000)
    assert problem is not None and "\n" not in problem
    assert "≈75,004 tokens" in problem and f"≈{room:,}" in problem and "32,768-token" in problem
    assert "not sent" in problem and "/model" in problem
    assert message_over_window("word " * 60_000, None) is None


async def test_the_engine_refuses_it_before_saving_anything(engine):
    """run_turn ends with one error for an oversized message: the history and the turn
    count stay as they were, and the next normal message runs."""
    await collect(engine, "hello")
    before = await engine.messages()
    events = await collect(engine, "word " * 60_000)
    assert [e.type for e in events] == ["error"]
    assert events[0].message.startswith("This message is ≈75,0")
    assert len(await engine.messages()) == len(before) and engine.session.turns == 1
    assert (await collect(engine, "and now?"))[-1].type == "done"


async def test_a_compaction_that_frees_nothing_changes_nothing(engine):
    """When the summary would be no smaller than what it replaces, /compact says so and the
    history keeps no summary; the automatic one does nothing, silently."""
    for _ in range(4):
        await collect(engine, "k")
    with pytest.raises(Exception, match="would not make the context smaller"):
        await engine.compact("focus on estuaries and rivers " * 50)
    assert await engine.rolling_summary() == ""
    done = await engine.compact()
    assert done.tokens_after < done.tokens_before and await engine.rolling_summary()


@pytest.mark.integration
def test_print_refuses_it_with_one_line_and_exit_1(isolated_home):
    """`birdie-tui -p -` with ≈75k tokens for a 32k window: one line on stderr, exit 1,
    no reply and no session with messages."""
    import subprocess
    import sys

    from tests.conftest import clean_env

    proc = subprocess.run([sys.executable, "-m", "birdie_tui.cli", "--print", "-"],
                          input="word " * 60_000, env=clean_env(isolated_home),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("birdie-tui: This message is ≈75,004 tokens")
    listed = subprocess.run([sys.executable, "-m", "birdie_tui.cli", "sessions", "list"],
                            env=clean_env(isolated_home), capture_output=True, text=True,
                            timeout=120)
    assert "no sessions yet" in listed.stdout
