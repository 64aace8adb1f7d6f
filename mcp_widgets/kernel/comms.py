"""Whether a new comm can reach a front end: the `comm` package's internals, kept out of the widgets.

ipywidgets 8 makes its comms with the `comm` package; ipywidgets 7 (Google Colab's) with
`ipykernel.comm.Comm`, which opens nothing and has no kernel where no kernel runs, and ipykernel before 6.18
(Colab's 6.17) predates the `comm` package: neither is imported unless this ipywidgets uses it.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .running_kernel import post_later

__all__ = ["LOAD_GRACE", "close_after_load", "closing", "comms_go_nowhere", "nowhere_comm"]


@functools.cache
def _widget_comms() -> Any:
    """ipywidgets 8's comm module (`ipywidgets.comm`), or None for ipywidgets 7's `ipykernel.comm.Comm`."""
    try:
        import ipywidgets.comm as widget_comms
    except ImportError:
        return None
    return widget_comms


def comms_go_nowhere() -> bool:
    """True when a new widget comm can reach no front end: the `comm` package's `DummyComm` (no kernel has
    installed its own), or with ipywidgets 7, no ipykernel kernel is running."""
    widget_comms = _widget_comms()
    if widget_comms is None:
        from ipykernel.kernelbase import Kernel

        return not Kernel.initialized()
    import comm

    return comm.create_comm is comm._create_comm and not widget_comms.requires_ipykernel_shim()


def nowhere_comm(comm_id: str | None) -> Any:
    """A widget model's comm where no front end can exist: drops every message, prepares none.

    It says it has no kernel: ipywidgets' `Widget.notify_change` and `_send` look for `comm.kernel is None`
    before serializing a change.
    """
    if _widget_comms() is None:
        from ipykernel.comm import Comm

        # Opens nothing without a kernel. (Untyped in ipykernel.)
        ids = (
            {} if comm_id is None else {"comm_id": comm_id}
        )  # ipywidgets 7 leaves a new model's id to its comm
        return Comm(target_name="jupyter.widget", kernel=None, **ids)  # type: ignore[no-untyped-call]
    return _nowhere_class()(target_name="jupyter.widget", data={}, comm_id=comm_id)


@functools.cache
def _nowhere_class() -> type[Any]:
    import comm

    class _Nowhere(comm.DummyComm):
        """A `DummyComm` that says it has no kernel."""

        kernel = None

    return _Nowhere


# -- late messages to a comm we closed --------------------------------------------------------------------

_CLOSED_KEEP = 20_000
"""Ids of comms we closed that are remembered (the newest): a late message comes within seconds."""
_closed: dict[str, None] = {}  # an ordered set: the oldest id first
_closed_lock = threading.Lock()


class _LateToOurs(logging.Filter):
    """Drops the `comm` package's "No such comm: <id>" for a comm we closed ourselves.

    A front end may send a message to a model the kernel has just closed (a view removed as the form
    goes, a value synced on blur): a race no timing removes. The kernel logs it, and JupyterLab shows
    that line in its log console, where it reads as a fault. For ids we never closed, the line stays.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg != "No such comm: %s" or not isinstance(record.args, tuple) or not record.args:
            return True
        return record.args[0] not in _closed


logging.getLogger("Comm").addFilter(_LateToOurs())


def closing(comm_id: str) -> None:
    """Our widget model with this comm id is closing: a late message to it is not worth a log line."""
    with _closed_lock:
        _closed[comm_id] = None
        if len(_closed) > _CLOSED_KEEP:
            del _closed[next(iter(_closed))]


# -- a model closed before its page could load it ------------------------------------------------------

LOAD_GRACE = 2.5
"""Seconds a new anywidget model's comm stays open at least. anywidget (0.11) gives the page 2 s to load a
model's module, and a model closed before it loaded fails that wait: 2 s after it opened, the page reports
"[anywidget] Failed to initialize model." as an uncaught error (seen with a quick call's line under load)."""


@contextmanager
def close_after_load(comm: Any, opened: float) -> Iterator[None]:
    """Within it, `comm.close()` does nothing; after it, a comm opened at `opened` (`time.monotonic()`) less
    than LOAD_GRACE ago closes once it is that old, every other one at once.

    For a widget's `close`: the widget is closed in the kernel at once (no longer listed, no comm of its own,
    messages to it dropped); only the page hears of it later.
    """
    wait = LOAD_GRACE - (time.monotonic() - opened)
    if wait <= 0 or getattr(comm, "kernel", None) is None:
        yield
        return
    comm.close = _not_yet  # an instance attribute: the widget's own close finds this one
    try:
        yield
    finally:
        del comm.close
    comm.on_msg(None)  # the widget is closed: a late message to it is dropped, not handled
    post_later(wait, comm.close)


def _not_yet(*args: Any, **kwargs: Any) -> None:
    """`comm.close` while `close_after_load` holds it."""
