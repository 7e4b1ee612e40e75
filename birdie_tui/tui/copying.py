"""What the copy key, `/copy` and the chat's copy affordances put on the clipboard.

The text goes out through Textual's `App.copy_to_clipboard`: an OSC 52 sequence the app itself
writes (base64, so nothing in it can steer the terminal), which reaches the local clipboard
over SSH too. Some terminals ask for it to be enabled (tmux: `set -g set-clipboard on`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from collections.abc import Sequence
from functools import lru_cache

from markdown_it import MarkdownIt
from textual.message import Message

from birdie_tui.screen_text import clean

if TYPE_CHECKING:
    from birdie_tui.service.rows import TranscriptItem


class CopyText(Message):
    """A chat widget's copy affordance was clicked: the screen copies `text` and says so."""

    def __init__(self, text: str, what: str) -> None:
        super().__init__()
        self.text = text
        self.what = what  # "the reply", "the code block", "your message"


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("gfm-like")  # the parser Textual's Markdown widget uses


def code_blocks(markdown: str) -> list[str]:
    """The content of each code block of `markdown` (fenced or indented), in order, without
    its fences (one inside a quote or a list item too), cut as the chat shows it: trailing
    blanks dropped, as Textual's and Rich's Markdown both do."""
    return [token.content.rstrip() for token in _parser().parse(markdown)
            if token.type in ("fence", "code_block")]


def replies(items: Sequence[TranscriptItem]) -> list[tuple[int, str]]:
    """(the number of the message it answers, as /history numbers them, the reply's text) for
    each turn with text in its answer: the last text the model wrote in that turn (the answer
    after its tool calls, not the words before them)."""
    out: dict[int, str] = {}
    turn = 0
    for item in items:
        if item.role == "user":
            turn += 1
        elif item.role == "assistant" and item.content.strip():
            out[turn] = item.content
    return sorted(out.items())


def pick_reply(items: Sequence[TranscriptItem], turn: int | None) -> tuple[str, str] | str:
    """(what, text) of the last reply, or of the reply to message `turn`; a sentence saying
    why not otherwise."""
    found = replies(items)
    if not found:
        return "No reply to copy yet."
    if turn is None:
        return "the reply", clean(found[-1][1])
    text = dict(found).get(turn)
    if text is None:
        last = found[-1][0]
        return (f"Message {turn} has no reply to copy (/history numbers your messages; "
                f"the last with a reply is {last}).")
    return f"the reply to message {turn}", clean(text)


def copied_toast(what: str, text: str) -> str:
    """"Copied the reply (1,204 characters)"."""
    count = len(text)
    return f"Copied {what} ({count:,} character{'' if count == 1 else 's'})"
