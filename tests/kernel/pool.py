"""Fresh kernels without the wait: the next test's kernel starts while the current test runs.

Every test still gets a kernel process of its own that nothing ran in before; only its start-up (a second or
so of process start, most of it waiting) overlaps with the previous test, which mostly waits for messages.
"""

from __future__ import annotations

import concurrent.futures
import threading
from pathlib import Path

from .harness import KernelFrontend

__all__ = ["fresh_kernel", "shut_down"]

_lock = threading.Lock()
_spares: dict[str, concurrent.futures.Future[KernelFrontend]] = {}
_starter = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="kernel-pool")


def _start(python: str) -> KernelFrontend:
    return KernelFrontend(python).start()


def fresh_kernel(python: str | Path, *, spare: bool = True) -> KernelFrontend:
    """A started kernel run by `python` that no test used; with `spare`, start the next one meanwhile.

    The caller stops it (`KernelFrontend.stop`).
    """
    key = str(python)
    with _lock:
        waiting = _spares.pop(key, None)
        others = [_spares.pop(k) for k in list(_spares)]  # another release's: its tests are over
    for fut in others:
        fut.add_done_callback(_stop_started)
    fe: KernelFrontend | None = None
    if waiting is not None:
        try:
            fe = waiting.result(timeout=180)
        except Exception:
            fe = None  # start one here instead, and fail here if that fails too
    if fe is None:
        fe = _start(key)
    if spare:
        with _lock:
            _spares[key] = _starter.submit(_start, key)
    return fe


def _stop_started(fut: concurrent.futures.Future[KernelFrontend]) -> None:
    if not fut.cancelled() and fut.exception() is None:
        fut.result().stop()


def shut_down() -> None:
    """Stop the spare kernels (the end of the session)."""
    with _lock:
        left = [_spares.pop(k) for k in list(_spares)]
    for fut in left:
        fut.cancel()
        try:
            fe = fut.result(timeout=180)
        except BaseException:
            continue
        fe.stop()
