"""The widgets of `mw.servers()`: the table of configured servers, and the card asking a config's inputs.

Neither knows the SDK: the table is given rows and a `connect(row)` callback; the card is given the inputs
to ask and resolves a future with their values. The card is one model drawn by the question card's renderer;
its fields are password fields for inputs marked `password`, and what is typed reaches the kernel as messages,
never as widget state (nor a saved notebook).
"""

from __future__ import annotations

import concurrent.futures
import functools
import html
import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as w
import traitlets as t

from .. import kernel
from ..core.mcp_config import PLAIN_NAME, ConfigInput, ServerConfig
from ..core.text import clip, clip_line, shorten, shown
from ._keys import DeclaredAnyWidget
from ._keys_assets import QUESTION_CSS, QUESTION_ESM
from ._kit import Kit, known_keys, press
from ._literal import literal_html
from ._plain import PlainInMarimo

__all__ = ["InputsCard", "ServersTable"]


class InputsCard(PlainInMarimo, DeclaredAnyWidget):
    """Asks the values of a config's `inputs` (VS Code's `${input:id}`), for one server.

    One widget model (an anywidget) drawn by the question card's renderer (`assets/question.js` and its
    fields, `fields.js`): a password field for an input marked `password`, a text field or a list of options
    otherwise, Connect and Cancel. What a person types travels to the kernel as messages (`{edit, value}`),
    never as synced state; once answered only its one line is left.

    `result` resolves with {id: value} on Connect, or with None on Cancel. Driven from Python as a person
    drives it: `card.fill(id=value)`, `card.submit()`, `card.cancel()`.
    """

    _esm = t.Unicode(QUESTION_ESM, help="The card's front end: question.js with fields.js, keys.js.").tag(
        sync=True
    )
    _css = t.Unicode(QUESTION_CSS, help="The card's look (JupyterLab's CSS variables, with fallbacks).").tag(
        sync=True
    )
    _anywidget_id = t.Unicode("mcp_widgets.InputsCard", help="anywidget's name for this class.").tag(
        sync=True
    )
    card = t.Dict(
        help="What the page renders: who needs the values, each input's field (title, kind, options, a "
        "default that is not secret), the buttons."
    ).tag(sync=True)
    accept_ok = t.Bool(True, help="Whether Connect is enabled (always: an input may be left empty).").tag(
        sync=True
    )
    hint = t.Unicode("", help="The line under the buttons (a second Escape cancels).").tag(sync=True)
    hint_warn = t.Bool(False, help="Whether the hint is a warning.").tag(sync=True)
    closing_line = t.Unicode("", help="Once answered, the one line left: who, and how it ended.").tag(
        sync=True
    )

    def __init__(self, server: str, inputs: Sequence[ConfigInput], source: str) -> None:
        self.result: concurrent.futures.Future[dict[str, str] | None] = concurrent.futures.Future()
        self._inputs = tuple(inputs)
        self._by_id = {item.id: item for item in self._inputs}
        self._values: dict[str, str] = {item.id: _first_value(item) for item in self._inputs}
        self._filled: set[str] = set()  # set from Python: told to a view that renders later
        self._escaped = False  # a first Escape with typed input asked for a second
        count = len(self._inputs)
        self._header = (
            f"{server} needs {count} value{'s' if count != 1 else ''} (from {source}); "
            "kept in this kernel's memory only"
        )
        model_id = uuid.uuid4().hex
        kernel.attach()  # so that every message reaches us even while a cell awaits this card
        super().__init__(
            card={
                "kind": "inputs",
                "id": model_id,
                "header": shown(self._header),
                "message": "",
                "rows": [_row(item) for item in self._inputs],
                "buttons": [
                    {"press": "accept", "label": "Connect", "primary": True},
                    {"press": "cancel", "label": "Cancel", "tip": "Do not connect"},
                ],
            },
            model_id=model_id,
            layout=_LAYOUT.layout(),  # the process's shared Layout: one model per card
            **known_keys(type(self)),
        )
        self.on_msg(self._receive)

    def fill(self, **values: str) -> None:
        """Set values as if typed (the page is told, in a message)."""
        for key in values:
            if key not in self._by_id:
                raise KeyError(key)
        if self.result.done():
            return
        self._values.update({k: str(v) for k, v in values.items()})
        self._filled.update(values)
        self._tell_page(values)

    def submit(self) -> None:
        if self.result.done():
            return
        values = {item.id: self._values.get(item.id, "") for item in self._inputs}
        self._end(f"{len(values)} value{'s' if len(values) != 1 else ''} given")
        self.result.set_result(values)

    def cancel(self) -> None:
        if not self.result.done():
            self._end("cancelled")
            self.result.set_result(None)

    def close(self) -> None:
        """Close the card's model (a card still asking is cancelled first: nothing waits for it forever)."""
        self.cancel()
        super().close()

    # -- the page's messages ---------------------------------------------------------------------------------
    def _receive(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """One message from a view: an edit, a button, a key, or "ready" (a view that wants the values)."""
        if not isinstance(content, dict) or self.result.done():
            return
        if "edit" in content:
            self._page_edit(content.get("edit"), content.get("value"))
        elif "press" in content:
            if content["press"] == "accept":
                self.submit()
            elif content["press"] == "cancel":
                self.cancel()
        elif content.get("key") == "Enter" and content.get("in_last_field"):
            self.submit()
        elif content.get("key") == "Escape":
            if content.get("typed") and not self._escaped:
                self._escaped = True  # what was typed is not dropped by one stray key
                self.hint, self.hint_warn = "Press Escape again to cancel: what you typed goes.", True
            else:
                self.cancel()
        elif content.get("ready") is True and self._filled:
            self._tell_page(dict.fromkeys(self._filled, ""))

    def _page_edit(self, name: object, value: object) -> None:
        item = self._by_id.get(name) if isinstance(name, str) else None
        if item is None:
            return
        if item.options:
            if not isinstance(value, int) or not 0 <= value < len(item.options):
                return  # not what our page sends: ignored, as a stock model ignores a bad state
            self._values[item.id] = item.options[value]
        elif isinstance(value, str):
            self._values[item.id] = value
        if self._escaped:
            self._escaped = False
            self.hint, self.hint_warn = "", False

    def _tell_page(self, names: Mapping[str, object]) -> None:
        """Send the current values of `names` to the views (a custom message: never state)."""
        if self.comm is not None:
            self.send({"values": {key: _page_value(self._by_id[key], self._values[key]) for key in names}})

    def _end(self, how: str) -> None:
        """Down to one line of text; the values leave the card (the future has them)."""
        self._values = {}
        self._filled = set()
        if self.comm is None:
            return
        with self.hold_sync():
            self.closing_line = shown(f"{self._header} · {how}")
            self.card = {"kind": "inputs"}
            self.hint, self.hint_warn = "", False

    def __repr__(self) -> str:
        return f"<InputsCard {[i.id for i in self._inputs]} {'answered' if self.result.done() else 'open'}>"


_LAYOUT = Kit()


def _first_value(item: ConfigInput) -> str:
    """An input's value before anyone types: its default, else the first option, else empty."""
    if item.options:
        return item.default if item.default in item.options else item.options[0]
    return "" if item.password else item.default


def _page_value(item: ConfigInput, value: str) -> object:
    """How the page shows `value`: an option's index, or the text."""
    if item.options:
        return item.options.index(value) if value in item.options else None
    return value


def _row(item: ConfigInput) -> dict[str, Any]:
    """The field the page renders for `item` (fields.js): config text made `shown`, never HTML."""
    row: dict[str, Any] = {
        "name": item.id,
        "widget": "select" if item.options else "password" if item.password else "text",
        "title": shown(item.description or item.id),
        "tooltip": shown(item.id),
        "note": "",
        "value": _page_value(item, _first_value(item)),  # a password starts empty, never from state
    }
    if item.options:
        row["options"] = [shown(option) for option in item.options]
    else:
        row["placeholder"] = shown(item.id)
    return row


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
