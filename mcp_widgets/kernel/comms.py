"""Whether a new comm can reach a front end: the `comm` package's internals, kept out of the widgets."""

from __future__ import annotations

import logging
import threading
from typing import Any

import comm
from ipywidgets.comm import requires_ipykernel_shim

__all__ = ["closing", "comms_go_nowhere", "nowhere_comm"]


def comms_go_nowhere() -> bool:
    """True when a new comm is the `comm` package's `DummyComm` (no kernel has installed its own)."""
    return comm.create_comm is comm._create_comm and not requires_ipykernel_shim()


class _Nowhere(comm.DummyComm):
    """A `DummyComm` that says it has no kernel, so ipywidgets does not prepare updates nobody can get.

    (`Widget.notify_change` and `_send` look for `comm.kernel is None` before serializing a change.)
    """

    kernel = None


def nowhere_comm(comm_id: str) -> Any:
    """A widget model's comm where no front end can exist: drops every message, prepares none."""
    return _Nowhere(target_name="jupyter.widget", data={}, comm_id=comm_id)


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
