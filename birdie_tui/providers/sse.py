"""Server-sent events, parsed from the bytes as they arrive (no SDK object per event).

`SSEReader.feed(data)` returns the `data:` payloads of the events completed by `data`; a
network read at full speed holds hundreds of them, a paced stream one. The adapter merges the
text of one read into one chunk, so a reply sent all at once costs a few dozen chunks on the
way to the screen instead of one per token; a paced one, one read per token, is merged per
window after that (`providers/coalesce.py`).
"""

from __future__ import annotations

DONE = "[DONE]"


class SSEReader:
    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, data: bytes) -> list[str]:
        """Payloads (the joined `data:` lines) of every event `data` completes, in order."""
        self._buffer += data
        if b"\n\n" not in self._buffer and b"\r\n\r\n" not in self._buffer:
            return []
        text = self._buffer.replace(b"\r\n", b"\n")
        complete, _, self._buffer = text.rpartition(b"\n\n")
        payloads = []
        for block in complete.split(b"\n\n"):
            lines = [line[5:].removeprefix(b" ") for line in block.split(b"\n")
                     if line.startswith(b"data:")]
            if lines:
                payloads.append(b"\n".join(lines).decode("utf-8"))
        return payloads
