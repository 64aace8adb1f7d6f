"""The widgets of `mw.servers()`: the table of configured servers, and the card asking a config's inputs.

Neither knows the SDK: the table is given rows and a `connect(row)` callback; the card is given the inputs
to ask and resolves a future with their values. The card's fields are password fields for inputs marked
`password`, and the card closes every model it made as soon as it is answered, so nothing typed stays in
widget state (or a saved notebook).
"""

from __future__ import annotations

import concurrent.futures
import functools
import html
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as w

from ..core.mcp_config import PLAIN_NAME, ConfigInput, ServerConfig
from ..core.text import clip, clip_line, shorten, shown
from ._kit import Kit, press
from ._literal import literal_html
from ._plain import PlainInMarimo

__all__ = ["InputsCard", "ServersTable"]


class InputsCard(PlainInMarimo, w.VBox):
    """Asks the values of a config's `inputs` (VS Code's `${input:id}`), for one server.

    `result` resolves with {id: value} on Connect, or with None on Cancel. Driven from Python as a person
    drives it: `card.fill(id=value)`, `card.submit()`, `card.cancel()`.
    """

    def __init__(self, server: str, inputs: Sequence[ConfigInput], source: str) -> None:
        self.result: concurrent.futures.Future[dict[str, str] | None] = concurrent.futures.Future()
        self._inputs = tuple(inputs)
        title = w.HTML(
            _text_block(
                f"<b>{literal_html(shown(server))}</b> needs {len(inputs)} "
                f"value{'s' if len(inputs) != 1 else ''} (from {literal_html(shown(source))}); "
                "kept in this kernel's memory only"
            )
        )
        self._fields: dict[str, w.ValueWidget] = {}
        self._head = title
        rows: list[w.Widget] = [title]
        for item in self._inputs:
            label = item.description or item.id
            control: w.ValueWidget
            if item.options:
                control = w.Dropdown(options=list(item.options), value=item.default or item.options[0])
            elif item.password:
                control = w.Password(placeholder=item.id)
            else:
                control = w.Text(value=item.default, placeholder=item.id)
            control.description = label
            control.style = {"description_width": "initial"}
            control.layout = w.Layout(width="min(480px, 100%)")
            self._fields[item.id] = control
            rows.append(control)
        self.ok = w.Button(description="Connect", button_style="primary")
        self.cancel_button = w.Button(description="Cancel")
        self.ok.on_click(lambda _b: self.submit())
        self.cancel_button.on_click(lambda _b: self.cancel())
        self._buttons = w.HBox([self.ok, self.cancel_button])
        rows.append(self._buttons)
        super().__init__(rows)
        self.add_class("mcpw-inputs")

    def fill(self, **values: str) -> None:
        for key, value in values.items():
            self._fields[key].value = value

    def submit(self) -> None:
        if self.result.done():
            return
        values = {item.id: str(self._fields[item.id].value) for item in self._inputs}
        self._end(f"{len(values)} value{'s' if len(values) != 1 else ''} given")
        self.result.set_result(values)

    def cancel(self) -> None:
        if not self.result.done():
            self._end("cancelled")
            self.result.set_result(None)

    def _end(self, how: str) -> None:
        """Close every control (their values leave the widget state) and keep one line of text."""
        for control in self._fields.values():
            if isinstance(control, w.Password | w.Text):
                control.value = ""
            control.close()
        self._fields = {}
        for widget in (self.ok, self.cancel_button, self._buttons):
            widget.close()
        self.children = (self._head,)
        self._head.value = self._head.value.replace("</div>", f" · {html.escape(how)}</div>")

    def __repr__(self) -> str:
        return f"<InputsCard {[i.id for i in self._inputs]} {'answered' if self.result.done() else 'open'}>"


Status = tuple[str, str]
"""A row's state ("connecting", "connected", "failed") and what to say of it (a failure's reason)."""

_BUSY = ("connecting", "asking", "connected")
"""Row states whose button is off."""
_COLUMNS = ("", "Name", "Kind", "Where", "Notes", "Status")
_GRID = (
    "max-content minmax(6em, max-content) max-content minmax(12em, 2fr) minmax(8em, 1fr) minmax(12em, 3fr)"
)

_REASON_KEEP = 1200
"""Characters of a failure's reason on its row (the stderr tail included); the rest is counted."""


class ServersTable(PlainInMarimo, w.VBox):
    """The servers found in config files: a table with a header, a row per server (a Connect button, name,
    kind, where it was found, notes and the row's status) and a status line under it.

    Each row keeps its own status: "connecting …", "connected", or "failed: " and the reason, so two failed
    rows keep their own reasons. Only one page of rows is built at a time (`page_size`, "Previous" and
    "Next" under the table when there are more): a file with thousands of servers costs one page of widgets.
    Server and config text is shown literally (`literal_html`, a literal Label).
    """

    def __init__(
        self,
        rows: Sequence[ServerConfig],
        connect: Callable[[ServerConfig], Any] | None = None,
        *,
        ambiguous: Mapping[str, int] | None = None,
        looked_in: int = 0,
        page_size: int = 50,
    ) -> None:
        self.rows = tuple(rows)
        self.connected: dict[str, Any] = {}
        """The servers connected with this table's buttons, by name (`table[name]`)."""
        self.buttons: dict[tuple[str, str], w.Button] = {}
        """The Connect buttons of the rows on the page shown, by (name, file)."""
        self.states: dict[tuple[str, str], Status] = {}
        """Each row's status, by (name, file): rows never clicked have none."""
        self.page = 0
        self.page_size = max(1, page_size)
        self._connect = connect
        self._ambiguous = dict(ambiguous or {})
        self._index = {(r.name, r.source): i for i, r in enumerate(self.rows)}
        self._cells: dict[tuple[str, str], tuple[w.Button, w.HTML]] = {}
        self._kit = Kit()
        self.status = self._kit.make(w.Label, value="")
        """The table's last event in one line (literal text: never markup, never math)."""
        grid = w.Layout(grid_template_columns=_GRID, grid_gap="2px 12px", width="100%")
        self._grid = w.GridBox(layout=grid)
        self._grid.add_class("mcpw-servers-grid")
        self._previous = w.Button(description="Previous", icon="chevron-left")
        self._next = w.Button(description="Next", icon="chevron-right")
        self._previous.on_click(lambda _b: self.show_page(self.page - 1))
        self._next.on_click(lambda _b: self.show_page(self.page + 1))
        self._where = self._kit.make(w.Label, value="")
        self._pager = w.HBox([self._previous, self._next, self._where])
        parts: list[w.Widget] = []
        if not self.rows:
            none = f"No MCP servers configured (looked in {looked_in} places)."
            parts.append(self._kit.make(w.Label, value=none))
        else:
            parts.append(self._grid)
            if self.pages > 1:
                parts.append(self._pager)
        parts.append(self.status)
        super().__init__(parts)
        self.add_class("mcpw-servers")
        if self.rows:
            self.show_page(0)

    @property
    def pages(self) -> int:
        return max(1, -(-len(self.rows) // self.page_size))

    def show_page(self, page: int) -> None:
        """Show the rows of `page` (0 is the first): this page's widgets are made, the last page's closed."""
        page = min(max(page, 0), self.pages - 1)
        old = [c for c in self._grid.children if c not in self._header]
        self.page = page
        self.buttons, self._cells = {}, {}
        cells: list[w.Widget] = list(self._header)
        for row in self.rows[page * self.page_size : (page + 1) * self.page_size]:
            cells += self._row_cells(row)
        self._grid.children = tuple(cells)
        for widget in old:
            widget.close()
        first, total = page * self.page_size, len(self.rows)
        self._where.value = f"servers {first + 1:,}–{min(first + self.page_size, total):,} of {total:,}"
        self._previous.disabled = page == 0
        self._next.disabled = page >= self.pages - 1

    @functools.cached_property
    def _header(self) -> tuple[w.HTML, ...]:
        return tuple(w.HTML(_text_block(f"<b>{html.escape(c)}</b>")) for c in _COLUMNS)

    def _row_cells(self, row: ServerConfig) -> list[w.Widget]:
        key = (row.name, row.source)
        # never shrunk by a long label beside it (flex 0 0 auto): a cut "Conn…" reads as broken
        button = w.Button(description="Connect", layout=w.Layout(width="auto", flex="0 0 auto"))
        button.on_click(lambda _b, row=row: self._clicked(row))
        notes = _notes(row, self._ambiguous.get(row.name, 1))
        where = literal_html(shown(row.where))
        texts = [
            f"<code>{literal_html(shown(row.name))}</code>",
            html.escape(row.kind),
            f"<span title='{html.escape(shown(row.source))}'>{where}</span>",
            f"<i>{literal_html(notes)}</i>" if notes else "",
        ]
        status = w.HTML(layout=self._cell_layout)
        self.buttons[key] = button
        self._cells[key] = (button, status)
        self._paint(row)
        return [button, *(w.HTML(_text_block(t), layout=self._cell_layout) for t in texts), status]

    @functools.cached_property
    def _cell_layout(self) -> w.Layout:
        """One Layout for every text cell: a grid cell may shrink below its text's width (which wraps)."""
        return w.Layout(min_width="0")

    def _paint(self, row: ServerConfig) -> None:
        """The row's button and status cell as its state says (nothing when the row is on another page)."""
        key = (row.name, row.source)
        if key not in self._cells:
            return
        button, cell = self._cells[key]
        state, why = self.states.get(key, ("", ""))
        button.description = "Connected" if state == "connected" else "Connect"
        button.icon = "check" if state == "connected" else ""
        button.disabled = self._connect is None or state in _BUSY
        if state == "failed":
            text = f"✗ failed: {shorten(shown(why), _REASON_KEEP)}"
            color = "var(--jp-error-color1, #d32f2f)"
        else:
            text = {"connecting": "connecting …", "connected": "✓ connected", "asking": why}.get(state, "")
            color = "var(--jp-success-color1, #388e3c)" if state == "connected" else "inherit"
        cell.value = (
            f"<div class='mcpw-server-status' data-state='{state}' style='line-height: 1.4; padding: 4px 0; "
            f"white-space: pre-wrap; overflow-wrap: anywhere; color: {color}'>{literal_html(text)}</div>"
        )

    def _clicked(self, row: ServerConfig) -> None:
        if self._connect is not None:
            key = (row.name, row.source)
            if self.states.get(key, ("", ""))[0] in _BUSY:
                return  # one connect at a time per row
            self.connecting(row)
            self._connect(row)

    def connecting(self, row: ServerConfig) -> None:
        """The row's connect has started (or, after its inputs card, goes on): its status says so."""
        self.states[(row.name, row.source)] = ("connecting", "")
        self.status.value = f"connecting to {row.name} …"
        self._paint(row)

    def asking(self, row: ServerConfig, text: str) -> None:
        """The row waits for the person (its inputs card, under the table): its status says so."""
        self.states[(row.name, row.source)] = ("asking", text)
        self.status.value = f"{row.name}: {text}"
        self._paint(row)

    def settled(self, row: ServerConfig, connected: bool, why: str = "") -> None:
        """A row's connect ended: its button says "Connected" (and stays off), or is ready to try again
        and the row says why it failed (`why`); the status line says so in one line."""
        key = (row.name, row.source)
        self.states[key] = ("connected", "") if connected else ("failed", why or "cancelled")
        if connected:
            index = json.dumps(row.name, ensure_ascii=False)
            self.status.value = f"{row.name} connected: table[{index}] is the server"
        else:
            first = next((line for line in why.splitlines() if line.strip()), "cancelled")
            self.status.value = f"{row.name} failed: {clip(first, 200)}"
        self._paint(row)

    def connect(self, name: str) -> None:
        """Press the Connect button of the row `name` (the first such row, shown if on another page);
        nothing while the button is off (connecting, or connected), as in a browser."""
        for i, row in enumerate(self.rows):
            if row.name == name:
                if (row.name, row.source) not in self.buttons:
                    self.show_page(i // self.page_size)
                press(self.buttons[(row.name, row.source)])
                return
        raise KeyError(name)

    def __getitem__(self, name: str) -> Any:
        """The server connected with the button of the row `name`.

        Raises:
            KeyError: Not connected (yet): the row's status says why.
        """
        return self.connected[name]

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(plain_table(self.rows, self.states))


def _text_block(inner: str) -> str:
    """HTML text that wraps at a text's line height (a widget's HTML has a control's 28 px line height, so a
    long path wrapped onto a second line read as two rows), anywhere in a word if it must (a path)."""
    return f"<div style='line-height: 1.4; padding: 4px 0; overflow-wrap: anywhere'>{inner}</div>"


def _notes(row: ServerConfig, same_name: int) -> str:
    """What to know of a row (literal text: names and keys from the file go through `shown`)."""
    notes = []
    if row.disabled:
        notes.append("disabled in its config")
    if row.secrets_in_clear:
        notes.append("secret written in clear: " + ", ".join(row.secrets_in_clear))
    if row.inputs:
        notes.append("asks " + ", ".join(i.id for i in row.inputs))
    if same_name > 1:
        notes.append(f"{same_name} configs of this name: connect with config=")
    elif not PLAIN_NAME.fullmatch(row.name):
        notes.append("not a plain name: in code, connect with config=")
    return clip_line("; ".join(notes), 500)


PLAIN_ROWS = 200
"""Rows the plain text shows (the rest are counted)."""


def plain_table(rows: Sequence[ServerConfig], states: Mapping[tuple[str, str], Status] | None = None) -> str:
    """The table as text (for a terminal, a repr, a saved notebook): literal (a name's terminal escapes are
    visible escapes), one line a row, the first `PLAIN_ROWS` rows."""
    if not rows:
        return "No MCP servers configured."
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.name] = counts.get(row.name, 0) + 1
    shown_rows = rows[:PLAIN_ROWS]
    names = [clip_line(r.name, 80) for r in shown_rows]
    width = max(len(n) for n in names)
    out = [f"{'Name':<{width}}  Kind   Where"]
    for name, row in zip(names, shown_rows, strict=True):
        notes = _notes(row, counts[row.name])
        state, why = (states or {}).get((row.name, row.source), ("", ""))
        line = f"{name:<{width}}  {row.kind:<5}  {clip_line(row.where, 300)}"
        line += f"  ({notes})" if notes else ""
        if state in ("connecting", "connected"):
            line += f"  [{state}]"
        elif state == "failed":
            line += f"  [failed: {clip_line(why, 200)}]"
        out.append(line)
    if len(rows) > PLAIN_ROWS:
        out.append(f"… and {len(rows) - PLAIN_ROWS:,} more")
    return "\n".join(out)
