"""Remembering MCP servers that failed to start, across processes.

A dead server must not cost its start timeout on every turn, nor on every `birdie-tui --print`
(each one a new process). A failure is written to `$BIRDIE_HOME/mcp_failures.json`, keyed by a
hash of the server's command line (command, args, env, cwd; URL and headers for HTTP), so a
changed config is a new server and starts at once. The file holds no command line, env or
header value: only the hash, the skill's name, when it failed and why (scrubbed).

The file is a cache: unreadable or damaged, it counts as empty and is rewritten; writes are
atomic (a temporary file renamed over it), so two processes never leave half a file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from birdie_tui.mcp.config import ServerSpec
from birdie_tui.secrets import scrub

FILE_NAME = "mcp_failures.json"
MAX_RECORDS = 200  # failures of servers long gone are pruned once they expire anyway


@dataclass(frozen=True)
class Failure:
    skill: str
    error: str  # the cause, as `describe_failure` put it
    failed_at: float  # epoch seconds
    retry_at: float  # epoch seconds
    stamp: int = 0  # newest mtime (ns) of the skill's and server's files when it failed


def server_key(spec: ServerSpec) -> str:
    """What identifies one server across processes (the skill name does not: two skills
    starting the same command line share its fate)."""
    ident = [spec.transport, spec.command, list(spec.args), [list(e) for e in spec.env],
             spec.cwd, spec.url, [list(h) for h in spec.headers]]
    return hashlib.sha256(json.dumps(ident).encode("utf-8", "surrogatepass")).hexdigest()[:32]


class FailureMemory:
    def __init__(self, path: Path, retry_after: float):
        self.path = Path(path)
        self.retry_after = retry_after

    def recall(self, spec: ServerSpec, *, stamp: int = 0,
               now: float | None = None) -> Failure | None:
        """The failure of this server that is still remembered, if any: not yet expired, and
        its files (`stamp`) not edited since."""
        now = time.time() if now is None else now
        if self.retry_after <= 0:
            return None
        failure = _failure(self._read().get(server_key(spec)))
        if failure is None or failure.retry_at <= now or failure.stamp != stamp:
            return None
        return failure

    def remember(self, spec: ServerSpec, error: str, *, stamp: int = 0,
                 now: float | None = None) -> Failure:
        now = time.time() if now is None else now
        failure = Failure(spec.skill, scrub(error), now, now + self.retry_after, stamp)
        if self.retry_after <= 0:
            return failure
        records = self._live(now)
        records.pop(server_key(spec), None)  # re-inserted last: the newest survive the cap
        records[server_key(spec)] = {"skill": failure.skill, "error": failure.error,
                                     "failed_at": failure.failed_at,
                                     "retry_at": failure.retry_at, "stamp": failure.stamp}
        self._write(dict(list(records.items())[-MAX_RECORDS:]))
        return failure

    def forget(self, spec: ServerSpec | None = None, *, skill: str | None = None) -> None:
        """Drop the record of `spec`, and every record of `skill` (its file was edited, it
        was toggled, or the user asked for a restart): its next use starts it at once."""
        records = self._read()
        key = server_key(spec) if spec is not None else None
        kept = {k: v for k, v in records.items() if k != key and not (
            skill is not None and str(v.get("skill", "")).lower() == skill.lower())}
        if len(kept) != len(records):
            self._write(kept)

    # ------------------------------------------------------------------ the file
    def _live(self, now: float) -> dict[str, dict[str, Any]]:
        return {k: v for k, v in self._read().items()
                if (f := _failure(v)) is not None and f.retry_at > now}

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            with open(self.path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            return {}
        servers = data.get("servers") if isinstance(data, dict) else None
        if not isinstance(servers, dict):
            return {}
        return {k: v for k, v in servers.items() if isinstance(v, dict)}

    def _write(self, records: dict[str, dict[str, Any]]) -> None:
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".mcp_failures.", dir=self.path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump({"version": 1, "servers": records}, fh, indent=1)
                os.replace(tmp, self.path)
            except OSError:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)


def _failure(entry: object) -> Failure | None:
    if not isinstance(entry, dict):
        return None
    try:
        return Failure(str(entry.get("skill", "")), str(entry.get("error", "")),
                       float(entry["failed_at"]), float(entry["retry_at"]),
                       int(entry.get("stamp", 0)))
    except (KeyError, TypeError, ValueError, OverflowError):
        return None
