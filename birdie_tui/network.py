"""How long the app waits on the network before it says so: a LangGraph server that accepts
connections and never answers, one killed mid-run, a database that stopped. Every wait is
bounded by `network_timeout()` seconds ($BIRDIE_NETWORK_TIMEOUT, default 30), and what the
client libraries would print about it (psycopg_pool's log lines, the LangGraph SDK's
reconnect warnings) is kept off the terminal: the app says it in one line instead.

Standard library only: the CLI, the service and the store all use it.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Mapping

__all__ = ["DEFAULT_TIMEOUT", "TIMEOUT_ENV", "network_timeout", "quiet_client_libraries"]

TIMEOUT_ENV = "BIRDIE_NETWORK_TIMEOUT"
DEFAULT_TIMEOUT = 30.0  # seconds; a LangGraph server sends a heartbeat every 5 s while it works
_QUIET_LOGGERS = ("psycopg.pool", "psycopg", "httpx", "httpcore", "langgraph_sdk")


def network_timeout(environ: Mapping[str, str] | None = None) -> float:
    """$BIRDIE_NETWORK_TIMEOUT in seconds (at least 1); the default when unset or not a number."""
    env = os.environ if environ is None else environ
    try:
        value = float(env.get(TIMEOUT_ENV, "") or DEFAULT_TIMEOUT)
    except ValueError:
        return DEFAULT_TIMEOUT
    return max(value, 1.0) if value == value else DEFAULT_TIMEOUT  # NaN: the default


def quiet_client_libraries() -> None:
    """No log record or warning of psycopg(_pool), httpx or the LangGraph SDK reaches stderr
    (35 lines of pool retries, a `UserWarning` about reconnecting): the failure they are
    about comes back as an exception, and the app reports it in one line."""
    for name in _QUIET_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())  # not logging's last resort: stderr
    warnings.filterwarnings("ignore", module=r"langgraph_sdk(\..*)?$")
