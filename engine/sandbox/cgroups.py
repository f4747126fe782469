"""One cgroup per sandbox: memory, processes and CPU for the bot as a whole, not per process.

Resource limits (setrlimit) hold per process, so a bot that forks could
otherwise multiply its memory and CPU by its process limit, and memory in
tmpfs or memfd escapes them altogether. A cgroup counts all of it, for every
process the bot starts. The worker must be root to make one (cgroup v1, or v2
with the controllers enabled at the root, as systemd does); without that the
sandbox still runs, with the rlimits as its only limits, and says so.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

ROOT = Path("/sys/fs/cgroup")
GROUP = "cardclub-bots"
#: CFS period and quota: a bot gets at most one core, however many threads it runs.
_PERIOD_US = 100_000


@dataclass
class BotCgroup:
    #: v1: one directory per controller; v2: the single directory, under "".
    dirs: dict[str, Path]
    version: int
    _attach_files: list[str] = field(default_factory=list)

    def attach_self(self) -> None:
        """Move the calling process (the sandbox's child, before exec) into the cgroup."""
        pid = str(os.getpid()).encode()
        for path in self._attach_files:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)

    def cpu_seconds(self) -> float:
        """CPU time used by every process the bot ran, together."""
        try:
            if self.version == 1:
                return int((self.dirs["cpuacct"] / "cpuacct.usage").read_text()) / 1e9
            for line in (self.dirs[""] / "cpu.stat").read_text().splitlines():
                if line.startswith("usage_usec "):
                    return int(line.split()[1]) / 1e6
        except (OSError, ValueError, KeyError):
            pass
        return 0.0

    def out_of_memory(self) -> bool:
        """Whether the kernel killed one of the bot's processes for the memory limit."""
        with contextlib.suppress(OSError, ValueError, KeyError):
            events = (
                self.dirs["memory"] / "memory.oom_control" if self.version == 1 else self.dirs[""] / "memory.events"
            )
            for line in events.read_text().splitlines():
                if line.startswith("oom_kill "):
                    return int(line.split()[1]) > 0
        return False

    def remove(self) -> None:
        """Remove the cgroup once its processes are gone (a killed process takes a moment to leave)."""
        for directory in self.dirs.values():
            for _ in range(50):
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
            else:
                log.warning("could not remove %s", directory)


def create(name: str, *, memory_mb: int, processes: int) -> BotCgroup | None:
    """A fresh cgroup with the bot's limits, or None where this worker cannot make one."""
    if os.geteuid() != 0:
        return None
    try:
        if (ROOT / "cgroup.controllers").exists():
            return _create_v2(name, memory_mb=memory_mb, processes=processes)
        if all((ROOT / controller).is_dir() for controller in ("memory", "pids", "cpu", "cpuacct")):
            return _create_v1(name, memory_mb=memory_mb, processes=processes)
    except OSError as exc:
        log.warning("no cgroup for the bot sandbox (%s): per-process limits only", exc)
    return None


def _create_v1(name: str, *, memory_mb: int, processes: int) -> BotCgroup:
    dirs = {}
    for controller in ("memory", "pids", "cpu", "cpuacct"):
        dirs[controller] = _fresh(ROOT / controller / GROUP / name)
    limit = str(memory_mb * 1024 * 1024)
    (dirs["memory"] / "memory.limit_in_bytes").write_text(limit)
    swap = dirs["memory"] / "memory.memsw.limit_in_bytes"
    if swap.exists():
        swap.write_text(limit)
    (dirs["pids"] / "pids.max").write_text(str(processes))
    (dirs["cpu"] / "cpu.cfs_period_us").write_text(str(_PERIOD_US))
    (dirs["cpu"] / "cpu.cfs_quota_us").write_text(str(_PERIOD_US))
    return BotCgroup(dirs=dirs, version=1, _attach_files=[str(d / "cgroup.procs") for d in dirs.values()])


def _create_v2(name: str, *, memory_mb: int, processes: int) -> BotCgroup:
    parent = ROOT / GROUP
    parent.mkdir(exist_ok=True)
    # The controllers must be enabled on the way down; the root's are, under systemd.
    (parent / "cgroup.subtree_control").write_text("+memory +pids +cpu")
    directory = _fresh(parent / name)
    (directory / "memory.max").write_text(str(memory_mb * 1024 * 1024))
    with contextlib.suppress(OSError):
        (directory / "memory.swap.max").write_text("0")
    (directory / "pids.max").write_text(str(processes))
    (directory / "cpu.max").write_text(f"{_PERIOD_US} {_PERIOD_US}")
    return BotCgroup(dirs={"": directory}, version=2, _attach_files=[str(directory / "cgroup.procs")])


def _fresh(directory: Path) -> Path:
    """An empty cgroup: one left by a worker that died is removed first, so its counters start at zero."""
    with contextlib.suppress(FileNotFoundError):
        directory.rmdir()
    directory.mkdir(parents=True)
    return directory
