"""Pending elicitation requests: the client's bookkeeping, kept apart from the card and from whoever waits.

A `PendingRequest` is one question a server asked, with our own id. The form (or URL card) showing it is
its `card`; the protocol side (an `elicitation/create` callback on 2025-11-25, an input-required round on
2026-07-28) only awaits `reply`. Whatever ends the request first (a click, a handler, a policy, a timeout,
the server withdrawing, an interrupt) settles `reply` once; later attempts are ignored.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .outcome import Outcome
from .protocol import is_modern

if TYPE_CHECKING:
    import mcp_types

__all__ = ["PendingRequest", "pending_requests"]

_ids = itertools.count(1)
_live: weakref.WeakValueDictionary[int, PendingRequest] = weakref.WeakValueDictionary()
_live_lock = threading.Lock()


@dataclass(eq=False)
class PendingRequest:
    """One elicitation request from one server, until it is answered."""

    server: str
    """The name we know the server by."""
    kind: Literal["form", "url"]
    message: str
    protocol_version: str
    """The negotiated version: "2025-11-25" and before are legacy; "2026-07-28" has input-required rounds."""
    schema: dict[str, Any] | None = None
    """The raw `requestedSchema` (form mode)."""
    url: str | None = None
    """The URL (URL mode)."""
    elicitation_id: str | None = None
    app_uri: str | None = None
    """The `ui://` app the server asks to show this question with (`_meta.ui.resourceUri`), if any."""
    params: dict[str, Any] | None = field(default=None, repr=False)
    """The request's params as the server sent them (for an app that shows the question)."""
    id: int = field(default_factory=lambda: next(_ids))
    """Our own id: unique in this process (protocol request ids are not, on 2026-07-28)."""
    created: float = field(default_factory=time.monotonic)
    reply: concurrent.futures.Future[mcp_types.ElicitResult | mcp_types.ErrorData] = field(
        default_factory=concurrent.futures.Future, repr=False
    )
    """Settled once with what the server receives."""
    card: Any = field(default=None, repr=False)
    """The form or card showing this request, once built."""
    outcome: Outcome | None = None
    """How it ended, once it has."""
    history_id: int | None = None
    """Its entry in the process-wide history (to revise it when the server refuses its late answer)."""
    deadline: float | None = None
    """The monotonic time a task's question ends by, while it waits, if its server said (`mw.pending()`)."""

    def __post_init__(self) -> None:
        with _live_lock:
            _live[self.id] = self

    @property
    def legacy(self) -> bool:
        """True on 2025-11-25 and earlier (the server sent `elicitation/create` and can withdraw it)."""
        return not is_modern(self.protocol_version)

    def done(self) -> bool:
        return self.reply.done()

    def settle(
        self, result: mcp_types.ElicitResult | mcp_types.ErrorData, outcome: Outcome | None = None
    ) -> bool:
        """Give the server its answer; False when the request was already settled (or withdrawn)."""
        try:
            self.reply.set_result(result)
        except concurrent.futures.InvalidStateError:
            return False
        if outcome is not None:
            self.outcome = outcome
        return True

    def __repr__(self) -> str:
        state = "pending" if not self.done() else (self.outcome.describe() if self.outcome else "settled")
        return f"<PendingRequest #{self.id} {self.kind} from {self.server!r}: {state}>"


def pending_requests() -> list[PendingRequest]:
    """Every request not yet settled, oldest first."""
    with _live_lock:
        found = list(_live.values())
    return sorted((r for r in found if not r.done()), key=lambda r: r.id)
