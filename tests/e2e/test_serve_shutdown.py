"""`make run`'s server stops whole (issue 11, finding 13): Ctrl-C or SIGTERM to its process group ends the
server and its Celery worker (which runs in a session of its own) within seconds, and beat's schedule
files go with them."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.nodes import free_port

ROOT = Path(__file__).resolve().parents[2]
#: serve.py gives the worker 5 s to finish its tasks before killing it; the rest is the start-up and the stop of
#: two Python processes, which a machine busy with other work (CI's other jobs) has taken up to 9 s more for.
STOPPED_WITHIN = 20


def children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
def test_stopping_the_server_stops_its_worker_and_cleans_up(tmp_path: Path, stop_signal: signal.Signals) -> None:
    port = free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL", "CELERY_TASK_ALWAYS_EAGER"}
    }
    env |= {
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "CARDCLUB_VAR_DIR": str(tmp_path / "var"),
        "TMPDIR": str(tmp_path),
        "PYTHONUNBUFFERED": "1",
    }
    server = subprocess.Popen(
        [sys.executable, "manage.py", "serve", f"127.0.0.1:{port}", "--concurrency", "1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, as make's is at a terminal
        # Started with SIGINT ignored, as a shell without job control starts `make run &`: the server must stop
        # on Ctrl-C all the same (an ignored signal is inherited through exec; a handler is not).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, server.stdout.read().decode() if server.stdout else ""
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        workers = children(server.pid)
        assert workers, "serve started no worker"
        assert list(tmp_path.glob("worker-local-*.beat*")), "beat keeps its schedule beside the ready file"
        stopped_at = time.monotonic()
        os.killpg(server.pid, stop_signal)
        server.wait(timeout=STOPPED_WITHIN)
        while any(running(pid) for pid in workers) and time.monotonic() - stopped_at < STOPPED_WITHIN:
            time.sleep(0.1)
        elapsed = time.monotonic() - stopped_at
        assert not any(running(pid) for pid in workers), f"the worker outlived the server by {elapsed:.1f} s"
        assert list(tmp_path.glob("worker-local-*")) == []
        output = server.stdout.read().decode() if server.stdout else ""
        assert "stopping the worker" in output
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
