"""Provider failures as one readable line (auth, rate limit, context too long, server, network).

Works by duck typing (status codes, class names, error bodies) so it never imports a vendor SDK,
and every line is scrubbed of the API key before it can reach the chat, a log or a session file.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from birdie_tui.secrets import scrub

RETRY_HINT = "/retry runs the turn again"
_CONTEXT_HINTS = (
    "context_length_exceeded", "context length", "context window", "prompt is too long",
    "too many tokens", "maximum context", "input is too long", "exceeds the maximum",
    "reduce the length", "token limit",
)
_NETWORK_NAMES = {"ConnectError", "ConnectTimeout", "APIConnectionError", "NetworkError",
                  "NoResponseError", "ConnectionError", "OSError"}
_TIMEOUT_NAMES = {"APITimeoutError", "TimeoutException", "ReadTimeout", "WriteTimeout",
                  "PoolTimeout", "TimeoutError"}
_CUT_NAMES = {"RemoteProtocolError", "ReadError", "IncompleteRead", "StreamCut",
              "ChunkedEncodingError", "ProtocolError"}


class ProviderError(Exception):
    """A provider call failed; ``str()`` is the one line shown to the user (no secrets)."""

    user_facing = True  # `birdie_tui.text.one_line` shows the text as-is, without a type name

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False):
        super().__init__(message)
        self.status = status
        self.retryable = retryable


class StreamCut(Exception):
    """The reply stream stopped before the vendor's end-of-message marker."""


def exception_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def server_message(exc: BaseException) -> str:
    """The vendor's own error text from the response body (OpenAI, Anthropic, Mistral shapes)."""
    body: Any = getattr(exc, "body", None)
    if isinstance(body, (bytes, str)):
        try:
            body = json.loads(body)
        except ValueError:
            return str(body).strip()
    for _ in range(3):  # {"error": {"message": ...}} / {"message": ...} / {"detail": ...}
        if isinstance(body, dict) and isinstance(body.get("error"), (dict, str)):
            body = body["error"]
        else:
            break
    if isinstance(body, str):
        return body.strip()
    if isinstance(body, dict):
        for key in ("message", "msg", "detail", "error_description"):
            value = body.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
            if isinstance(value, list) and value:  # pydantic-style validation details
                return json.dumps(value)[:200]
    return str(getattr(exc, "message", "") or "").strip()


def _first_line(text: str, limit: int = 160) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def redact(text: str, secret: str | None) -> str:
    """Remove the key, every secret the app knows and anything shaped like a key, a header
    value or URL credentials from ``text`` (see `birdie_tui.secrets.scrub`)."""
    return scrub(text, (secret,) if secret else ())


def _host(url: str | None) -> str:
    """The host (and port) of ``url``, never its ``user:password@`` part."""
    if not url:
        return "the API"
    parts = urlsplit(url)
    return parts.netloc.rpartition("@")[2] or scrub(url)


def classify_error(
    exc: BaseException,
    *,
    vendor: str,
    model: str | None = None,
    key_hint: str = "",
    base_url: str | None = None,
    timeout: float | None = None,
    secret: str | None = None,
    mid_stream: bool = False,
) -> ProviderError:
    """Map any SDK/transport exception to a ProviderError with one friendly line.
    ``mid_stream``: the reply had started, so a transport failure means a cut stream."""
    if isinstance(exc, ProviderError):
        return exc
    names = exception_names(exc)
    status = _status(exc)
    detail = redact(_first_line(server_message(exc) or str(exc)), secret)
    lowered = detail.lower()
    tail = f": {detail}" if detail else ""
    if status in (401, 403):
        what = "authentication failed" if status == 401 else "permission denied"
        hint = f" — check {key_hint}" if key_hint else " — check the API key"
        line, retryable = f"{vendor}: {what} ({status}){hint}", False
    elif status == 404:
        line, retryable = (f"{vendor}: model or endpoint not found (404) — check the model name "
                           f"{model!r} and base_url"), False
    elif status == 429:
        quota = "quota" in lowered or "billing" in lowered or "credit" in lowered
        why = "quota exhausted" if quota else "rate limited"
        line, retryable = f"{vendor}: {why} (429){tail} — wait a moment, then {RETRY_HINT}", True
    elif status is not None and any(hint in lowered for hint in _CONTEXT_HINTS):
        line, retryable = (f"{vendor}: the conversation is too long for {model or 'this model'}"
                           f"'s context window ({status}) — start a new session (ctrl+n)"), False
    elif status is not None and status >= 500:
        line, retryable = (f"{vendor}: server error ({status}){tail} — the service is having "
                           f"trouble; {RETRY_HINT}"), True
    elif status is not None:
        line, retryable = f"{vendor}: request rejected ({status}){tail}", False
    elif names & _TIMEOUT_NAMES:
        secs = f" within {timeout:g}s" if timeout else ""
        line, retryable = f"{vendor}: no answer{secs} (timeout) — {RETRY_HINT}", True
    elif names & _CUT_NAMES or mid_stream:  # SDKs wrap a dropped stream as a connection error
        line, retryable = (f"{vendor}: the connection dropped mid-reply — what arrived is kept; "
                           f"{RETRY_HINT}"), True
    elif names & _NETWORK_NAMES:
        line, retryable = (f"{vendor}: cannot reach {_host(base_url)} — network down or wrong "
                           f"base_url; {RETRY_HINT}"), True
    else:
        line, retryable = f"{vendor}: {type(exc).__name__}{tail}", False
    return ProviderError(redact(line, secret)[:400], status=status, retryable=retryable)
