"""The JSON files birdie-tui writes stay readable (a key per line, a list entry per line) and
read back exactly, whatever the values."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

import pytest

from birdie_tui.store import jsonio
from birdie_tui.store.jsonio import dumps_readable, read_json, write_json_atomic

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63) | st.floats(allow_nan=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)


@pytest.mark.fuzz
@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), JSON, max_size=6))
def test_readable_json_round_trips(data):
    """Any JSON object is written so that json.loads gives it back unchanged."""
    assert json.loads(dumps_readable(data)) == data


ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)


@pytest.mark.fuzz
@settings(max_examples=300, deadline=None)
@given(ANY_JSON)
def test_each_value_is_encoded_as_json_encodes_it(value):
    """The encoder made once gives, for any value (NaN, infinities, huge integers, any text,
    nesting), the text `JSONEncoder(ensure_ascii=False).encode` gives."""
    assert jsonio._encode(value) == json.JSONEncoder(ensure_ascii=False).encode(value)


def test_a_value_json_cannot_encode_is_refused_as_json_refuses_it():
    """A value of no JSON type raises json's own TypeError, naming the type."""
    with pytest.raises(TypeError, match="set is not JSON serializable"):
        dumps_readable({"k": [{1, 2}]})


def test_layout_is_a_key_per_line_and_an_entry_per_line(tmp_path):
    """Top-level keys and list entries each get their own line; the file reads back."""
    data = {"id": "2026-11-23_1", "token_log": [{"in": 1, "out": 2}, {"in": 3, "out": 4}],
            "title": "héllo", "empty": []}
    path = tmp_path / "s.json"
    write_json_atomic(path, data)
    text = path.read_text(encoding="utf-8")
    assert text.splitlines() == [
        "{", '  "id": "2026-11-23_1",', '  "token_log": [', '    {"in": 1, "out": 2},',
        '    {"in": 3, "out": 4}', "  ],", '  "title": "héllo",', '  "empty": []', "}"]
    assert read_json(path, on_corrupt=lambda _m: None, label="x") == data
