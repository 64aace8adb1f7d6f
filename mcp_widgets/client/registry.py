"""The servers made in this kernel, by their context and wire (never the `Server`, which may be freed): a
name an open one holds is not given to another (`names_held`), and `mw.wire()` shows every connection's wire,
oldest server first (`wire`)."""

from __future__ import annotations

import weakref

from .context import ServerContext
from .wire.wire import Wire, Wires

__all__ = ["add", "names_held", "wire"]

_MADE: weakref.WeakKeyDictionary[object, tuple[ServerContext, Wire]] = weakref.WeakKeyDictionary()
"""Each server made (in the order made) -> its context and wire; gone with the server."""


def add(server: object, ctx: ServerContext, wire: Wire) -> None:
    _MADE[server] = (ctx, wire)


def names_held(but: object = None) -> list[str]:
    """The names of the open servers (connecting or connected, not released), `but` one."""
    made = [ctx for server, (ctx, _) in list(_MADE.items()) if server is not but]
    return [c.name for c in made if c.link.state in ("connecting", "connected") and not c.link.released]


def wire() -> Wires:
    """Every connection's wire in this kernel (`mw.wire()`), oldest server first: shown live, one wire
    per server; `.records()` (each with its server's name) and `.save(path)` as `srv.wire`'s."""

    def wires() -> list[tuple[str, Wire]]:
        return [(ctx.name, w) for ctx, w in list(_MADE.values()) if ctx.link.state != "new"]

    return Wires(wires)
