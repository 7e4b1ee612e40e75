"""The wire to a LangGraph server for `RemoteBirdie`: the SDK clients, the server's failures as
one line for the user, and thread state turned back into LangChain messages.

The SDK (httpx) and LangChain are imported inside the functions: `service` stays cheap to import.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

from birdie_tui.service.protocol import BirdieError

GRAPH = "birdie"  # the agent graph of langgraph.json
INFO_GRAPH = "birdie_info"  # the stateless catalog graph
META_KEY = "birdie"  # thread metadata: grants, approvals, mode, and the list's figures
T = TypeVar("T")


def host_of(url: str) -> str:
    """`host:port` of a server URL, for the status bar (never its user part: a token)."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    return parts.netloc.rpartition("@")[2] or shown_url(url)


def shown_url(url: str) -> str:
    """`url` as it may be printed: a user part (`user:password@`, `token@`) becomes `***@`."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc="***@" + parts.netloc.rpartition("@")[2]).geturl()


def normal_url(url: str) -> str:
    url = url.strip().rstrip("/")
    if not url:
        raise BirdieError("--server needs the URL of a LangGraph server (e.g. "
                          "http://127.0.0.1:2024)")
    if "://" not in url:
        url = f"http://{url}"
    if urlsplit(url).scheme not in ("http", "https"):
        raise BirdieError(f"--server {url!r}: only http:// and https:// URLs are supported")
    return url


class Wire:
    """One server: an async client for turns and a sync one for the door's sync methods (they
    may be called from a worker thread)."""

    def __init__(self, url: str, *, api_key: str | None = None) -> None:
        from langgraph_sdk import get_client, get_sync_client

        from birdie_tui.network import network_timeout, quiet_client_libraries

        quiet_client_libraries()
        self.url = normal_url(url)
        self.host = host_of(self.url)
        self.shown = shown_url(self.url)  # what /info and error lines show
        # api_key None: never send a LangSmith key from the environment to this server.
        # Bounded waits (the SDK's own read timeout is 300 s): a server that accepts and never
        # answers, or dies mid-run, is said within $BIRDIE_NETWORK_TIMEOUT; a working server
        # sends a heartbeat every 5 s, so a long turn never trips it.
        self.timeout = network_timeout()
        # The SDK makes it an httpx.Timeout (the same one for every phase).
        self.aio = get_client(url=self.url, api_key=api_key, timeout=self.timeout)
        self.sync = get_sync_client(url=self.url, api_key=api_key, timeout=self.timeout)

    async def call(self, make: Callable[[], Awaitable[T]], *, thread: str | None = None) -> T:
        try:
            return await make()
        except Exception as exc:  # noqa: BLE001 - every failure is one line for the user
            raise self.error(exc, thread) from None

    def call_sync(self, make: Callable[[], T], *, thread: str | None = None) -> T:
        try:
            return make()
        except Exception as exc:  # noqa: BLE001
            raise self.error(exc, thread) from None

    def error(self, exc: BaseException, thread: str | None = None) -> BirdieError:
        return BirdieError(describe(exc, self.url, thread))

    async def aclose(self) -> None:
        import contextlib

        with contextlib.suppress(Exception):
            await self.aio.aclose()
        with contextlib.suppress(Exception):
            self.sync.close()


def describe(exc: BaseException, url: str, thread: str | None = None) -> str:
    """The server's failure as one line: unreachable, unknown session, busy session, or what
    the server said."""
    import httpx

    from birdie_tui.text import one_line

    if isinstance(exc, BirdieError):
        return str(exc)
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status is None:
        status = getattr(exc, "status_code", None)
    if status in (404, 422) and thread:
        return f"session {thread} not found on the server {host_of(url)}"
    if status == 409:
        return (f"session {thread} is busy: another client is running a turn on it"
                if thread else "the server is busy with a turn on that session")
    if isinstance(exc, httpx.TimeoutException) and status is None:
        from birdie_tui.network import TIMEOUT_ENV, network_timeout

        return (f"the LangGraph server at {shown_url(url)} did not answer within "
                f"{network_timeout():g} s (${TIMEOUT_ENV})")
    if isinstance(exc, (httpx.TransportError, OSError)) and status is None:
        return f"cannot reach the LangGraph server at {shown_url(url)}: {one_line(exc)}"
    if status is not None:
        detail = _detail(exc)
        return f"the LangGraph server at {host_of(url)} answered {status}: {detail}"
    return one_line(exc)


def _detail(exc: BaseException) -> str:
    from birdie_tui.text import one_line

    body = getattr(exc, "body", None)
    if isinstance(body, dict) and body.get("detail"):
        return one_line(str(body["detail"]))
    return one_line(exc)


def to_messages(items: Any) -> list[Any]:
    """Thread state messages (plain dicts on the wire) as LangChain messages, so the local row
    builders, accounting and provenance readers apply unchanged. Anything unreadable is left
    out, never fatal."""
    from langchain_core.messages import messages_from_dict

    out: list[Any] = []
    for item in items or ():
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            continue
        try:
            out += messages_from_dict([{"type": item["type"], "data": item}])
        except (ValueError, TypeError, KeyError):
            continue
    return out


def message_dict(message: Any) -> dict[str, Any]:
    """A LangChain message as the wire's plain dict (for `update_state`)."""
    data: dict[str, Any] = message.model_dump()
    data["type"] = message.type
    return data
