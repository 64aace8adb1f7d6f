"""Callbacks posted to the kernel's main thread, the waker a blocked wait sleeps on, comm-handler scope."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .adapter import _Kernel

_log = logging.getLogger("mcp_widgets")

_WAKE_INTERVAL = 0.25  # bounds interrupt latency without a busy poll
_COMM_TYPES = frozenset({"comm_open", "comm_msg", "comm_close"})


class _Waker:
    """A socket pair that a blocked main thread sleeps on; any thread can wake it."""

    def __init__(self) -> None:
        self._recv, self._send = socket.socketpair()
        self._recv.setblocking(False)
        self._send.setblocking(False)

    def fileno(self) -> int:
        return self._recv.fileno()

    def wake(self) -> None:
        # A full buffer already means "wake up"; a closed one means shutdown.
        with contextlib.suppress(OSError):
            self._send.send(b"\0")

    def drain(self) -> None:
        with contextlib.suppress(OSError):
            while self._recv.recv(4096):
                pass

    def close(self) -> None:
        self._recv.close()
        self._send.close()


_waker = _Waker()
atexit.register(_waker.close)
_posted: deque[Callable[[], None]] = deque()
_local = threading.local()  # per thread: comm_depth (int), blocking (bool)
_plain_loops: list[asyncio.AbstractEventLoop] = []  # loops awaiting in wait_async without a kernel


_run_lock = threading.RLock()  # one thread runs the callbacks at a time, in order (re-entrant: a nested wait)


def _run_posted() -> None:
    while _posted:
        if not _run_lock.acquire(blocking=False):
            return  # another thread runs them; it looks again once it is done
        try:
            while True:
                try:
                    fn = _posted.popleft()
                except IndexError:
                    break
                try:
                    fn()
                except Exception:
                    _log.exception("mcp_widgets: a posted callback failed")
        finally:
            _run_lock.release()


class _PlainRunner:
    """Without a kernel, posted callbacks run in a thread that waits (`wait_sync`, `wait_async`). Between
    waits (a script after its call returned, a server asking between calls) nobody would: this daemon
    thread runs them then. A waiting thread is preferred, so that Ctrl-C reaches a handler it runs."""

    def __init__(self) -> None:
        self.waiting = 0  # threads and loops in a plain wait (they run what is posted)
        self._kick = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def enter(self) -> None:
        with self._lock:
            self.waiting += 1

    def leave(self) -> None:
        with self._lock:
            self.waiting -= 1
        self.posted()  # posted just before the wait ended: it would not run it

    def posted(self) -> None:
        """Something was posted (or a wait ended): run it here unless a wait will."""
        if not _posted or self.waiting > 0:
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="mcp-widgets-posted", daemon=True)
                self._thread.start()
        self._kick.set()

    def _run(self) -> None:
        while True:
            self._kick.wait()
            self._kick.clear()
            _run_posted()


_plain_runner = _PlainRunner()


def in_comm_handler() -> bool:
    """True while this thread runs a comm handler (a widget callback reacting to the frontend)."""
    return getattr(_local, "comm_depth", 0) > 0


@contextlib.contextmanager
def _comm_scope() -> Iterator[None]:
    _local.comm_depth = getattr(_local, "comm_depth", 0) + 1
    try:
        yield
    finally:
        _local.comm_depth -= 1


def _wrap_comm_handler(handler: Callable[..., Any], owner: _Kernel | None = None) -> Callable[..., Any]:
    if getattr(handler, "_mcp_widgets_wrapped", False):
        return handler

    def comm_handler(*args: Any, **kwargs: Any) -> Any:
        if owner is not None and len(args) >= 3 and owner.handled_early(args[2]):
            return None  # we dispatched it from the kernel's queue already (see deliver_queued_comms)
        with _comm_scope():
            try:
                return handler(*args, **kwargs)
            finally:
                if owner is not None and owner.cell_parent is not None and len(args) >= 3:
                    owner.comm_handled_during_cell(args[2])

    comm_handler._mcp_widgets_wrapped = True  # type: ignore[attr-defined]
    return comm_handler


def _next_slice(deadline: float | None) -> float:
    """How long a wait may sleep before it looks again: the wake-up interval, cut short by the deadline."""
    if deadline is None:
        return _WAKE_INTERVAL
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError("timed out waiting for the result")
    return min(_WAKE_INTERVAL, remaining)
