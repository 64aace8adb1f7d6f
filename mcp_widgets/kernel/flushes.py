"""Our displays without a needless flush of stdout and stderr.

ipykernel's display publisher flushes both streams before each display, so that text printed before it
shows before it. From the main thread each flush hands work to the IOPub thread and waits for it, whether
or not anything was written: with a display and a few updates per question, that was about a tenth of a
question's CPU in a kernel, and much of the IOPub thread's (sampled with py-spy, 2026-12-07). Within
`unflushed`, this thread's displays skip the flush when neither stream holds unsent text, read under the
stream's own lock at the moment the flush would run; text waiting to go is flushed as before, so the order
of what a cell shows never changes. Any other display, and any stream this cannot read, is flushed as
ipykernel does.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["unflushed"]

_ours = threading.local()
"""`on` while this thread shows one of our displays."""


def _may_hold_text(stream: Any) -> bool:
    """Whether `stream` may hold text not sent yet: True unless it is ipykernel's stream and empty."""
    if getattr(stream, "echo", None) is not None:
        return True
    lock = getattr(stream, "_buffer_lock", None)
    if lock is None:
        return True
    with lock:
        buffers = getattr(stream, "_buffers", None)  # ipykernel 6.18 and newer: one buffer per parent
        if buffers is not None:
            return any(buffer.tell() for buffer in list(buffers.values()))
        buffer = getattr(stream, "_buffer", None)  # 6.17 (Google Colab's)
        return buffer is None or bool(buffer.tell())


def _publisher() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return getattr(shell, "display_pub", None)


def _install(publisher: Any) -> None:
    """Give `publisher` a flush that skips for our displays when there is nothing to flush (once)."""
    if getattr(publisher, "_mcp_widgets_flush", None) is not None:
        return
    original = getattr(publisher, "_flush_streams", None)
    if not callable(original):
        return  # not ipykernel's publisher: it does not flush

    def flush_streams() -> None:
        if getattr(_ours, "on", False) and not (_may_hold_text(sys.stdout) or _may_hold_text(sys.stderr)):
            return
        original()

    publisher._flush_streams = flush_streams
    publisher._mcp_widgets_flush = original


@contextmanager
def unflushed() -> Iterator[None]:
    """Within: this thread's displays skip the stream flush when neither stream holds unsent text."""
    publisher = _publisher()
    if publisher is None:
        yield
        return
    _install(publisher)
    was = getattr(_ours, "on", False)
    _ours.on = True
    try:
        yield
    finally:
        _ours.on = was
