"""Uploaded bot code: checked on the way in, unpacked once per worker machine, read-only afterwards.

An upload is one Python file or a zip with an entry module. Nothing here runs
or even compiles the code: that happens only in the sandbox, so a hostile file
can hurt nothing but its own validation match.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import stat
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from engine.errors import EngineError, WorkerFault

MAX_UPLOAD_BYTES = 512 * 1024
MAX_UNPACKED_BYTES = 4 * 1024 * 1024
MAX_FILES = 200
DEFAULT_ENTRY = "main.py"
#: Where the SDK file comes from: the bot runs the very SDK the referee speaks.
SDK_SOURCE = Path(__file__).resolve().parent.parent / "sdk.py"


class BadBotCode(EngineError, ValueError):
    """An upload that cannot be a bot: the message says what to fix."""


class BadBotCache(WorkerFault):
    """The worker's bot cache is somewhere the sandbox cannot read: a deployment error."""


@dataclass(frozen=True)
class BotCode:
    """What a version stores: the uploaded bytes, how to read them and their checksum."""

    filename: str
    content: bytes
    entry: str
    sha256: str

    @property
    def is_zip(self) -> bool:
        return self.filename.lower().endswith(".zip")


def bot_code(*, filename: str, content: bytes, entry: str = "") -> BotCode:
    """Check an upload: a ``.py`` file of UTF-8 text, or a ``.zip`` whose entry module is inside."""
    name = PurePosixPath(filename.replace("\\", "/")).name
    if not content:
        raise BadBotCode(f"{name or 'the upload'} is empty")
    if len(content) > MAX_UPLOAD_BYTES:
        raise BadBotCode(f"{name} is {len(content):,} bytes; the limit is {MAX_UPLOAD_BYTES:,}")
    if name.lower().endswith(".py"):
        if entry and entry != name:
            raise BadBotCode(f"entry {entry!r} names another file: a single .py upload is its own entry")
        _check_text(name, content)
        return BotCode(filename=name, content=content, entry=name, sha256=_sha256(content))
    if name.lower().endswith(".zip"):
        entry = entry or DEFAULT_ENTRY
        _check_zip(name, content, entry)
        return BotCode(filename=name, content=content, entry=entry, sha256=_sha256(content))
    raise BadBotCode(f"{name or 'the upload'}: upload a .py file or a .zip with an entry module")


def _sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def _check_text(name: str, content: bytes) -> None:
    try:
        content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadBotCode(f"{name} is not UTF-8 text (byte {exc.start})") from None
    if b"\x00" in content:
        raise BadBotCode(f"{name} contains a NUL byte: it is not Python source")


def _check_zip(name: str, content: bytes, entry: str) -> None:
    """Every member is read here, whole, so that a zip which passes can also be unpacked on a worker."""
    if not entry.endswith(".py") or not _safe_member(entry):
        raise BadBotCode(f"entry {entry!r} must be a relative path to a .py file inside the zip")
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
        members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise BadBotCode(f"{name} is not a readable zip: {exc}") from None
    if len(members) > MAX_FILES:
        raise BadBotCode(f"{name} holds {len(members)} files; the limit is {MAX_FILES}")
    files: set[str] = set()
    folders: set[str] = set()
    for member in members:
        path = member.filename.rstrip("/")
        if not _safe_member(member.filename) or any(len(part.encode()) > 255 for part in path.split("/")):
            raise BadBotCode(f"{name}: {member.filename!r} is not a plain relative path inside the bot's directory")
        if stat.S_ISLNK(member.external_attr >> 16):
            raise BadBotCode(f"{name}: {member.filename!r} is a symbolic link; links are not allowed")
        if not member.is_dir() and path in files:
            raise BadBotCode(f"{name}: {path!r} appears twice")
        (folders if member.is_dir() else files).add(path)
        parts = path.split("/")
        folders.update("/".join(parts[:depth]) for depth in range(1, len(parts)))
    if clash := sorted(files & folders):
        raise BadBotCode(f"{name}: {clash[0]!r} is both a file and a folder")
    if entry not in files:
        raise BadBotCode(f"{name} has no {entry!r}: name the entry module, or add a main.py at the top level")
    total = 0
    for member in members:
        try:
            with archive.open(member) as source:
                # Counted while reading, not from the declared sizes, which a zip bomb can fake.
                while chunk := source.read(64 * 1024):
                    total += len(chunk)
                    if total > MAX_UNPACKED_BYTES:
                        raise BadBotCode(f"{name} unpacks to more than {MAX_UNPACKED_BYTES:,} bytes")
                    if member.filename == entry:
                        _check_text(entry, chunk)
        except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, RuntimeError, EOFError) as exc:
            # Bad CRCs, encryption (RuntimeError), unknown compression methods, truncated data.
            raise BadBotCode(f"{name}: cannot read {member.filename!r}: {exc}") from None


def _safe_member(path: str) -> bool:
    parts = PurePosixPath(path).parts
    return bool(parts) and not path.startswith("/") and "\\" not in path and ".." not in parts and ":" not in parts[0]


def install(code: BotCode, cache_dir: Path) -> Path:
    """The directory holding this code unpacked, readable by the sandbox's uids and by nobody's writes.

    Named by checksum, so workers on one machine share it and never see half an upload.
    """
    # The name counts as well as the bytes: the same content uploaded as a.py and as b.py runs as two files.
    key = hashlib.sha256(f"{code.filename}\0{code.entry}\0{code.sha256}".encode()).hexdigest()

    def fill(staging: Path) -> None:
        if code.is_zip:
            _unpack(code, staging)
        else:
            (staging / code.entry).write_bytes(code.content)

    return _published(_cache_root(cache_dir) / key, fill)


def sdk_dir(cache_dir: Path) -> Path:
    """The SDK as an ``engine`` package of one module, for the sandbox's read-only ``/sdk`` mount."""
    source = SDK_SOURCE.read_bytes()

    def fill(staging: Path) -> None:
        package = staging / "engine"
        package.mkdir()
        (package / "__init__.py").write_bytes(b"")
        (package / "sdk.py").write_bytes(source)

    return _published(_cache_root(cache_dir) / f"sdk-{_sha256(source)[:16]}", fill)


def _published(target: Path, fill: Callable[[Path], None]) -> Path:
    """``target``, made once: filled in a staging directory, then renamed into place whole.

    Concurrent workers on one machine may race to make the same directory; the
    loser's rename fails on the winner's complete copy, which it then uses.
    """
    if target.is_dir():
        return target
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=target.parent))
    try:
        fill(staging)
        _make_readable(staging)
        try:
            os.rename(staging, target)
        except OSError:
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _cache_root(cache_dir: Path) -> Path:
    cache_dir.mkdir(parents=True, exist_ok=True)
    # Bots' uids traverse it but cannot list it.
    cache_dir.chmod(0o711)
    for parent in cache_dir.resolve().parents:
        if not parent.stat().st_mode & stat.S_IXOTH:
            raise BadBotCache(
                f"bot cache {cache_dir}: the sandbox's uids cannot reach it through {parent} "
                f"(mode {parent.stat().st_mode & 0o777:o}); choose a directory under /tmp or /var"
            )
    return cache_dir


def _unpack(code: BotCode, into: Path) -> None:
    try:
        _unpack_members(code, into)
    except (zipfile.BadZipFile, OSError, NotImplementedError, RuntimeError, EOFError) as exc:
        # Uploads are checked on the way in; this catches what a checker of an older release let through.
        raise BadBotCode(f"{code.filename} cannot be unpacked: {exc}") from None


def _unpack_members(code: BotCode, into: Path) -> None:
    written = 0
    with zipfile.ZipFile(io.BytesIO(code.content)) as archive:
        for member in archive.infolist():
            target = into / member.filename
            if member.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as source, target.open("wb") as sink:
                while chunk := source.read(64 * 1024):
                    written += len(chunk)
                    if written > MAX_UNPACKED_BYTES:
                        raise BadBotCode(f"{code.filename} unpacks to more than {MAX_UNPACKED_BYTES:,} bytes")
                    sink.write(chunk)


def _make_readable(root: Path) -> None:
    for directory, _dirs, files in os.walk(root):
        os.chmod(directory, 0o755)
        for name in files:
            os.chmod(os.path.join(directory, name), 0o644)
