"""`birdie_tui.secrets`: what `scrub` masks, what it leaves alone, and the secrets it knows."""

from __future__ import annotations

import json
import logging

import pytest

from birdie_tui.providers.config import ProviderConfig
from birdie_tui.providers.errors import ProviderError, classify_error
from birdie_tui.providers.factory import describe
from birdie_tui.secrets import (
    ScrubbedError,
    collect_secrets,
    known_secrets,
    remember,
    scrub,
    scrub_data,
    scrubbed_exception,
    url_secrets,
)
from birdie_tui.store.logfile import LOG_NAME, log_to_file
from birdie_tui.text import one_line

MASKED = [
    ("http://user:s3cretpass@127.0.0.1:8080/v1", "http://***@127.0.0.1:8080/v1"),
    ("clone https://ghp_abcdef123456@github.com/o/r.git",
     "clone https://***@github.com/o/r.git"),
    ("postgres://app:p%40ss:w0rd@db:5432/x", "postgres://***@db:5432/x"),
    ("Authorization: Bearer sk-test-0123456789", "Authorization: Bearer ***"),
    ("{'Authorization': 'Basic dXNlcjpzM2NyZXRwYXNz'}", "{'Authorization': 'Basic ***'}"),
    ('{"authorization": "Token abcdefgh"}', '{"authorization": "Token ***"}'),
    ('"x-api-key": "sk-ant-api03-abcdefghij123"', '"x-api-key": "***"'),
    ("api-key: 0123456789abcdef0123456789abcdef", "api-key: ***"),
    ("sent Bearer eyJhbGciOiJIUzI1NiJ9.e30 to it", "sent Bearer *** to it"),
    ("key sk-proj-abcdefghijklmnop leaked", "key sk-*** leaked"),
    ("anthropic sk-ant-api03-Zx9_abcdefghijkl", "anthropic sk-***"),
    ("gemini AIzaSyA1234567890abcdefghijklmnopqrstuv", "gemini AIza***"),
    ("/v1/models?key=0123456789abcdef0123&alt=sse", "/v1/models?key=***&alt=sse"),
    ("https://h/x?access_token=abcdef0123456789abcdef&page=2",
     "https://h/x?access_token=***&page=2"),
    ("db password=hunter2 ok", "db password=*** ok"),
]

KEPT = [
    "see https://example.com/path?q=a@b for details",
    "api-key: missing-or-invalid",
    "authorization: required for this endpoint",
    "openai: authentication failed (401) — check OPENAI_API_KEY",
    "Bearer token is missing",
    "a task-abcdefghijklmnop and sk-learn",
    "max_tokens=1234567890123 sort_key=abcdefghijklmnopq monkey=banana",
    "a key-value-store, commit 3f2a9c1, uuid 123e4567-e89b-12d3-a456-426614174000",
    "session 2026-11-23_1 · turn 3 · ≈12.3k tok",
]


@pytest.mark.parametrize(("text", "expected"), MASKED)
def test_credentials_and_key_shapes_are_masked(text, expected):
    """URL credentials, auth headers, key shapes and key= values become ***."""
    assert scrub(text) == expected


@pytest.mark.parametrize("text", KEPT)
def test_ordinary_text_is_left_alone(text):
    """Words, short ids, hashes, URLs without credentials and key-ish prose stay as they are."""
    assert scrub(text) == text


def test_extra_and_remembered_secrets_are_masked_exactly():
    """An exact value passed in, or remembered earlier, is masked wherever it appears; a value
    too short to be a secret is never searched for."""
    assert scrub("token Zq8vLw2xNp in a sentence", ["Zq8vLw2xNp"]) == "token *** in a sentence"
    remember("Vh3kQw9zTr-remembered", "abc")
    assert scrub("echo Vh3kQw9zTr-remembered done") == "echo *** done"
    assert "abc" not in known_secrets()
    assert scrub("abc abc") == "abc abc"


def test_scrub_is_idempotent():
    """Scrubbing masked text again changes nothing."""
    for text, _ in MASKED:
        once = scrub(text)
        assert scrub(once) == once


def test_url_secrets_are_the_password_and_the_basic_value():
    """A URL's password (raw and decoded), a user-only token and the Basic-auth value an HTTP
    client builds from them are its secrets; a URL without credentials has none."""
    assert url_secrets("http://user:s3cret%21pass@h/v1") == [
        "s3cret%21pass", "s3cret!pass", "dXNlcjpzM2NyZXQhcGFzcw=="]
    assert url_secrets("https://ghp_tok3n0123456789@h") == [
        "ghp_tok3n0123456789", "Z2hwX3RvazNuMDEyMzQ1Njc4OTo="]
    assert url_secrets("postgres://postgres@db/app") == []
    assert url_secrets("https://h/v1") == []
    assert url_secrets(None) == []


def test_collect_secrets_reads_keys_urls_and_the_provider_json(tmp_path):
    """Key variables, other *_TOKEN / *PASSWORD variables, base_url passwords and the
    api_key / base_url of LLM_PROVIDER_CONFIG and of a --config file are collected."""
    config = tmp_path / "provider.json"
    config.write_text(json.dumps({"vendor": "openai", "api_key": "sk-from-file-771",
                                  "base_url": "http://u:filepass88@h/v1"}))
    found = collect_secrets({
        "OPENAI_API_KEY": "sk-env-key-123", "GITHUB_TOKEN": "ghp_0123456789abcdef",
        "SHORT_TOKEN": "none", "OLLAMA_BASE_URL": "http://u:ollamapw1@h/v1",
        "LLM_PROVIDER_CONFIG": json.dumps({"vendor": "mistral", "api_key": "inline-k3y-55"}),
        "HOME": "/home/someone-long-enough"}, None)
    assert {"sk-env-key-123", "ghp_0123456789abcdef", "ollamapw1",
            "inline-k3y-55"} <= found
    assert "none" not in found and "/home/someone-long-enough" not in found
    assert "filepass88" in collect_secrets({}, config) and "sk-from-file-771" in known_secrets()


def test_scrub_data_masks_every_string():
    """Strings inside dicts, lists and tuples are scrubbed; other values are kept."""
    data = {"message": "Bearer abc123456789", "n": 3, "items": ["http://u:pw1234@h/", ("x",)]}
    assert scrub_data(data) == {"message": "Bearer ***", "n": 3,
                                "items": ["http://***@h/", ("x",)]}


def test_scrubbed_exception_keeps_type_or_stands_in():
    """An exception with nothing to hide is itself; a user-facing one keeps its type and
    attributes with a scrubbed message; any other becomes a ScrubbedError one-liner."""
    plain = ValueError("nothing here")
    assert scrubbed_exception(plain) is plain
    provider = scrubbed_exception(ProviderError("openai: bad sk-abcdefghijkl", status=500,
                                                retryable=True))
    assert isinstance(provider, ProviderError)
    assert (str(provider), provider.status, provider.retryable) == ("openai: bad sk-***", 500,
                                                                     True)
    other = scrubbed_exception(OSError("cannot open http://u:pw12345@h/x\nsecond line"))
    assert isinstance(other, ScrubbedError) and other.user_facing
    assert str(other) == "OSError: cannot open http://***@h/x"
    assert "pw12345" not in repr(other)


def test_one_line_and_describe_are_scrubbed():
    """The one-line failure every front end shows and the model label are scrubbed."""
    assert one_line(RuntimeError("401 for Bearer sk-live-0123456789")) == \
        "RuntimeError: 401 for Bearer ***"
    config = ProviderConfig(vendor="ollama", model="http://u:modelpw1@h/llama")
    assert describe(config) == "ollama · http://***@h/llama"


class ConnectError(Exception):
    """Named like httpx's: classified as a network failure."""


def test_cannot_reach_names_the_host_without_credentials():
    """A network failure names the host and port of the base_url, never its user:password."""
    error = classify_error(ConnectError("refused"), vendor="openai",
                           base_url="http://user:s3cretpass@127.0.0.1:9/v1")
    assert "127.0.0.1:9" in str(error)
    assert "s3cretpass" not in str(error) and "user:" not in str(error)


def test_log_file_lines_are_scrubbed(tmp_path):
    """What the app logs (message, arguments, traceback) reaches its log file scrubbed."""
    path = log_to_file(tmp_path)
    logger = logging.getLogger("birdie_tui.test_secrets")
    try:
        raise RuntimeError("failed with x-api-key: sk-ant-0123456789abcdef")
    except RuntimeError:
        logger.exception("calling %s", "http://user:s3cretpass@h/v1")
    for handler in logging.getLogger("birdie_tui").handlers:
        handler.flush()
    text = (tmp_path / LOG_NAME).read_text()
    assert path == tmp_path / LOG_NAME
    assert "calling http://***@h/v1" in text and "RuntimeError: failed with x-api-key: ***" in text
    assert "s3cretpass" not in text and "0123456789abcdef" not in text
