"""HistoryPanel: every elicitation of this kernel (or of one server), newest first, updating live.

The visible page is ONE `HTML` widget holding a table, so a page costs one model and one message however many
rows it has (a `Label` per cell would be hundreds of models; a `Select` or `Textarea` cannot show columns).
HTML is safe only because every string in it passes through `_esc` (`html.escape`, quotes included): server
text is shown literally, never as markup. Only the visible page is rendered; counters give the totals.

One line per question, so a screen shows a screenful of them (at 1280 px, every column, "Took" included):
each cell is one clipped line with its whole text on hover (`title`); a form's fields read "10 fields: Name *,
Email *, …" and open to the full list (`<details>`); what a server calls itself, when that differs from our
name for it, is said once under the table, not on every row.

A panel is 10 models whatever it shows (one fewer with one server pinned): itself, a row of two dropdowns,
two buttons and a status label, and the table, plus Layout and Style models shared by every form and panel.
"""

from __future__ import annotations

import datetime as dt
import html
import threading
from typing import Any, TypeVar

import ipywidgets as w
import traitlets

from ..core.history import PENDING, History, HistoryRecord, ServerHistory, default_history
from ..core.outcome import Action, Reason
from ..core.text import clip, shown
from ..core.urls import visible
from ._keys_assets import HISTORY_CSS
from ._kit import Kit, press
from ._plain import PlainInMarimo

W = TypeVar("W", bound=w.Widget)

__all__ = ["HistoryPanel", "history"]

MESSAGE_SHOWN = 300
"""Messages longer than this are cut in the table (`records()` keeps up to the store's limit)."""

_ALL = "__all__"  # the "no filter" choice of a dropdown (a str: a dropdown value must compare cheaply)
_KEEP: Any = object()

OUTCOME_CHOICES: tuple[tuple[str, str], ...] = (
    ("All outcomes", _ALL),
    ("Pending", PENDING),
    ("Accepted", "accept"),
    ("Declined", "decline"),
    ("Cancelled", "cancel"),
    ("Answered by the person", "person"),
    ("Answered by a handler", "handler"),
    ("Answered by a policy", "policy"),
    ("Withdrawn by the server", "withdrawn"),
    ("Timed out", "timeout"),
    ("Invalid schema", "invalid-schema"),
    ("Refused URL", "refused-url"),
    ("Interrupted", "interrupt"),
    ("Failed", "error"),
)
COLUMNS = (
    "When",
    "Server",
    "Call",
    "Mode",
    "Message",
    "Fields asked (* required)",
    "Outcome",
    "Answered by",
    "Took",
)

_TABLE_CLASS = "mcp-widgets-history"
_CELL_CLASSES = ("when", "server", "call", "mode", "msg", "fields", "outcome", "who", "took")
# Constant CSS (no server text), scoped to the panel's table: assets/history.css.
_STYLE = f"<style>{HISTORY_CSS}</style>"
_DONE = {"accept": "accepted", "decline": "declined", "cancel": "cancelled"}


def _esc(text: object) -> str:
    """Text for the HTML table: shown literally, every <, >, &, " and ' escaped, so it can never be markup."""
    return html.escape(shown(text), quote=True)


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "waiting"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes} min {secs:02d} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def row_cells(record: HistoryRecord) -> tuple[str, ...]:
    """The plain-text cells of one row, in COLUMNS order (escaped only when put into the table)."""
    source = f"{record.source.kind} {record.source.name}" if record.source is not None else "—"
    host = visible(record.url_host or "") or "?"
    mode = {"form": "form", "signin": f"sign-in on {host}"}.get(record.mode, f"URL: {host}")
    fields = _fields_text(_field_names(record), record.mode == "signin")
    return (
        record.asked_at.astimezone().strftime("%Y-%m-%d %H:%M:%S"),
        record.server,  # what it calls itself, where that differs: once, under the table
        source,
        mode,
        clip(record.message, MESSAGE_SHOWN),  # no count: a record keeps at most MAX_TEXT of it
        fields,
        *_outcome_and_who(record),
        _duration(record.duration),
    )


def _outcome_and_who(record: HistoryRecord) -> tuple[str, str]:
    """The outcome ("accepted", the next column says who: never "person" twice) and who answered."""
    outcome = record.outcome
    if outcome is None:
        return "pending…", "—"
    reason = Reason(outcome.reason)
    if reason not in (Reason.PERSON, Reason.HANDLER, Reason.POLICY):
        return outcome.describe(), record.answered_by or "—"
    done = _DONE[Action(outcome.action).value]
    if reason is Reason.PERSON:
        who = "the person"
    else:
        who = f"{reason.value} {outcome.by}" if outcome.by else f"a {reason.value}"
    return (f"{done} ({outcome.note})" if outcome.note else done), who


def _field_names(record: HistoryRecord) -> list[str]:
    """Each field's title, "*" when required (a no-break space keeps it by its title); a sign-in asks no
    field: the scopes it asks for say what it grants."""
    return [f.title + "\u00a0*" * f.required for f in record.fields] or list(record.scopes)


def _fields_text(names: list[str], signin: bool) -> str:
    if len(names) < 2:
        return names[0] if names else "—"
    return f"{len(names)} {'scopes' if signin else 'fields'}: " + ", ".join(names)


def _cell(cls: str, text: str, record: HistoryRecord, today: str) -> str:
    """One cell: one clipped line, its whole text on hover; a list of fields opens to one per line."""
    if cls == "when":  # today's: the time only (the date on hover); older: the date and the minute
        shown_text = text[11:] if text.startswith(today) else text[:16]
        return f'<td class="{cls}" title="{_esc(text)}"><div>{_esc(shown_text)}</div></td>'
    names = _field_names(record) if cls == "fields" else []
    if len(names) > 1:
        every = "".join(f"<li>{_esc(name)}</li>" for name in names)
        return (
            f'<td class="{cls}"><details><summary title="{_esc(text)}">{_esc(text)}</summary>'
            f"<ul>{every}</ul></details></td>"
        )
    return f'<td class="{cls}" title="{_esc(text)}"><div>{_esc(text)}</div></td>'


def _names_note(records: list[HistoryRecord]) -> str:
    """What servers on the page call themselves where that differs from our name: once, under the table."""
    pairs = dict.fromkeys(
        (r.server, r.declared_name) for r in records if r.declared_name and r.declared_name != r.server
    )
    said = " · ".join(f"{_esc(server)} calls itself “{_esc(declared)}”" for server, declared in pairs)
    return f'<div class="{_TABLE_CLASS}-names dim">{said}</div>' if said else ""


def render_table(records: list[HistoryRecord], *, empty: str) -> str:
    """The page as one HTML table, one line per record; every string goes through `_esc`."""
    today = dt.datetime.now().astimezone().strftime("%Y-%m-%d ")
    head = "".join(
        f'<th class="{cls}">{_esc(name)}</th>' for cls, name in zip(_CELL_CLASSES, COLUMNS, strict=True)
    )
    if not records:
        body = f'<tr><td class="dim" colspan="{len(COLUMNS)}">{_esc(empty)}</td></tr>'
    else:
        body = "".join(
            "<tr>"
            + "".join(
                _cell(cls, cell, record, today)
                for cls, cell in zip(_CELL_CLASSES, row_cells(record), strict=True)
            )
            + "</tr>"
            for record in records
        )
    table = f'<table class="{_TABLE_CLASS}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    return f'{_STYLE}<div class="{_TABLE_CLASS}-scroll">{table}</div>{_names_note(records)}'


class HistoryPanel(PlainInMarimo, w.VBox):
    """Every elicitation, newest first: when, server, call, mode, message, fields, outcome, who, how long.

    Filters (server and outcome dropdowns) and paging (newest page first) apply to the table and to
    `records()`. The panel updates live as requests are asked and answered; it never shows a value.

    Args:
        history: The store (or one server's view of it); the process-wide store when None.
        server: Show only this server (no server dropdown then).
        page_size: Rows per page.
    """

    page = traitlets.Int(0, min=0, help="The page shown: 0 is the newest.")
    page_size = traitlets.Int(20, min=1, help="Rows per page.")
    server_filter = traitlets.Unicode(None, allow_none=True, help="The server shown, or None for all.")
    outcome_filter = traitlets.Unicode(
        None, allow_none=True, help='"pending", an action or a reason (see OUTCOME_CHOICES), or None for all.'
    )

    def __init__(
        self,
        history: History | ServerHistory | None = None,
        *,
        server: str | None = None,
        page_size: int = 20,
    ) -> None:
        if page_size < 1:
            raise ValueError("page_size must be at least 1")
        if isinstance(history, ServerHistory):
            server = history.server if server is None else server
            history = history.history
        self.history: History = default_history() if history is None else history
        self._pinned = server
        self._lock = threading.RLock()
        self._visible_ids: frozenset[int] = frozenset()
        self._total = 0
        self._rows: list[tuple[str, ...]] = []
        self._closed = False
        self._syncing = False

        kit = self._kit = Kit()
        try:
            # Controls at their natural width (stock widgets are 300 px / 148 px wide), in a row that wraps.
            auto = kit.track(w.Layout(width="auto"))

            def compact(cls: type[W], **traits: Any) -> W:
                widget: W = cls(layout=auto, style=kit.style(cls), **traits)
                return kit.track(widget)

            controls: list[w.Widget] = []
            self._servers: w.Dropdown | None = None
            if server is None:
                self._servers = compact(
                    w.Dropdown, description="Server", options=[("All servers", _ALL)], value=_ALL
                )
                self._servers.observe(self._on_dropdown, names="value")
                self._update_servers()
                controls.append(self._servers)
            self._outcomes = compact(w.Dropdown, description="Outcome", options=OUTCOME_CHOICES, value=_ALL)
            self._outcomes.observe(self._on_dropdown, names="value")
            self._newer = compact(w.Button, description="Newer", icon="arrow-left", tooltip="Newer entries")
            self._older = compact(w.Button, description="Older", icon="arrow-right", tooltip="Older entries")
            self._newer.on_click(lambda _b: self._turn(-1))
            self._older.on_click(lambda _b: self._turn(+1))
            self._status = kit.make(w.Label)
            controls += [self._outcomes, self._newer, self._older, self._status]
            self._table = kit.make(w.HTML)
            wrap = kit.track(w.Layout(flex_flow="row wrap", align_items="center"))
            row = kit.track(w.HBox(children=tuple(controls), layout=wrap))
            super().__init__(
                children=(row, self._table),
                layout=kit.layout(),
                page_size=page_size,
                server_filter=server,
                _dom_classes=("mcp-widgets-history-panel",),
            )
        except BaseException:
            kit.close()
            raise
        self.observe(self._on_filter, names=["server_filter", "outcome_filter"])
        self.observe(lambda _c: self.refresh(), names=["page", "page_size"])
        self._unsubscribe = self.history.subscribe(self._on_change)
        self.refresh()

    # -- what it shows ---------------------------------------------------------------------------------------
    @property
    def total(self) -> int:
        """How many records match the filters."""
        return self._total

    @property
    def pages(self) -> int:
        """How many pages the matching records fill (at least 1)."""
        return max(1, -(-self._total // self.page_size))

    @property
    def rows(self) -> list[tuple[str, ...]]:
        """The visible rows as plain text, in COLUMNS order (what the table shows, unescaped)."""
        return list(self._rows)

    def records(self) -> list[dict[str, Any]]:
        """Plain dicts (as `History.records`) for every record matching the filters, newest first."""
        return self.history.records(self.server_filter, self.outcome_filter)

    def __repr__(self) -> str:
        where = f" server={self.server_filter!r}" if self.server_filter is not None else ""
        what = f" outcome={self.outcome_filter!r}" if self.outcome_filter is not None else ""
        return f"<HistoryPanel records={self._total}{where}{what} page={self.page + 1}/{self.pages}>"

    # -- driving it ------------------------------------------------------------------------------------------
    def set_filter(self, *, server: str | None = _KEEP, outcome: str | None = _KEEP) -> None:
        """Choose a server (None: all) and an outcome (None: all) as a person would in the dropdowns.

        Raises:
            ValueError: A server this panel cannot show, or an unknown outcome.
        """
        if outcome is not _KEEP:
            value = _ALL if outcome is None else getattr(outcome, "value", outcome)
            _choose(self._outcomes, value)
        if server is not _KEEP:
            if self._servers is None:
                if server != self._pinned:
                    raise ValueError("this panel shows one server only")
                return
            if server is not None and server not in _values(self._servers):
                self._update_servers(extra=server)
            _choose(self._servers, _ALL if server is None else server)

    def older(self) -> bool:
        """Click "Older" (next page); False on the last page."""
        return press(self._older)

    def newer(self) -> bool:
        """Click "Newer" (previous page); False on the first page."""
        return press(self._newer)

    def refresh(self) -> None:
        """Render the current page again (the listener calls this; safe from any thread)."""
        with self._lock:
            if self._closed:
                return
            size = self.page_size
            total, found = self.history.page(
                server=self.server_filter, outcome=self.outcome_filter, offset=self.page * size, limit=size
            )
            last = max(0, -(-total // size) - 1)
            if self.page > last:  # records went away (clear, bound): show the last page there is
                self.page = last  # re-renders through the observer
                return
            self._total = total
            self._visible_ids = frozenset(r.id for r in found)
            self._rows = [row_cells(r) for r in found]
            empty = "No elicitations yet." if not total else ""
            if total == 0 and (self.server_filter is not None or self.outcome_filter is not None):
                empty = "No elicitations match the filters."
            self._table.value = render_table(found, empty=empty)
            first = self.page * size + 1 if found else 0
            self._status.value = (
                f"{first}–{first + len(found) - 1 if found else 0} of {total:,} · page {self.page + 1} of "
                f"{self.pages}"
            )
            self._newer.disabled = self.page == 0
            self._older.disabled = self.page >= last

    def close(self) -> None:
        """Stop listening and close every model the panel created."""
        with self._lock:
            self._closed = True
        unsubscribe = getattr(self, "_unsubscribe", None)
        if unsubscribe is not None:
            unsubscribe()
        kit = getattr(self, "_kit", None)
        if kit is not None:
            kit.close()
        super().close()

    # -- internals -------------------------------------------------------------------------------------------
    def _update_servers(self, extra: str | None = None) -> None:
        """List every server with records (and `extra`); the current choice stays (new options reset it)."""
        dropdown = self._servers
        if dropdown is None:
            return
        current = dropdown.value
        names = set(self.history.servers()) | {n for n in (extra, current) if n not in (None, _ALL)}
        self._syncing = True
        try:
            dropdown.options = [("All servers", _ALL), *((visible(n), n) for n in sorted(names))]
            dropdown.value = current
        finally:
            self._syncing = False

    def _on_dropdown(self, _change: Any) -> None:
        if self._syncing:
            return
        server = None
        if self._servers is not None and self._servers.value != _ALL:
            server = self._servers.value
        elif self._servers is None:
            server = self._pinned
        outcome = None if self._outcomes.value == _ALL else self._outcomes.value
        with self.hold_trait_notifications():
            self.server_filter = server
            self.outcome_filter = outcome

    def _on_filter(self, _change: Any) -> None:
        if self.page != 0:
            self.page = 0  # re-renders through the observer
        else:
            self.refresh()

    def _turn(self, step: int) -> None:
        with self._lock:
            target = self.page + step
            if 0 <= target < self.pages:
                self.page = target

    def _on_change(self, change: str, record: HistoryRecord | None) -> None:
        """A store change: re-render only when it can touch what is shown (new servers join the dropdown)."""
        with self._lock:
            if self._closed:
                return
            new_server = record is None or (
                self._servers is not None and record.server not in _values(self._servers)
            )
            if change != "updated" and new_server:
                self._update_servers()
            if record is not None:
                if self.server_filter is not None and record.server != self.server_filter:
                    return
                if change == "updated" and self.outcome_filter is None and record.id not in self._visible_ids:
                    return  # totals unchanged, and the record is not on this page
            self.refresh()


def _values(dropdown: w.Dropdown) -> list[Any]:
    return [v for _, v in dropdown.options]


def _choose(dropdown: w.Dropdown, value: str) -> None:
    """Select `value` through the front-end path (the index a browser would send)."""
    values = _values(dropdown)
    if value not in values:
        raise ValueError(f"not a choice of the {dropdown.description} filter")
    dropdown.set_state({"index": values.index(value)})


def history(*, page_size: int = 20) -> HistoryPanel:
    """A live panel of every question any server of this kernel asked, newest first; never a value.

    `srv.history` shows one server's. Export plain records with `panel.records()`.
    """
    return HistoryPanel(page_size=page_size)
