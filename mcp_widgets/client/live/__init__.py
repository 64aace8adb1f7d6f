"""Live resources and list changes: a resource's updates (`srv.updates`), a live view of it (`srv.watch`),
and listings fetched again when the server says they changed.

Modules: `feeds` (one watched resource: re-read on each change, coalesced; the async iterator), `live` (a
server's subscriptions on both protocol generations and its list changes), `watch` (the live view),
`tables` (listing tables shown in cells, redrawn after a list change).
"""

from __future__ import annotations

from .feeds import Feed, Update, Updates
from .live import Live
from .tables import Tables
from .watch import Watch

__all__ = ["Feed", "Live", "Tables", "Update", "Updates", "Watch"]
