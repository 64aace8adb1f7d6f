"""Waiting for a future while a cell runs, with widget clicks and posted callbacks still handled."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import select
import threading
import time
from typing import Any, TypeVar

from ..core.exceptions import BlockingCallError
from .posted import PLAIN_LOOPS, THREAD_STATE, WAKE_INTERVAL, WAKER, in_comm_handler, next_slice, run_posted
from .running_kernel import blocking_supported, get_kernel
from .signals import raise_lost_interrupt, raising_sigint, waking_sigint

T = TypeVar("T")


_BLOCKING_HINT = "use `await` (call_tool) or call_tool_background instead"


def _check_blocking_allowed() -> None:
    if in_comm_handler():
        raise BlockingCallError(
            f"a blocking wait inside a widget callback would freeze the kernel; {_BLOCKING_HINT}"
        )
    if getattr(THREAD_STATE, "blocking", False):
        raise BlockingCallError(f"a blocking wait is already running on this thread; {_BLOCKING_HINT}")


def wait_sync(fut: concurrent.futures.Future[T], *, timeout: float | None = None) -> T:
    """Block until `fut` is done while widget clicks and posted callbacks keep being handled.

    On the kernel's main thread this pumps the shell channel: comm messages reach their widgets, posted
    callbacks run, and every other request (cells queued meanwhile, completions, ...) runs after the
    wait, in arrival order, never inside it. KeyboardInterrupt propagates; `fut` is left as it is
    (cancel it yourself).

    Args:
        fut: the future to wait for.
        timeout: seconds to wait at most.

    Returns:
        The future's result (its exception is raised).

    Raises:
        BlockingCallError: inside a widget callback, inside another blocking wait, or on a kernel
            where blocking waits cannot receive clicks.
        TimeoutError: `timeout` passed first.
    """
    if fut.done():  # nothing to wait for, so nothing to pump: allowed anywhere (a done call's done-callback)
        return fut.result()
    _check_blocking_allowed()
    deadline = None if timeout is None else time.monotonic() + timeout
    kernel = get_kernel()
    on_main = threading.current_thread() is threading.main_thread()
    if kernel is not None and not on_main:
        # Another thread (a subshell, a worker): the main loop keeps handling comms by itself.
        return _result(fut, deadline)
    if kernel is not None and not blocking_supported():
        raise BlockingCallError(
            f"ipykernel {kernel.version} cannot deliver widget clicks to a blocked cell; {_BLOCKING_HINT}"
        )
    fut.add_done_callback(lambda _: WAKER.wake())
    THREAD_STATE.blocking = True
    try:
        with raising_sigint(WAKER.wake):
            if kernel is None:
                _wait_plain(fut, deadline)
            else:
                try:
                    kernel.pump_until(fut, deadline)
                finally:
                    try:
                        kernel.drain_socket()  # leave nothing unread: clicks still reach their widgets
                    finally:
                        kernel.rearm()
            raise_lost_interrupt()  # one lost as the wait ended (reached only if none came out of it)
    finally:
        THREAD_STATE.blocking = False
    return fut.result()


def _wait_plain(fut: concurrent.futures.Future[Any], deadline: float | None) -> None:
    while True:
        WAKER.drain()
        raise_lost_interrupt()
        run_posted()
        if fut.done():
            return
        select.select([WAKER.fileno()], [], [], next_slice(deadline))


def _result(fut: concurrent.futures.Future[T], deadline: float | None) -> T:
    # Short slices so that KeyboardInterrupt is seen promptly on every platform.
    while True:
        timeout = WAKE_INTERVAL
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("timed out waiting for the result")
            timeout = min(timeout, remaining)
        with contextlib.suppress(concurrent.futures.TimeoutError):
            return fut.result(timeout)


def _taken(fut: asyncio.Future[Any]) -> None:
    """Read a future's outcome, so an exception nobody awaits is not reported as never retrieved."""
    if not fut.cancelled():
        fut.exception()


async def wait_async(fut: asyncio.Future[T] | concurrent.futures.Future[T]) -> T:
    """Await `fut` in a cell while widget clicks keep being handled.

    A kernel interrupt, which ipykernel turns into a cancellation of an awaiting cell, wakes the loop at
    once (and a 0.25 s wake-up bounds it anyway). On "pump" kernels the main shell stream is intercepted
    for the duration: comm messages are handled at once, anything else is queued in the kernel as usual.
    CancelledError and KeyboardInterrupt propagate; `fut` is not cancelled (cancel it yourself).

    Returns:
        The future's result (its exception is raised).
    """
    loop = asyncio.get_running_loop()
    waited: asyncio.Future[T] = (
        asyncio.wrap_future(fut, loop=loop) if isinstance(fut, concurrent.futures.Future) else fut
    )
    kernel = get_kernel()
    pumping = (
        kernel is not None
        and kernel.support == "pump"
        and threading.current_thread() is threading.main_thread()
        and loop is kernel.loop
    )
    plain = kernel is None
    if pumping:
        assert kernel is not None
        kernel.intercept()
    if plain:
        PLAIN_LOOPS.append(loop)
        loop.call_soon(run_posted)
    try:
        if pumping:
            assert kernel is not None
            kernel.deliver_queued_comms()  # what arrived before the wait; newer messages now come to us
        with waking_sigint(loop):
            while not waited.done():
                await asyncio.wait({waited}, timeout=WAKE_INTERVAL)
                if pumping and kernel is not None and not waited.done():
                    # On 7.x a message read just before the wait began reaches the kernel's queue a few
                    # loop turns later (it goes through two tasks first): look again at every wake-up.
                    kernel.flush_incoming()
    finally:
        if pumping:
            assert kernel is not None
            kernel.release()
        if plain:
            PLAIN_LOOPS.remove(loop)
        if waited is not fut and not waited.done():
            # Our wrapper of a future the caller stopped waiting for (an interrupt, a cancelled connect):
            # its exception, set later, is nobody's to read, and asyncio would print it as never retrieved.
            waited.add_done_callback(_taken)
    return waited.result()
