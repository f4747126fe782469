"""Starting one bot process inside bubblewrap: namespaces, a minimal read-only filesystem, limits.

Why each part is there (DESIGN.md, "Sandbox facts on these machines"):
- The bot runs under its own unprivileged uid, never root: ``RLIMIT_NPROC`` does
  not bind root, even inside a user namespace, and a fork bomb must hit it.
- It sees only the interpreter, its standard library and shared libraries, its
  own code (read-only) and a small private tmpfs. The default Python lives under
  /root, which other users cannot read, so the sandbox uses Debian's python3.
- ``--unshare-all`` takes away the network (a fresh namespace with no
  interfaces up), other processes (pid), IPC and the host name.
- ``--die-with-parent`` and ``--new-session``: the bot dies with its worker and
  cannot reach the worker's terminal.
"""

from __future__ import annotations

import ctypes
import fcntl
import functools
import os
import resource
import secrets
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from engine.errors import WorkerFault
from engine.sandbox.cgroups import BotCgroup

#: The uids bots run as: each live sandbox on a machine holds one of its own, leased by a lock file.
UID_BASE = 200_000
UID_COUNT = 65_536

#: Where the code lives inside the sandbox.
BOT_DIR = "/bot"
SDK_DIR = "/sdk"
SCRATCH_DIR = "/tmp"

# Loads the SDK from its read-only mount and hands it the bot's entry file.
_BOOT = f"import sys; sys.path.insert(0, {SDK_DIR!r}); from engine.sdk import main; sys.exit(main(sys.argv[1:]))"


class SandboxUnavailable(WorkerFault):
    """This machine cannot run sandboxed bots (bubblewrap or python3 missing)."""


@dataclass(frozen=True)
class SandboxLimits:
    #: Address space: a memory bomb fails its allocation inside the sandbox.
    memory_mb: int = 512
    #: CPU seconds for the whole match, all threads together.
    cpu_seconds: int = 60
    #: Processes and threads of the bot's uid, the sandbox's own two included.
    processes: int = 32
    file_mb: int = 8
    open_files: int = 64
    scratch_mb: int = 16
    #: stderr kept for the bot's owner; the rest is drained and dropped.
    log_bytes: int = 64 * 1024

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"sandbox limit {name} must be a positive integer, not {value!r}")


@dataclass(frozen=True)
class Runtime:
    """The interpreter a bot runs on, and what of the host it needs mounted."""

    python: str
    mounts: tuple[str, ...]


def bwrap_path() -> str:
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed: run `make setup` or apt-get install bubblewrap")
    return path


@functools.cache
def runtime(python: str = "/usr/bin/python3") -> Runtime:
    """Debian's python3 and the directories it loads from, asked of the interpreter itself."""
    if not os.access(python, os.X_OK):
        raise SandboxUnavailable(f"the sandbox's python {python!r} is missing: apt-get install python3")
    probe = (
        "import sys, sysconfig; print(sysconfig.get_path('stdlib')); print(sysconfig.get_path('platstdlib'));"
        "print(sysconfig.get_config_var('LIBDIR') or '')"
    )
    try:
        out = subprocess.run([python, "-I", "-S", "-c", probe], capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        raise SandboxUnavailable(f"the sandbox's python {python!r} does not run: {exc}") from None
    real = os.path.realpath(python)
    if real.startswith("/root/") or real.startswith("/home/"):
        raise SandboxUnavailable(f"{real} is in a private home directory the bot's uid cannot read")
    dirs = [line for line in out.stdout.splitlines() if line]
    # The loader and the C libraries the interpreter links against.
    dirs += [d for d in ("/usr/lib64",) if os.path.isdir(d)]
    return Runtime(python=real, mounts=tuple(dict.fromkeys([real, *dirs])))


class UidLease:
    """A sandbox uid held for one sandbox's life: no other sandbox on the machine runs as it meanwhile.

    Two bots under one uid would share a process limit, and killing one
    sandbox's uid would kill the other bot too. The lock is an flock on a file
    per uid, so it is shared by every worker process on the machine and
    released by the kernel if a worker dies.
    """

    def __init__(self, lock_dir: Path) -> None:
        lock_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        start = secrets.randbelow(UID_COUNT)
        for step in range(UID_COUNT):
            uid = UID_BASE + (start + step) % UID_COUNT
            fd = os.open(lock_dir / str(uid), os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            return
        raise SandboxUnavailable(f"all {UID_COUNT} sandbox uids are in use on this machine")

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def bwrap_command(*, code_dir: Path, entry: str, sdk_dir: Path, limits: SandboxLimits, rt: Runtime) -> list[str]:
    args = [
        bwrap_path(),
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--new-session",
        "--die-with-parent",
        "--clearenv",
        "--setenv", "PYTHONIOENCODING", "utf-8",
        "--setenv", "HOME", SCRATCH_DIR,
        "--setenv", "PATH", "/usr/bin",
        # glibc reserves 64 MiB of address space per thread's arena: without a cap a few threads
        # would use up the address-space limit before allocating anything.
        "--setenv", "MALLOC_ARENA_MAX", "2",
        "--hostname", "bot",
        "--proc", "/proc",
        "--dev", "/dev",
        # bwrap's /dev is a tmpfs of its own with no size limit: read-only, it can hold nothing.
        "--remount-ro", "/dev",
    ]  # fmt: skip
    for path in rt.mounts:
        args += ["--ro-bind", path, path]
    args += [
        "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/bin", "/bin",
        "--symlink", "usr/lib64", "/lib64",
        "--ro-bind", str(code_dir), BOT_DIR,
        "--ro-bind", str(sdk_dir), SDK_DIR,
        "--size", str(limits.scratch_mb * 1024 * 1024),
        "--tmpfs", SCRATCH_DIR,
        # The root bwrap builds is a writable tmpfs: everything outside the scratch directory is read-only.
        "--remount-ro", "/",
        "--chdir", SCRATCH_DIR,
        "--",
        rt.python, "-I", "-S", "-B", "-c", _BOOT, f"{BOT_DIR}/{entry}",
    ]  # fmt: skip
    return args


def spawn(
    *,
    code_dir: Path,
    entry: str,
    sdk_dir: Path,
    limits: SandboxLimits,
    python: str,
    uid: int,
    cgroup: BotCgroup | None,
) -> subprocess.Popen[bytes]:
    """Start the bot under its leased uid, in its cgroup; its stdin, stdout and stderr are pipes to this process."""
    command = bwrap_command(code_dir=code_dir, entry=entry, sdk_dir=sdk_dir, limits=limits, rt=runtime(python))
    if not can_switch_uid():
        raise SandboxUnavailable(_UID_SWITCH_HINT)
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={},
            start_new_session=True,
            preexec_fn=functools.partial(_enter_sandbox, limits, uid, cgroup),
            close_fds=True,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise SandboxUnavailable(f"cannot start the sandbox under uid {uid}: {exc}") from None
    return process


def kill_uid(uid: int) -> None:
    """SIGKILL every process of a sandbox uid, wherever in its namespaces it hides.

    bwrap puts the bot in a session of its own, so killing bwrap's process group
    leaves the bot to die later by its parent-death signal; a forked child that
    becomes the uid and signals -1 reaches every process of that uid at once.
    """
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.setgid(uid)
            os.setuid(uid)
            os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


_libc = ctypes.CDLL(None, use_errno=True)
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4


def _enter_sandbox(limits: SandboxLimits, uid: int, cgroup: BotCgroup | None) -> None:
    """Runs in the child before exec: cgroup, limits, then the bot's uid, for bwrap and all it starts.

    The cgroup comes first, while the child may still write to it. A worker
    that is not root holds CAP_SETUID and CAP_SETGID as ambient capabilities,
    which a switch between two non-zero uids keeps: they are cleared last, so
    that neither bwrap (which refuses them) nor the bot gets them.
    """
    if cgroup is not None:
        cgroup.attach_self()
    mib = 1024 * 1024
    for which, value in (
        (resource.RLIMIT_AS, limits.memory_mb * mib),
        (resource.RLIMIT_CPU, limits.cpu_seconds),
        (resource.RLIMIT_NPROC, limits.processes),
        (resource.RLIMIT_FSIZE, limits.file_mb * mib),
        (resource.RLIMIT_NOFILE, limits.open_files),
        (resource.RLIMIT_CORE, 0),
    ):
        # CPU: the soft limit sends SIGXCPU, which the bot's owner is told was its CPU time; at a hard
        # limit equal to it the kernel would send SIGKILL instead, and the cause would be lost.
        hard = value + 1 if which == resource.RLIMIT_CPU else value
        resource.setrlimit(which, (value, hard))
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    _libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)


_UID_SWITCH_HINT = "the worker must run as root or hold CAP_SETUID and CAP_SETGID (docs/deploy.md, 'The bot sandbox')"


def can_switch_uid() -> bool:
    """Root, or the two capabilities that let a worker start each bot under a uid of its own."""
    if os.geteuid() == 0:
        return True
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return False
    effective = next((line.split()[1] for line in status.splitlines() if line.startswith("CapEff:")), "0")
    setgid, setuid = 1 << 6, 1 << 7
    return int(effective, 16) & (setgid | setuid) == setgid | setuid


def check_sandbox(python: str = "/usr/bin/python3") -> None:
    """Raise :class:`SandboxUnavailable` with the reason if sandboxed bots cannot run here."""
    if sys.platform != "linux":
        raise SandboxUnavailable("sandboxed bots need Linux namespaces")
    bwrap_path()
    runtime(python)
    if not can_switch_uid():
        raise SandboxUnavailable(_UID_SWITCH_HINT)
