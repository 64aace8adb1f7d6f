"""Whether a new comm can reach a front end: the `comm` package's internals, kept out of the widgets."""

from __future__ import annotations

from typing import Any

import comm
from ipywidgets.comm import requires_ipykernel_shim

__all__ = ["comms_go_nowhere", "nowhere_comm"]


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
