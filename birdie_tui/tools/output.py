"""A tool's output, cut to what the model is shown, in bounded memory however much it prints.

A result longer than `MAX_TOOL_OUTPUT` characters keeps its first `MAX_TOOL_OUTPUT` and says how
many were dropped. A stream (a command's stdout, an HTTP body) is read through `TextCapture`,
which decodes as it goes and holds only what can still be shown: a 50 MB output costs a few
hundred KB of memory, and the note still counts every character that was not shown.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

MAX_TOOL_OUTPUT = 32_000
# Characters held per stream: what can be shown, plus room for the labels and the stripping of
# trailing blanks that come between a stream and the final cut.
CAPTURE_CHARS = MAX_TOOL_OUTPUT + 1_024
# Why a failed call must not be tried again (`ToolOutcome.kind`); other failures may be.
TIMEOUT, INVALID = "timeout", "invalid"


@dataclass
class ToolOutcome:
    """What a tool call gave: its text, whether it failed, and why."""

    content: str
    error: bool = False
    kind: str = ""  # TIMEOUT or INVALID: a failure that retrying would not mend
    dropped: int = 0  # characters of output already left out (the truncation note counts them)


def timed_out_text(timeout: float, partial: str, stream: str) -> str:
    """A command killed at its timeout, as the model is told, with what `stream` had said."""
    said = f"\n[partial {stream}]\n{partial}" if partial else ""
    return f"Command timed out after {timeout:g}s and was killed.{said}"


def failed_why(code: int | None, signal: int | str | None = None) -> str:
    """Why a command failed, after "Command ": its exit code, or the signal that killed it."""
    if signal:
        return f"killed by signal {signal}"
    return "was killed" if code is None else f"exited with code {code}"


def truncate_output(text: str, dropped: int = 0) -> str:
    """`text` cut to `MAX_TOOL_OUTPUT` characters with a note of how many were not shown;
    `dropped` counts characters already left out upstream (by a `TextCapture`)."""
    if len(text) <= MAX_TOOL_OUTPUT and not dropped:
        return text
    cut = max(len(text) - MAX_TOOL_OUTPUT, 0)
    return text[:MAX_TOOL_OUTPUT] + f"\n… [truncated: {cut + dropped} characters dropped]"


class TextCapture:
    """The text of a byte stream fed in chunks: the first `keep` characters are held, the rest
    only counted (as characters of the decoded text, so the note agrees with a full decode)."""

    def __init__(self, encoding: str = "utf-8", keep: int = CAPTURE_CHARS) -> None:
        try:
            factory = codecs.getincrementaldecoder(encoding)
        except LookupError:  # a charset Python does not know
            factory = codecs.getincrementaldecoder("utf-8")
        self._decoder = factory(errors="replace")
        self._parts: list[str] = []
        self._held = 0
        self.keep = keep
        self.dropped = 0  # characters seen beyond `keep`
        self.bytes = 0  # bytes fed so far

    def feed(self, data: bytes, final: bool = False) -> None:
        self.bytes += len(data)
        text = self._decoder.decode(data, final)
        room = self.keep - self._held
        if room > 0:
            kept = text[:room]
            self._parts.append(kept)
            self._held += len(kept)
        self.dropped += max(len(text) - max(room, 0), 0)

    def finish(self) -> None:
        """End of stream: a dangling partial character becomes U+FFFD."""
        self.feed(b"", final=True)

    @property
    def text(self) -> str:
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""
