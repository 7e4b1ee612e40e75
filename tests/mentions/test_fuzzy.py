"""Fuzzy ranking of @-completion: what comes first, and that it stays cheap."""

from __future__ import annotations

import time

from birdie_tui.mentions.fuzzy import Matcher, subsequence

PATHS = ["docs/", "docs/readme-old.txt", "README.md", "src/", "src/reader.py",
         "src/app/", "src/app/read_me.py", "tests/test_reader.py", "vendor/r/e/a/d.c"]


def test_a_name_starting_with_the_query_comes_first():
    """A file name that starts with the query ranks above one that merely holds it."""
    ranked = Matcher().rank("read", PATHS)
    assert ranked[0] == "README.md"
    assert ranked.index("src/reader.py") < ranked.index("docs/readme-old.txt")


def test_a_subsequence_matches_when_substrings_are_few():
    """Letters in order with gaps match (rdme finds README.md) when substrings are too few."""
    assert Matcher().rank("rdme", PATHS)[:2] == ["README.md", "docs/readme-old.txt"]
    assert "src/app/read_me.py" in Matcher().rank("apprm", PATHS)


def test_a_query_may_cross_folders_and_matches_case_insensitively():
    """A query with a slash matches across folders, whatever the case."""
    assert Matcher().rank("SRC/APP/R", PATHS) == ["src/app/read_me.py"]


def test_no_match_is_an_empty_list_and_the_empty_query_lists_the_first_entries():
    """Nothing matching is an empty list; an empty query shows the first (shallowest) entries."""
    matcher = Matcher()
    assert matcher.rank("zzz", PATHS) == []
    assert matcher.rank("", PATHS, limit=3) == PATHS[:3]


def test_a_growing_list_is_seen():
    """Entries added while the index walks are matched on the next query."""
    entries = ["a.py"]
    matcher = Matcher()
    assert matcher.rank("b", entries) == []
    entries.append("b.py")
    assert matcher.rank("b", entries) == ["b.py"]


def test_special_characters_are_literal():
    """Regex characters in a query are matched literally."""
    assert subsequence("a]-b^\\").search("xa]z-yb^\\")
    assert Matcher().rank("a.*", ["abc", "a.*x"]) == ["a.*x"]


def test_a_query_over_100k_paths_takes_milliseconds():
    """Ranking 100,000 paths stays well under a keystroke's budget, whatever the query."""
    paths = [f"pkg{d}/mod{d % 7}/file_{i}.py" for d in range(100) for i in range(1000)]
    matcher = Matcher()
    matcher.rank("x", paths)  # the joined text is built once
    worst = 0.0
    for query in ("f", "fi", "file_9", "pkg9/mod2", "zzzz", "pkg/mod/fl", "qqqqqqqqqq"):
        started = time.perf_counter()
        matcher.rank(query, paths)
        worst = max(worst, time.perf_counter() - started)
    assert worst < 0.25  # ~20 ms on an idle core; generous for a shared machine
