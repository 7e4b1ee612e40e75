"""Small jobs every layer needs: message content as plain text, a session's default title, and
a failure as one line.

Standard library only and nothing imported at module level beyond typing, so the TUI's first
paint, the CLI and the core can all use it without pulling LangChain or a vendor SDK (the
failure line is scrubbed of secrets by `birdie_tui.secrets`, itself standard library only).
"""

from __future__ import annotations

from typing import Any

# Block types whose "text" is what the user or model wrote (LangChain and vendor spellings).
_TEXT_BLOCKS = ("text", "text-plain")


TITLE_CHARS = 60


def counted(count: int, word: str, plural: str | None = None) -> str:
    """`1 turn`, `2 turns`, `0 turns`: a count and its noun in the right number."""
    return f"{count:,} {word if count == 1 else (plural or word + 's')}"


def title_from(text: str) -> str | None:
    """The first line of the first message, shortened: a session's default title."""
    if not text.strip():
        return None
    first_line = text.strip().splitlines()[0]
    return first_line[:TITLE_CHARS] + ("…" if len(first_line) > TITLE_CHARS else "")


def content_text(content: Any) -> str:
    """The plain text of a message's content: a string, None, or a list of blocks.

    String blocks and `{"type": "text", "text": ...}` blocks (a block without a type counts
    as text) are joined without a separator, as LangChain joins streamed chunks; tool-use,
    image and reasoning blocks carry no text the user wrote and are skipped.
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, (list, tuple)):
        return str(content)
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and isinstance(block.get("text"), str) \
                and block.get("type", "text") in _TEXT_BLOCKS:
            parts.append(block["text"])
    return "".join(parts)


def one_line(exc: BaseException | str, limit: int = 400, *,
             as_is: tuple[type[BaseException], ...] = ()) -> str:
    """One readable line for any failure: `TypeName: first line of its message`.

    An exception that is already a sentence for the user keeps its text unchanged (no type
    name): one with a true `user_facing` attribute (providers' `ProviderError`, checked by
    duck typing so this module imports nothing), or an instance of a type in `as_is`.
    Keys, header values and URL credentials in it are masked (`birdie_tui.secrets.scrub`).
    """
    from birdie_tui.secrets import scrub

    text = scrub(str(exc).strip())
    if getattr(exc, "user_facing", False) is True or (as_is and isinstance(exc, as_is)):
        return text[:limit]
    first = text.splitlines()[0].strip() if text else ""
    name = type(exc).__name__
    return (f"{name}: {first}" if first else name)[:limit]


def scrub_surrogates(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (a split pair is joined again).

    No UTF-8 encoder takes a lone surrogate (`"\\ud800"`, which a model's JSON may spell), so
    one left in a message would break the next request, a stream-json line and the terminal.
    The usual case costs one check: the same object comes back.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text
