"""A code block's lexer is imported on another thread as soon as its opening fence arrives."""

from __future__ import annotations

import random
import sys
import threading

import pytest

from birdie_tui.tui.widgets.chat import lexer_warmup
from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.lexer_warmup import FenceWatch

REPLY = """Some text with `inline` code and a ``` in the middle of a line.

```python
def f():
    return "```bash"  # a fence's marker inside code opens nothing
```

> ~~~ Shell
> ls
> ~~~

   ````json
{}
````

```
no language
```
"""


@pytest.fixture
def warmed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    monkeypatch.setattr(lexer_warmup, "warm", seen.append)
    return seen


def test_each_opening_fence_with_a_language_is_seen_however_the_text_is_cut(
        warmed: list[str]) -> None:
    """Fed in random fragments (a fence's backticks and its language in different ones), the
    watch names python, Shell and json, in order; a closing fence, one without a language and
    backticks inside a line name nothing."""
    rng = random.Random(5)
    for _ in range(50):
        warmed.clear()
        watch = FenceWatch()
        text = REPLY
        while text:
            size = rng.randint(1, 12)
            watch.feed(text[:size])
            text = text[size:]
        assert warmed == ["python", "Shell", "json"]


def test_a_streamed_reply_warms_its_fences_before_any_flush(warmed: list[str]) -> None:
    """`AssistantMessage.append` feeds the watch (no app, no flush: the text is only queued)."""
    reply = AssistantMessage()
    for piece in ("Here:\n\n``", "`rust\nfn main() {}\n", "```\n"):
        reply.append(piece)
    assert warmed == ["rust"]


def test_warm_loads_the_lexer_on_its_own_thread_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lexer is looked up (Pygments imports its module then) on the warm-up thread, by its
    lower-case name, and COBOL's is loaded once the thread ends; asking again starts nothing."""
    monkeypatch.setattr(lexer_warmup, "_started", set())
    calls: list[tuple[str, str]] = []
    real = lexer_warmup.get_lexer_by_name

    def looked_up(name: str) -> object:
        calls.append((name, threading.current_thread().name))
        return real(name)

    monkeypatch.setattr(lexer_warmup, "get_lexer_by_name", looked_up)
    thread = lexer_warmup.warm("COBOL")
    assert thread is not None
    thread.join(30)
    assert calls == [("cobol", "birdie-lexer-warmup")]
    assert "pygments.lexers.business" in sys.modules
    assert lexer_warmup.warm("cobol") is None
    assert len(calls) == 1


def test_unknown_and_too_many_languages_start_no_trouble(monkeypatch: pytest.MonkeyPatch) -> None:
    """An unknown language ends its thread quietly; past the cap no thread starts at all."""
    monkeypatch.setattr(lexer_warmup, "_started", set())
    monkeypatch.setattr(lexer_warmup, "MAX_LANGUAGES", 2)
    errors: list[object] = []
    monkeypatch.setattr(threading, "excepthook", errors.append)
    thread = lexer_warmup.warm("no-such-language-at-all")
    assert thread is not None
    thread.join(30)
    assert not thread.is_alive() and errors == []
    assert lexer_warmup.warm("python") is not None
    assert lexer_warmup.warm("rust") is None
