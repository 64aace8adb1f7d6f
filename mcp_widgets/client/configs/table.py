"""`servers()`: the configured servers as a table whose Connect buttons connect (see `lookup`)."""

from __future__ import annotations

import os
from typing import Any

from ... import kernel
from ...core.mcp_config import ServerConfig
from ...widgets import InputsCard, ServersTable
from ..server import build
from .lookup import ASKING, found_files, keep_inputs, missing_inputs

__all__ = ["servers"]


def servers(path: str | os.PathLike[str] | None = None) -> ServersTable:
    """The MCP servers configured on this machine, as a table with a Connect button per row.

    Looks in the usual places (nearest first): `.mcp.json` (Claude Code), `.vscode/mcp.json` (VS Code) and
    `.cursor/mcp.json` (Cursor) in this folder and its parents, then Claude Desktop's
    `claude_desktop_config.json`, `~/.claude.json`, `~/.cursor/mcp.json` and VS Code's user `mcp.json`.
    With `path`, reads that one file (and raises `ConfigError` when it cannot).

    A Connect button connects in the background; the server is then `table[name]`. In code:
    `srv = await mw.connect(name)` (`config=path` when the name is in several files).
    """
    files, looked = found_files(path)
    rows = [s for f in files for s in f.servers]
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.name] = counts.get(row.name, 0) + 1

    def connect(row: ServerConfig) -> None:
        _connect_clicked(table, row)

    table = ServersTable(rows, connect, ambiguous=counts, looked_in=looked)
    return table


def _connect_clicked(table: ServersTable, row: ServerConfig) -> None:
    """A Connect button (main thread, in a widget callback: nothing may block): ask the inputs in the
    table if any are missing, then connect in the background; the row says how it ended."""

    def start(values: dict[str, str] | None = None) -> None:
        try:
            if values is not None or missing_inputs(row):
                keep_inputs(row, values)
            server = build(row.name, config=row)  # any name, and no file read again
        except Exception as exc:
            table.settled(row, False, str(exc))
            return
        ready = server._start()

        def done(fut: Any) -> None:
            error = fut.exception()
            if error is None:
                table.connected[row.name] = server
            else:
                server._signal_close()
            table.settled(row, error is None, "" if error is None else str(error))

        ready.add_done_callback(lambda fut: kernel.post(lambda: done(fut)))

    if not missing_inputs(row):
        start()
        return
    card = InputsCard(row.name, missing_inputs(row), row.where)
    ASKING.append(card)
    table.children = (*table.children, card)
    count = len(missing_inputs(row))
    table.asking(row, f"needs {count} value{'s' if count != 1 else ''} (below) to connect")

    def answered(fut: Any) -> None:
        ASKING.remove(card) if card in ASKING else None
        values = fut.result()
        if values is None:
            table.settled(row, False, "cancelled (its inputs were not given)")
        else:
            table.connecting(row)
            start(values)

    card.result.add_done_callback(answered)
