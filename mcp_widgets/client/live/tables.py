"""A server's listing tables as shown in cells (`srv.tools`, `srv.prompts`, `srv.resources`), redrawn in
place when a list change fetched that listing again.

A table shown as the last expression of a cell (`Table._ipython_display_`) is shown under a display id of
its kind; after a list change the newest listing replaces every display of that kind (the kernel's main
thread, by `update_display_data`, so a table shown in an earlier cell redraws too).
"""

from __future__ import annotations

import itertools
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from ... import kernel
from ..catalog import Kind
from ..listings import PromptList, ResourceList, Table, ToolList

if TYPE_CHECKING:
    from ..context import ServerContext

T = TypeVar("T", bound=Table)
EMPTY: dict[Kind, type[Table]] = {"tools": ToolList, "prompts": PromptList, "resources": ResourceList}

KEEP = 20
"""Displays of one kind kept redrawing (the oldest beyond them stay as they were)."""
_IDS = itertools.count()


def bundle(table: Table) -> dict[str, str]:
    return {"text/plain": repr(table), "text/html": table._repr_html_()}


class Tables:
    """The displays of a server's listings, by kind (what the server context learned is shown)."""

    def __init__(self, ctx: ServerContext) -> None:
        self.ctx = ctx
        self.prefix = f"{next(_IDS)}"
        self.shown: dict[Kind, list[str]] = {}
        self.redraws = 0

    def listed(self, kind: Kind) -> Table:
        """The newest listing of `kind` (empty when none was fetched)."""
        table: Table | None = getattr(self.ctx.learned, kind)
        return table if table is not None else EMPTY[kind]()

    def real_name(self, kind: Kind, listed: str) -> str:
        """The server's own name for the item listed as `listed` (what a request sends)."""
        return self.listed(kind).real_name(listed)

    def mark(self, table: T, kind: Kind) -> T:
        """`table`, shown (as a cell's last expression) under a display id of `kind` that redraws."""
        table.shown_by = partial(self.show, kind=kind)
        return table

    def show(self, table: Table, kind: Kind) -> None:
        """Show `table` in the cell, under a new display id of `kind` (main thread)."""
        display_id = f"mcp-widgets-{self.prefix}-{kind}-{next(_IDS)}"
        ids = self.shown.setdefault(kind, [])
        ids.append(display_id)
        del ids[:-KEEP]
        kernel.display_as(bundle(table), display_id)

    def changed(self, kind: Kind) -> None:
        """A listing was fetched again (client thread): its displays redraw on the main thread."""
        if self.shown.get(kind):
            kernel.post(lambda: self._redraw(kind))

    def _redraw(self, kind: Kind) -> None:
        shown = bundle(self.listed(kind))
        for display_id in self.shown.get(kind, []):
            kernel.display_as(shown, display_id, update=True)
        self.redraws += 1
