"""Uploaded code on its way into the sandbox: checked, checksummed, unpacked once, read-only."""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path

import pytest

from engine.sandbox.code import BadBotCache, BadBotCode, bot_code, install


def zipped(files: dict[str, bytes], *, link: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
        if link is not None:
            info = zipfile.ZipInfo(link)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def test_the_same_upload_unpacks_once_and_another_name_gets_its_own_directory(bot_cache: Path) -> None:
    cache = bot_cache / "cache"
    first = install(bot_code(filename="a.py", content=b"x = 1\n"), cache)
    again = install(bot_code(filename="a.py", content=b"x = 1\n"), cache)
    renamed = install(bot_code(filename="b.py", content=b"x = 1\n"), cache)
    assert first == again != renamed
    assert (first / "a.py").read_bytes() == b"x = 1\n" and (renamed / "b.py").exists()
    assert stat.S_IMODE((first / "a.py").stat().st_mode) == 0o644
    assert stat.S_IMODE(cache.stat().st_mode) == 0o711


def test_a_zip_unpacks_with_its_folders_and_its_entry(bot_cache: Path) -> None:
    code = bot_code(filename="bot.zip", content=zipped({"pkg/main.py": b"", "pkg/util.py": b""}), entry="pkg/main.py")
    directory = install(code, bot_cache / "cache")
    assert sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*.py")) == [
        "pkg/main.py",
        "pkg/util.py",
    ]
    assert code.entry == "pkg/main.py" and len(code.sha256) == 64


@pytest.mark.parametrize(
    ("content", "entry", "fragment"),
    [
        (zipped({"main.py": b""}, link="evil.py"), "", "symbolic link"),
        (zipped({"/abs.py": b"", "main.py": b""}), "", "not a plain relative path"),
        (zipped({"main.py": b""}), "../main.py", "relative path"),
        (zipped({"main.py": b""}), "main.txt", "relative path to a .py file"),
        (b"PK\x03\x04 not really", "", "not a readable zip"),
        (zipped({f"f{i}.py": b"" for i in range(201)} | {"main.py": b""}), "", "the limit is 200"),
        (zipped({"main.py": b"\xff\xfe"}), "", "not UTF-8"),
    ],
)
def test_a_bad_zip_is_refused_with_what_to_fix(content: bytes, entry: str, fragment: str) -> None:
    with pytest.raises(BadBotCode, match=fragment):
        bot_code(filename="bot.zip", content=content, entry=entry)


def test_a_cache_the_sandbox_cannot_reach_is_named_in_the_error(tmp_path: Path) -> None:
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    with pytest.raises(BadBotCache, match="cannot reach it through"):
        install(bot_code(filename="a.py", content=b"x = 1\n"), private / "cache")


def odd_zip(build: str) -> bytes:
    """Zips that zipfile writes happily and a careless unpacker trips over."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", b"def act(t): return 1\n")
        if build == "file-then-folder":
            archive.writestr("a", b"")
            archive.writestr("a/b.py", b"")
        elif build == "folder-then-file":
            archive.writestr("a/b.py", b"")
            archive.writestr("a", b"")
        elif build == "entry-as-folder":
            archive.writestr("main.py/", b"")
        elif build == "long-name":
            archive.writestr("x" * 300 + ".py", b"")
        elif build == "duplicate":
            archive.writestr("util.py", b"a = 1\n")
            with pytest.warns(UserWarning, match="Duplicate name"):
                archive.writestr("util.py", b"a = 2\n")
        elif build == "unknown-compression":
            info = zipfile.ZipInfo("util.py")
            archive.writestr(info, b"a = 1\n")
    data = buffer.getvalue()
    if build == "unknown-compression":
        # Patch the method field of util.py's headers to 97, which zipfile cannot read.
        for header in (b"PK\x03\x04", b"PK\x01\x02"):
            at = data.rfind(header)
            offset = 8 if header == b"PK\x03\x04" else 10
            data = data[: at + offset] + b"\x61\x00" + data[at + offset + 2 :]
    if build == "bad-crc":
        data = zipped({"main.py": b"def act(t): return 1\n", "util.py": b"a = 1\n"})
        at = data.rfind(b"a = 1")
        data = data[:at] + b"b" + data[at + 1 :]
    return data


@pytest.mark.parametrize(
    ("build", "fragment"),
    [
        ("file-then-folder", "both a file and a folder"),
        ("folder-then-file", "both a file and a folder"),
        ("entry-as-folder", "both a file and a folder"),
        ("long-name", "not a plain relative path"),
        ("duplicate", "appears twice"),
        ("unknown-compression", "cannot read 'util.py'"),
        ("bad-crc", "cannot read 'util.py'"),
    ],
)
def test_a_zip_that_could_not_be_unpacked_on_a_worker_is_refused_at_upload(build: str, fragment: str) -> None:
    with pytest.raises(BadBotCode, match=fragment):
        bot_code(filename="bot.zip", content=odd_zip(build))
