"""NUL characters on PostgreSQL: a `text` or `jsonb` value cannot hold U+0000, while a message
piped in (`cat file | birdie-tui -p`) may, and the embedded store keeps it. Every string this
app writes to the database is escaped on the way in and unescaped on the way out, so a NUL
round-trips: U+0000 is written as U+FDD0 "0", and U+FDD0 itself (a noncharacter, reserved for
internal use) as U+FDD0 U+FDD0. A string holding neither is written and read unchanged.

`register(conn)` installs it on a connection: the `str` dumper (query parameters) and the json
dumps/loads of `jsonb` values. Plain `text` columns read back are unescaped by their reader
(`decode`), so listing 10,000 sessions keeps psycopg's fast loader for every other column.
"""

from __future__ import annotations

import json
import re
from typing import Any

from psycopg.types.json import set_json_dumps, set_json_loads
from psycopg.types.string import StrBinaryDumper, StrDumperUnknown

__all__ = ["decode", "decode_data", "encode", "encode_data", "register"]

ESC = "\ufdd0"
_PAIR = re.compile(ESC + "([" + ESC + "0])")


def encode(text: str) -> str:
    if "\x00" not in text and ESC not in text:
        return text
    return text.replace(ESC, ESC + ESC).replace("\x00", ESC + "0")


def decode(text: Any) -> Any:
    if not isinstance(text, str) or ESC not in text:
        return text
    return _PAIR.sub(lambda m: "\x00" if m.group(1) == "0" else ESC, text)


def encode_data(value: Any) -> Any:
    """`value` with every string in it (dict keys too) encoded."""
    return _walk(value, encode)


def decode_data(value: Any) -> Any:
    return _walk(value, decode)


def _walk(value: Any, fix: Any) -> Any:
    if isinstance(value, str):
        return fix(value)
    if isinstance(value, dict):
        return {fix(k) if isinstance(k, str) else k: _walk(v, fix) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_walk(v, fix) for v in value]
    return value


class _Dumper(StrDumperUnknown):
    def dump(self, obj: str) -> Any:
        return super().dump(encode(obj))


class _BinaryDumper(StrBinaryDumper):
    def dump(self, obj: str) -> Any:
        return super().dump(encode(obj))


def _dumps(value: Any) -> str:
    # json.dumps writes U+0000 as "\u0000", which jsonb refuses: escape the strings first.
    return json.dumps(encode_data(value))


def _loads(data: str | bytes) -> Any:
    return decode_data(json.loads(data))


def register(conn: Any) -> None:
    """Escape NUL in every string `conn` sends, and in jsonb both ways."""
    # The binary one first: the last registered is the default (%s), the unknown-oid text
    # dumper psycopg uses by default.
    conn.adapters.register_dumper(str, _BinaryDumper)
    conn.adapters.register_dumper(str, _Dumper)
    set_json_dumps(_dumps, conn)
    set_json_loads(_loads, conn)
