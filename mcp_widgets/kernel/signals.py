"""SIGINT during waits: raised in a blocking wait, waking the loop in an awaiting one, or held back."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any


class _RaisingSigint:
    """A blocking wait's SIGINT handler: raises KeyboardInterrupt, and remembers that it did.

    Python runs a signal's handler wherever the main thread happens to be. If that is a finalizer the
    collector runs (an ipywidgets `Widget.__del__`, a weakref callback), the KeyboardInterrupt is only
    printed as "Exception ignored" and the wait would go on, the person's interrupt lost. The wait asks
    `raise_lost_interrupt` at every wake-up, and the handler wakes it.
    """

    def __init__(self, wake: Callable[[], None]) -> None:
        self.wake = wake
        self.raised = False

    def __call__(self, signum: int, frame: Any) -> None:
        self.raised = True
        self.wake()
        raise KeyboardInterrupt


@contextlib.contextmanager
def raising_sigint(wake: Callable[[], None]) -> Iterator[None]:
    """Make SIGINT raise KeyboardInterrupt during a blocking wait, and never be lost (`raise_lost_interrupt`).

    In a cell with a top-level `await`, ipykernel's SIGINT handler only schedules a cancellation on the
    event loop, which a blocking wait never returns to. `wake` wakes the wait from its sleep.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous in (signal.SIG_IGN, None):
        yield  # an idle kernel: an interrupt means nothing here (a handler set outside Python stays)
        return
    signal.signal(signal.SIGINT, _RaisingSigint(wake))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def raise_lost_interrupt() -> None:
    """Raise KeyboardInterrupt if this blocking wait's handler raised one that never reached the wait."""
    handler = signal.getsignal(signal.SIGINT)
    if isinstance(handler, _RaisingSigint) and handler.raised:
        handler.raised = False
        raise KeyboardInterrupt


_interrupts = 0
"""SIGINTs an awaiting wait saw (`interrupts`)."""


def interrupts() -> int:
    """How many SIGINTs reached an awaiting wait so far.

    An awaiting cell learns of an interrupt as a CancelledError, the same as any other cancellation; a
    caller compares this count before and after to tell the person's interrupt from a cancellation.
    """
    return _interrupts


class _WakingSigint:
    """A SIGINT handler that runs the previous one, then wakes the event loop.

    In an awaiting cell ipykernel's handler schedules the cell's cancellation with a plain `call_soon`,
    which does not wake a loop sleeping in `select`; without this the interrupt would wait for the next
    timer. Shared by concurrent waits (`users`), removed by the last one.
    """

    def __init__(self, previous: Callable[..., Any], loop: asyncio.AbstractEventLoop) -> None:
        self.previous = previous
        self.loop = loop
        self.users = 0

    def __call__(self, signum: int, frame: Any) -> None:
        global _interrupts
        _interrupts += 1
        try:
            self.previous(signum, frame)
        finally:
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(_noop)


def _noop() -> None:
    pass


@contextlib.contextmanager
def waking_sigint(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    current = signal.getsignal(signal.SIGINT)
    handler: _WakingSigint
    if isinstance(current, _WakingSigint):
        handler = current
    elif callable(current) and current is not signal.default_int_handler:
        handler = _WakingSigint(current, loop)
        signal.signal(signal.SIGINT, handler)
    else:
        yield  # idle kernel (SIG_IGN) or a plain KeyboardInterrupt: nothing to speed up
        return
    handler.users += 1
    try:
        yield
    finally:
        handler.users -= 1
        previous = handler.previous  # read first: mypy narrows `handler` to getsignal's type on `is`
        if handler.users == 0 and signal.getsignal(signal.SIGINT) is handler:
            signal.signal(signal.SIGINT, previous)


class _Deferred:
    """What `interrupt_deferred` saw: true once SIGINT arrived inside the block."""

    def __init__(self) -> None:
        self.hit = False

    def __bool__(self) -> bool:
        return self.hit

    def deliver(self) -> None:
        """After the block: hand a held-back SIGINT to the handler it was kept from (no-op without one).

        That handler decides, as it would have: a blocked cell's raises KeyboardInterrupt here, an awaiting
        cell's schedules its cancellation. Raising KeyboardInterrupt ourselves instead would escape the
        event loop of an awaiting or idle kernel, and end the kernel.
        """
        if self.hit:
            self.hit = False
            signal.raise_signal(signal.SIGINT)


@contextlib.contextmanager
def interrupt_deferred() -> Iterator[_Deferred]:
    """Hold SIGINT back for the block (main thread only); the caller `deliver`s it afterwards if it came.

    Nothing is held back where SIGINT is ignored (an idle kernel): there an interrupt means nothing.
    """
    deferred = _Deferred()
    on_main = threading.current_thread() is threading.main_thread()
    current = signal.getsignal(signal.SIGINT) if on_main else None
    if current is None or current is signal.SIG_IGN:
        yield deferred  # not ours to hold back (a handler set outside Python cannot be put back)
        return
    try:
        previous = signal.signal(signal.SIGINT, lambda *_: setattr(deferred, "hit", True))
    except (ValueError, OSError):  # no signals here (embedded interpreters)
        yield deferred
        return
    try:
        yield deferred
    finally:
        signal.signal(signal.SIGINT, previous)
