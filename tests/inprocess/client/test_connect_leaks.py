"""Connecting in vain leaves nothing behind: a server that never answers `initialize` is stopped.

Public API only (these tests also run against older checkouts, where they must fail).
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from mcp_widgets import ConnectError, connect_sync


def _pids_with(marker: str) -> list[int]:
    """The processes whose command line holds `marker` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append(int(entry.name))
    return found


def _gone(marker: str, within: float = 10.0) -> bool:
    """True once no process holds `marker` (a zombie left for its parent to reap counts as gone)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        alive = []
        for pid in _pids_with(marker):
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                alive.append(pid)
        if not alive:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_a_stdio_server_that_never_answers_is_stopped_after_the_timeout() -> None:
    marker = f"never-answers-{uuid.uuid4().hex}"
    target = [sys.executable, "-c", "import sys, time; time.sleep(120)", marker]
    with pytest.raises(ConnectError, match="took longer than"):
        connect_sync(target, timeout=2)
    assert _gone(marker), "the server process outlived the failed connect"


class _Silent:
    """A TCP server that accepts connections and never answers; notes when each one is closed."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.closed = 0
        self._lock = threading.Lock()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self._lock:
                self.accepted += 1
            threading.Thread(target=self._hold, args=(conn,), daemon=True).start()

    def _hold(self, conn: socket.socket) -> None:
        with conn:
            while conn.recv(65536):  # b"": the client closed it
                pass
        with self._lock:
            self.closed += 1

    def open_connections(self, within: float = 10.0) -> int:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            with self._lock:
                if self.accepted == self.closed:
                    return 0
            time.sleep(0.05)
        with self._lock:
            return self.accepted - self.closed


def test_an_http_server_that_never_answers_keeps_no_connection() -> None:
    silent = _Silent()
    try:
        with pytest.raises(ConnectError, match="took longer than"):
            connect_sync(f"http://127.0.0.1:{silent.port}/mcp", timeout=2)
        assert silent.accepted >= 1
        assert silent.open_connections() == 0, "a connection outlived the failed connect"
    finally:
        silent.sock.close()


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_the_bound_on_connecting_is_the_connections_own() -> None:
    """Nobody waiting with a deadline (a Connect button starts a connection and only listens for its end):
    the connection still gives up after `timeout` and stops the server."""
    from mcp_widgets.client.server import build

    marker = f"never-answers-{uuid.uuid4().hex}"
    server = build([sys.executable, "-c", "import sys, time; time.sleep(120)", marker], timeout=1)
    ready = server._start()
    with pytest.raises(ConnectError, match="took longer than 1 s"):
        ready.result(timeout=30)
    assert _gone(marker), "the server process outlived the failed connect"
    assert not server.connected


CANCELLED_CONNECT = """
import asyncio, gc, socket, sys
import mcp_widgets as mw
silent = socket.create_server(("127.0.0.1", 0))
url = f"http://127.0.0.1:{silent.getsockname()[1]}/mcp"
async def main():
    connecting = asyncio.ensure_future(mw.connect(url, timeout=2))
    await asyncio.sleep(0.5)
    connecting.cancel()
    try:
        await connecting
    except asyncio.CancelledError:
        print("cancelled")
    await asyncio.sleep(1.5)  # the connection ends meanwhile, failing its handshake future
    gc.collect()
asyncio.run(main())
gc.collect()
"""


def test_a_cancelled_connect_leaves_nothing_on_stderr() -> None:
    """The handshake's failure, set after the awaiting task was cancelled, is nobody's to read: asyncio must
    not print it as "Future exception was never retrieved"."""
    done = subprocess.run(
        [sys.executable, "-c", CANCELLED_CONNECT], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "cancelled", done.stderr[-2000:]
    assert "never retrieved" not in done.stderr, done.stderr[-2000:]
