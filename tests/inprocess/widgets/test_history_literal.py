"""The history panel gives its page a server's text literally: control, bidi and zero-width characters as
visible escapes."""

from __future__ import annotations

from mcp_widgets.core.history import History
from mcp_widgets.widgets import HistoryPanel


def test_history_cells_show_visible_escapes() -> None:
    history = History()
    history.begin_request(server="shop\x1b[2J", mode="form", message="\u202egnp.exe \x1b]0;title\x07 x")
    panel = HistoryPanel(history)
    try:
        table = "\n".join([*panel.lines[0]["cells"], panel.lines[0]["when"]])
        assert "\x1b" not in table and "\u202e" not in table and "\x07" not in table
        assert "shop\\x1b[2J" in table and "U+202Egnp.exe \\x1b]0;title\\x07 x" in table
    finally:
        panel.close()
