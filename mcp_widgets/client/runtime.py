"""The client thread: one asyncio loop in a daemon thread ("mcp-widgets-client") runs every connection.

The kernel's own loop never runs SDK code, so a blocked cell cannot stall the protocol."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


_loop_lock = threading.Lock()
_loop_box: list[asyncio.AbstractEventLoop] = []


def _client_loop() -> asyncio.AbstractEventLoop:
    """The shared event loop every connection runs on (started on first use)."""
    with _loop_lock:
        if _loop_box and not _loop_box[0].is_closed():
            return _loop_box[0]
        loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.call_soon(ready.set)
            loop.run_forever()

        threading.Thread(target=run, name="mcp-widgets-client", daemon=True).start()
        ready.wait()
        _loop_box[:] = [loop]
        return loop


def _submit(coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
    return asyncio.run_coroutine_threadsafe(coro, _client_loop())


def _in_client_thread() -> bool:
    return bool(_loop_box) and threading.current_thread().name == "mcp-widgets-client"
