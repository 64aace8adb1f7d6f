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
from typing import Any, Protocol

_log = logging.getLogger("mcp_widgets")

WAKE_INTERVAL = 0.25  # bounds interrupt latency without a busy poll
COMM_TYPES = frozenset({"comm_open", "comm_msg", "comm_close"})


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


WAKER = _Waker()
atexit.register(WAKER.close)
POSTED: deque[Callable[[], None]] = deque()
THREAD_STATE = threading.local()  # per thread: comm_depth (int), blocking (bool)
PLAIN_LOOPS: list[asyncio.AbstractEventLoop] = []  # loops awaiting in wait_async without a kernel


def run_posted() -> None:
    while True:
        try:
            fn = POSTED.popleft()
        except IndexError:
            return
        try:
            fn()
        except Exception:
            _log.exception("mcp_widgets: a posted callback failed")


def in_comm_handler() -> bool:
    """True while this thread runs a comm handler (a widget callback reacting to the frontend)."""
    return getattr(THREAD_STATE, "comm_depth", 0) > 0


@contextlib.contextmanager
def _comm_scope() -> Iterator[None]:
    THREAD_STATE.comm_depth = getattr(THREAD_STATE, "comm_depth", 0) + 1
    try:
        yield
    finally:
        THREAD_STATE.comm_depth -= 1


class _CommOwner(Protocol):
    """What a wrapped comm handler asks of the kernel adapter (`adapter.Kernel`)."""

    cell_parent: dict[str, Any] | None

    def handled_early(self, msg: Any) -> bool: ...

    def comm_handled_during_cell(self, msg: Any) -> None: ...


def wrap_comm_handler(handler: Callable[..., Any], owner: _CommOwner | None = None) -> Callable[..., Any]:
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


def next_slice(deadline: float | None) -> float:
    """How long a wait may sleep before it looks again: the wake-up interval, cut short by the deadline."""
    if deadline is None:
        return WAKE_INTERVAL
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError("timed out waiting for the result")
    return min(WAKE_INTERVAL, remaining)
