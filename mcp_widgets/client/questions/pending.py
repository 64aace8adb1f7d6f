"""`mw.pending()` and `srv.pending`: a live list of every open question, across servers and cells.

The list is a `PendingList` widget fed from the process's open requests (`pending_requests`), with the time
left of a task's question (`PendingRequest.deadline`). While a list is open it is refreshed about once a
second on the main thread (a timer on the client thread posts the refresh); with none open nothing runs.
One list per filter is kept and shown again, so calling `mw.pending()` in many cells adds no timers.
"""

from __future__ import annotations

import time

from ... import kernel
from ...core.requests import pending_requests
from ...widgets import PendingItem, PendingList
from ..runtime import RUNTIME

REFRESH = 1.0
"""Seconds between refreshes of an open list (its waited times count in seconds)."""

_LISTS: dict[str | None, PendingList] = {}
"""The open lists, by server filter (main thread)."""
_scheduled = False


def items(server: str | None = None) -> list[PendingItem]:
    """The open questions now (of `server`, or all), oldest first."""
    now = time.monotonic()
    found = []
    for request in pending_requests():
        if server is not None and request.server != server:
            continue
        deadline = request.deadline
        found.append(
            PendingItem(
                id=request.id,
                server=request.server,
                message=request.message,
                kind=request.kind,
                waited=now - request.created,
                left=None if deadline is None else max(0.0, deadline - now),
                card=request.card,
            )
        )
    return found


def pending(server: str | None = None) -> PendingList:
    """The live list of open questions (of one server, or all); answer each right there."""
    listed = _LISTS.get(server)
    if listed is None or listed.closed:
        listed = _LISTS[server] = PendingList(lambda: items(server), server=server)
    else:
        listed.refresh()
    _tick()
    return listed


def _refresh_all() -> None:
    """Main thread: refresh every open list; keep ticking while one is open."""
    global _scheduled
    _scheduled = False
    for key, listed in list(_LISTS.items()):
        if listed.closed:
            del _LISTS[key]
        else:
            listed.refresh()
    if _LISTS:
        _tick()


def _tick() -> None:
    """Post one refresh REFRESH seconds from now (once: a refresh already due covers every list)."""
    global _scheduled
    if _scheduled:
        return
    _scheduled = True
    loop = RUNTIME.loop()
    loop.call_soon_threadsafe(loop.call_later, REFRESH, kernel.post, _refresh_all)
