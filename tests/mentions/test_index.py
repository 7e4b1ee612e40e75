"""The working directory's index for @-completion: what it lists and what it leaves out."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from birdie_tui.mentions.index import FileIndex


def tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def listed(root: Path, **kw) -> list[str]:
    return sorted(FileIndex(root, **kw).walk().entries())


def test_files_and_folders_shallow_first_without_vcs_folders(tmp_path):
    """Entries are relative, folders end in a slash, shallow ones come first, and VCS folders are
    left out."""
    tree(tmp_path, {"README.md": "", "src/app.py": "", "src/deep/x.py": "", ".git/HEAD": "",
                    ".hg/store": ""})
    entries = FileIndex(tmp_path).walk().entries()
    assert entries == ["README.md", "src/", "src/app.py", "src/deep/", "src/deep/x.py"]


def test_gitignore_at_every_level_with_negation(tmp_path):
    """Each folder's .gitignore applies below it only; a deeper `!pattern` re-includes; an anchored
    pattern holds for its own folder."""
    tree(tmp_path, {
        ".gitignore": "*.log\nbuild/\n/secret.txt\n",
        "a.log": "", "keep.py": "", "build/out.js": "", "secret.txt": "",
        "sub/secret.txt": "",  # anchored to the root's folder: not ignored here
        "sub/.gitignore": "!important.log\n*.tmp\n",
        "sub/important.log": "", "sub/other.log": "", "sub/x.tmp": "",
        "other/x.tmp": "",  # sub's rule does not reach a sibling
    })
    assert listed(tmp_path) == [".gitignore", "keep.py", "other/", "other/x.tmp", "sub/",
                                "sub/.gitignore", "sub/important.log", "sub/secret.txt"]


def test_git_info_exclude_is_honoured(tmp_path):
    """.git/info/exclude hides what it names, as in Git."""
    tree(tmp_path, {".git/info/exclude": "local-notes/\n", "local-notes/a.md": "", "b.md": ""})
    assert listed(tmp_path) == ["b.md"]


def test_an_ignored_folder_is_not_entered(tmp_path):
    """As in Git: a file under an ignored folder cannot be re-included."""
    tree(tmp_path, {".gitignore": "node_modules/\n!node_modules/keep.js\n",
                    "node_modules/keep.js": "", "node_modules/pkg/index.js": ""})
    assert listed(tmp_path) == [".gitignore"]


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_symlinks_are_listed_but_a_linked_folder_is_not_entered(tmp_path):
    """A link is listed; a linked folder is never entered (a loop would never end); a broken link
    is left out."""
    tree(tmp_path, {"real/a.py": "", "f.txt": ""})
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)  # would never end
    (tmp_path / "link.txt").symlink_to(tmp_path / "f.txt")
    (tmp_path / "broken").symlink_to(tmp_path / "nowhere")
    assert listed(tmp_path) == ["f.txt", "link.txt", "loop/", "real/", "real/a.py"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_an_unreadable_folder_is_skipped_and_counted(tmp_path, monkeypatch):
    """A folder that cannot be listed is skipped, counted, and the walk goes on."""
    tree(tmp_path, {"locked/a.py": "", "open/b.py": ""})
    (tmp_path / "locked").chmod(0)
    if os.geteuid() == 0:  # root reads any folder: refuse it as the kernel would for a user
        real = os.scandir

        def scandir(path):
            if Path(path).name == "locked":
                raise PermissionError(13, "Permission denied", str(path))
            return real(path)

        monkeypatch.setattr("birdie_tui.mentions.index.os.scandir", scandir)
    try:
        index = FileIndex(tmp_path).walk()
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert sorted(index.entries()) == ["locked/", "open/", "open/b.py"]
    assert index.unreadable == 1


def test_the_index_is_bounded_and_says_so(tmp_path):
    """Past its limit the walk stops and the index says it holds only part of the tree."""
    tree(tmp_path, {f"f{i:03}.txt": "" for i in range(50)})
    index = FileIndex(tmp_path, limit=20).walk()
    assert len(index.entries()) == 20 and index.truncated
    assert "first 20" in index.status()
    assert FileIndex(tmp_path).walk().status() == ""


def test_a_missing_root_is_an_empty_index(tmp_path):
    """A working directory that is gone is an empty, finished index, not an error."""
    index = FileIndex(tmp_path / "gone").walk()
    assert index.entries() == [] and index.done.is_set()


def test_100k_files_are_indexed_in_a_thread_quickly(tmp_path):
    """Entries arrive while the walk goes on, and 100,000 files take seconds, not minutes."""
    for d in range(100):
        folder = tmp_path / f"pkg{d:02}"
        folder.mkdir()
        for i in range(1000):
            (folder / f"m{i}.py").touch()
    started = time.perf_counter()
    index = FileIndex(tmp_path).start()
    assert index.done.wait(60)
    assert len(index.entries()) == 100_100
    assert time.perf_counter() - started < 20
