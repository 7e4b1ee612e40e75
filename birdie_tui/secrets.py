"""Keeping secrets out of everything the app writes or shows.

`scrub(text)` redacts credentials in URLs (`https://user:pass@host` → `https://***@host`),
`Authorization` / `x-api-key` / `api-key` header values, the usual key shapes (`sk-…`,
`sk-ant-…`, `AIza…`, a long value after `key=` / `token=` / `api_key=`) and every exact secret
the app knows of: the API keys and base_url passwords of the environment and the provider
config (`collect_secrets`, run once by the engine, and lazily from `os.environ` on first use).

Standard library only (the provider config module is imported inside `collect_secrets`), so
the CLI, the service and `birdie_tui.text` can all use it without pulling anything heavy.
"""

from __future__ import annotations

import base64
import copy
import os
import re
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

MASK = "***"
# An exact secret shorter than this is not searched for (it would hit ordinary words).
MIN_SECRET = 6
# Other environment variables whose values are secrets (GITHUB_TOKEN, HF_TOKEN, ...); their
# values must be this long, so a placeholder such as "none" or "changeme" is left alone.
_SECRET_NAME = re.compile(r"(API_KEY|APIKEY|_TOKEN|_SECRET|SECRET_KEY|PASSWORD|_PASS)$", re.I)
_MIN_OTHER = 12

_TOKEN = r"[A-Za-z0-9._~+/=\-]"
_DIGIT_AHEAD = r"(?=[A-Za-z._~+/=\-]*\d)"  # the value that follows has a digit in it
# (literals one of which must be in the lowered text, pattern, replacement): the literal check
# spares the regexes most text (a big tool output is scanned in a few C-speed `in` tests).
_PATTERNS: tuple[tuple[tuple[str, ...], re.Pattern[str], str], ...] = (
    # scheme://user:pass@host and scheme://token@host: the whole user part, up to the last @.
    (("://",), re.compile(r"\b([A-Za-z][A-Za-z0-9+.\-]*://)[^\s/?#\"'<>]*@"), rf"\1{MASK}@"),
    # Authorization: Bearer/Basic/Token <value> (or a long value with a digit), as a header
    # line, a dict or JSON.
    (("authorization",),
     re.compile(r"""(?i)(\bauthorization["']?\s*[:=]\s*["']?)"""
                rf"(?:((?:bearer|basic|token|digest)\s+){_TOKEN}{{6,}}|{_DIGIT_AHEAD}"
                rf"{_TOKEN}{{16,}})"), rf"\1\2{MASK}"),
    # x-api-key / api-key / x-goog-api-key headers (Anthropic, Azure, Gemini).
    (("api-key",),
     re.compile(r"""(?i)(\b(?:x-api-key|x-goog-api-key|api-key)["']?\s*[:=]\s*["']?)"""
                rf"{_DIGIT_AHEAD}{_TOKEN}{{12,}}"), rf"\1{MASK}"),
    # A bare "Bearer <token>" / "Basic <token>" (the value must look like one: a digit in it).
    (("bearer", "basic"), re.compile(rf"\b(Bearer|Basic)\s+{_DIGIT_AHEAD}{_TOKEN}{{8,}}"),
     rf"\1 {MASK}"),
    # Key shapes: OpenAI / Anthropic (sk-, sk-proj-, sk-ant-), Google (AIza...), key-<...>.
    (("sk-",), re.compile(r"(?<![A-Za-z0-9_\-])sk-[A-Za-z0-9_\-]{8,}"), f"sk-{MASK}"),
    (("aiza",), re.compile(r"(?<![A-Za-z0-9_\-])AIza[A-Za-z0-9_\-]{20,}"), f"AIza{MASK}"),
    (("key-",), re.compile(rf"(?<![A-Za-z0-9_\-])key-{_DIGIT_AHEAD}[A-Za-z0-9_\-]{{16,}}"),
     f"key-{MASK}"),
    # key=..., token=..., api_key=... in a query string or a log line (a long value only);
    # password= and secret= whatever their length.
    (("key=", "token=", "sig=", "signature=", "secret="),
     re.compile(r"(?i)(?<![A-Za-z0-9_\-])((?:api[_-]?key|access[_-]?token|auth[_-]?token|key|"
                r"token|sig|signature|client[_-]?secret)=)[A-Za-z0-9._~+/%\-]{12,}=*"),
     rf"\1{MASK}"),
    (("password=", "passwd=", "pwd=", "secret="),
     re.compile(r"(?i)(?<![A-Za-z0-9_\-])((?:password|passwd|pwd|secret)=)[^\s&#\"'<>]{3,}"),
     rf"\1{MASK}"),
)


class ScrubbedError(Exception):
    """Stands in for an exception whose text held a secret: its message is the scrubbed
    one-line `TypeName: message` of the original (shown as is, see `birdie_tui.text`)."""

    user_facing = True


class _Known:
    """The exact secret values known so far, and one regex finding any of them."""

    def __init__(self) -> None:
        self.values: set[str] = set()
        self.pattern: re.Pattern[str] | None = None
        self.env_read = False
        self.lock = threading.Lock()

    def add(self, values: Iterable[str]) -> None:
        fresh = {v for v in values if v and len(v) >= MIN_SECRET and v not in self.values}
        if not fresh:
            return
        with self.lock:
            self.values |= fresh
            ordered = sorted(self.values, key=len, reverse=True)  # the longest first
            self.pattern = re.compile("|".join(map(re.escape, ordered)))


_KNOWN = _Known()


def remember(*values: str | None) -> None:
    """Add exact secret values (too short ones are ignored)."""
    _KNOWN.add(v.strip() for v in values if isinstance(v, str))


def url_secrets(url: str | None) -> list[str]:
    """The secrets in a URL's user part: the password (raw and decoded), a user-only token
    (a long one: a short user name is not a secret), and the Basic-auth value an HTTP client
    builds from them."""
    if not url or "@" not in url:
        return []
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return []
    userinfo = parts.netloc.rpartition("@")[0]
    if not userinfo:
        return []
    user, colon, password = userinfo.partition(":")
    if not colon and len(user) < _MIN_OTHER:  # `postgres://postgres@db`: a name, not a token
        return []
    found = [password, unquote(password)] if colon else [user, unquote(user)]
    pair = f"{unquote(user)}:{unquote(password)}".encode()
    found.append(base64.b64encode(pair).decode())
    return [value for value in dict.fromkeys(found) if value]


def known_secrets() -> frozenset[str]:
    """Every exact secret value registered so far (collecting `os.environ` once first)."""
    _ensure_env()
    return frozenset(_KNOWN.values)


def collect_secrets(environ: Mapping[str, str] | None = None,
                    config_file: Path | str | None = None) -> frozenset[str]:
    """Find the secrets of `environ` (default `os.environ`) and the provider config: API key
    variables (KEY_VARS and any *_API_KEY / *_TOKEN / *_SECRET / *PASSWORD), base_url
    credentials, and `api_key` / `base_url` of LLM_PROVIDER_CONFIG or the --config file.
    They are remembered for `scrub`; returns all that are known."""
    from birdie_tui.providers.config import BASE_URL_VARS, KEY_VARS, ConfigError, provider_json

    env = os.environ if environ is None else environ
    found: list[str] = []
    key_names = {name for names in KEY_VARS.values() for name in names}
    for name, value in env.items():
        value = (value or "").strip()
        if name in key_names:
            found.append(value)
        elif _SECRET_NAME.search(name) and len(value) >= _MIN_OTHER:
            found.append(value)
        if name in BASE_URL_VARS.values() or name.endswith(("_URL", "_ENDPOINT")):
            found += url_secrets(value)
    try:
        _, data = provider_json(env, Path(config_file) if config_file else None)
    except (ConfigError, OSError):
        data = {}
    found += [data.get("api_key") or "", *url_secrets(data.get("base_url"))]
    remember(*found)
    if environ is None:
        _KNOWN.env_read = True
    return known_secrets()


# Variables a tool process never inherits (unless its skill's `env:` names them): the
# provider keys and config, the app's own secrets, and anything named like a credential.
_TOOL_HIDDEN = frozenset({"LLM_PROVIDER_CONFIG", "BIRDIE_DATABASE_URL", "BIRDIE_SERVER_API_KEY",
                          "PGPASSWORD", "PGPASSFILE"})
_TOOL_SECRET_NAME = re.compile(r"(API_?KEY|_TOKEN$|_SECRET|SECRET_KEY|PASSWORD|PASSWD|_PASS$|"
                               r"^AZURE_OPENAI_.*KEY)", re.I)


def tool_environment(environ: Mapping[str, str] | None = None,
                     allow: Iterable[str] = ()) -> dict[str, str]:
    """`environ` (default `os.environ`) without what a tool (`bash:` process) must not read:
    provider API keys, LLM_PROVIDER_CONFIG, BIRDIE_DATABASE_URL / BIRDIE_SERVER_API_KEY,
    PGPASSWORD, any *_API_KEY / *_TOKEN / *_SECRET / *PASSWORD* name, and any variable whose
    value is a secret the app knows (the provider config's key) or a URL with credentials.
    The names in `allow` (a skill's `env:` list) pass through anyway."""
    from birdie_tui.providers.config import KEY_VARS

    env = os.environ if environ is None else environ
    allowed = {name for name in allow if isinstance(name, str)}
    key_names = {name for names in KEY_VARS.values() for name in names}
    known = known_secrets() if environ is None else collect_secrets(env)
    kept: dict[str, str] = {}
    for name, value in env.items():
        if name not in allowed and (
                name in key_names or name in _TOOL_HIDDEN or _TOOL_SECRET_NAME.search(name)
                or (value or "").strip() in known or url_secrets(value)):
            continue
        kept[name] = value
    return kept


def remember_config(config: Any) -> None:
    """The key and base_url credentials of a ProviderConfig (duck-typed)."""
    remember(getattr(config, "api_key", None), *url_secrets(getattr(config, "base_url", None)))


def _ensure_env() -> None:
    if not _KNOWN.env_read:
        _KNOWN.env_read = True
        try:
            collect_secrets()
        except Exception:  # noqa: BLE001 - scrubbing goes on with the patterns alone
            pass


def scrub(text: str, extra_secrets: Iterable[str] = ()) -> str:
    """`text` with every known secret, `extra_secrets` and credential-shaped string masked."""
    if not text or not isinstance(text, str):
        return text
    _ensure_env()
    extra = sorted({s for s in extra_secrets if s and len(s) >= MIN_SECRET}, key=len,
                   reverse=True)
    for secret in extra:
        text = text.replace(secret, MASK)
    pattern = _KNOWN.pattern
    if pattern is not None:
        text = pattern.sub(MASK, text)
    lowered = text.lower()
    for literals, regex, replacement in _PATTERNS:
        if any(literal in lowered for literal in literals):
            text = regex.sub(replacement, text)
    return text


def scrub_data(value: Any) -> Any:
    """`value` with every string in it (dict values, list items) scrubbed; dict keys too."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {scrub_data(k): scrub_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_data(v) for v in value]
    if type(value) is tuple:
        return tuple(scrub_data(v) for v in value)
    return value


def scrubbed_exception(exc: BaseException) -> BaseException:
    """`exc` itself when neither its text nor its repr holds a secret, else a `ScrubbedError`
    saying the same without it (a `user_facing` exception keeps its own words)."""
    text, shown = str(exc), repr(exc)
    clean = scrub(text)
    if clean == text and scrub(shown) == shown:
        return exc
    if getattr(exc, "user_facing", False) is True:
        try:  # the same type and attributes (a ProviderError keeps status and retryable)
            safe = copy.copy(exc)
            safe.args = (clean,)
            return safe
        except Exception:  # noqa: BLE001 - a type that cannot be copied says it plainly
            return ScrubbedError(clean)
    first = clean.strip().splitlines()[0].strip() if clean.strip() else ""
    name = type(exc).__name__
    return ScrubbedError(f"{name}: {first}" if first else name)
