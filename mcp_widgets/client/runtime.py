"""`Runtime`: the client's process-wide state, in one object (`RUNTIME`).

- The client thread: one asyncio loop in a daemon thread ("mcp-widgets-client") runs every connection, so
  the kernel's own loop never runs SDK code and a blocked cell cannot stall the protocol. It starts on first
  use; `stop()` (registered with `atexit`) stops it and joins the thread; the next use starts a fresh one.
- The default handler (`set_default_handler`).
- The kernel room's cache of the running kernel (`reset_kernel` forgets it, e.g. for a test).

Nothing here runs at import: the one thing that must (the kernel's comm handlers are marked before any
widget callback runs) is done by the kernel room when it is imported.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from .. import kernel
from ..core.card import Card

T = TypeVar("T")

THREAD_NAME = "mcp-widgets-client"


class Runtime:
    """The client's process-wide state: its loop and thread, the default handler, the kernel cache."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self.default_handler: Callable[[Card], Awaitable[None]] | None = None
        """Answers for every server connected without `handler=` (None: the person answers)."""

    def loop(self) -> asyncio.AbstractEventLoop:
        """The event loop every connection runs on (started on first use, and again after `stop`)."""
        with self._lock:
            loop = self._loop
            if loop is not None and not loop.is_closed() and loop.is_running():
                return loop
            loop = asyncio.new_event_loop()
            ready = threading.Event()

            def run() -> None:
                asyncio.set_event_loop(loop)
                loop.call_soon(ready.set)
                try:
                    loop.run_forever()
                finally:
                    _shut_down(loop)

            thread = threading.Thread(target=run, name=THREAD_NAME, daemon=True)
            thread.start()
            ready.wait()
            self._loop, self._thread = loop, thread
            return loop

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run `coro` on the client thread."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop())

    def call_soon(self, fn: Callable[..., object], *args: Any) -> bool:
        """Run `fn(*args)` on the client thread if it runs (any thread); False, and nothing started, if not
        (interpreter exit, after `stop`: what ends then must not start a fresh thread)."""
        with self._lock:
            loop = self._loop
        if loop is None or loop.is_closed():
            return False
        try:
            loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # closed meanwhile
            return False
        return True

    def in_client_thread(self) -> bool:
        """True on the client thread (where a blocking call would deadlock)."""
        thread = self._thread
        return thread is not None and threading.current_thread() is thread

    @property
    def running(self) -> bool:
        """The client thread is running."""
        thread = self._thread
        return thread is not None and thread.is_alive()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the client loop and join its thread (connections still open are dropped)."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        if not loop.is_closed():
            loop.call_soon_threadsafe(loop.stop)
        if thread is not threading.current_thread():
            thread.join(timeout)

    def reset_kernel(self) -> None:
        """Forget the kernel found so far: the next look finds it again (the kernel room's cache)."""
        kernel.forget_kernel()


def _shut_down(loop: asyncio.AbstractEventLoop) -> None:
    """The loop stopped: cancel what still runs on it (open connections close), briefly, then close it."""
    tasks = asyncio.all_tasks(loop)
    for task in tasks:
        task.cancel()
    if tasks:
        loop.run_until_complete(asyncio.wait(tasks, timeout=2.0))
    loop.close()


RUNTIME = Runtime()
atexit.register(RUNTIME.stop)


def on_main_after(seconds: float, fn: Callable[[], object]) -> None:
    """Run `fn` on the kernel's main thread in `seconds` (timed on the client loop: nothing waits)."""

    def run() -> None:
        fn()

    loop = RUNTIME.loop()
    loop.call_soon_threadsafe(loop.call_later, seconds, kernel.post, run)
