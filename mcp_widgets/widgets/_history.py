"""HistoryPanel: every elicitation of this kernel (or of one server), newest first, updating live.

The panel is ONE anywidget model (assets/history.js): its state holds one page of plain-text rows (what the
table shows: when, server, call, mode, message, fields' names, outcome, who, how long; never a value typed,
which no record holds), the filters, the page and a status line. The page draws the table and sets every
string as textContent, so server text is shown literally, never as markup; a dropdown's choice or a press of
Newer / Older goes to the kernel as a message, which pages and filters the store (10,000 records are one page
of state, not 10,000). The same model renders in JupyterLab, Voila and marimo.

A panel is drawn only while the page shows it: each view says when it comes and goes (`{"view": 1}` /
`{"view": -1}`), and once the page has shown a panel and shows it no more (its cell ran again, its output was
cleared), changes only mark it stale; a view coming back, or Python reading `rows` or `total`, draws it again.
A panel nobody closed (`mw.history()` in a cell run ten times) then costs a flag per record, not a redraw
and a message to the page. A panel no page ever reported (a headless run, a test) is drawn on every change.

One line per question, so a screen shows a screenful of them (at 1280 px, every column, "Took" included):
each cell is one clipped line with its whole text on hover (`title`); a form's fields read "10 fields: Name *,
Email *, …" and open to the full list (`<details>`); what a server calls itself, when that differs from our
name for it, is said once under the table, not on every row.
"""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import traitlets as t

from ..core.history import PENDING, History, HistoryRecord, ServerHistory, default_history
from ..core.outcome import Action, Reason
from ..core.text import clip, shown
from ..core.urls import visible
from ._keys import DeclaredAnyWidget
from ._keys_assets import HISTORY_CSS, asset
from ._kit import Kit

__all__ = ["HistoryPanel", "history"]

MESSAGE_SHOWN = 300
"""Messages longer than this are cut in the table (`records()` keeps up to the store's limit)."""

_ALL = "__all__"  # the "no filter" choice in OUTCOME_CHOICES (None in the panel's state and filters)
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

_LAYOUT = Kit()
_DONE = {"accept": "accepted", "decline": "declined", "cancel": "cancelled"}


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "waiting"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes} min {secs:02d} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def row_cells(record: HistoryRecord) -> tuple[str, ...]:
    """The plain-text cells of one row, in COLUMNS order (the page sets each as text, never markup)."""
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


def _when_shown(text: str, today: str) -> str:
    """Today's: the time only (the date on hover); older: the date and the minute."""
    return text[11:] if text.startswith(today) else text[:16]


def _names_note(records: list[HistoryRecord]) -> str:
    """What servers on the page call themselves where that differs from our name: once, under the table."""
    pairs = dict.fromkeys(
        (r.server, r.declared_name) for r in records if r.declared_name and r.declared_name != r.server
    )
    return " · ".join(f"{shown(server)} calls itself “{shown(declared)}”" for server, declared in pairs)


def page_lines(records: list[HistoryRecord]) -> list[dict[str, Any]]:
    """The page as the front end draws it: per record its cells (COLUMNS order), the time shown, and a
    form's field names when there are several (the cell opens to them). Plain text only."""
    today = dt.datetime.now().astimezone().strftime("%Y-%m-%d ")
    lines = []
    for record in records:
        cells = row_cells(record)
        names = _field_names(record)
        lines.append(
            {
                "cells": [shown(c) for c in cells],
                "when": _when_shown(cells[0], today),
                "names": [shown(n) for n in names] if len(names) > 1 else [],
            }
        )
    return lines


class HistoryPanel(DeclaredAnyWidget):
    """Every elicitation, newest first: when, server, call, mode, message, fields, outcome, who, how long.

    Filters (server and outcome dropdowns) and paging (newest page first) apply to the table and to
    `records()`. The panel updates live as requests are asked and answered; it never shows a value.

    Args:
        history: The store (or one server's view of it); the process-wide store when None.
        server: Show only this server (no server dropdown then).
        page_size: Rows per page.
    """

    _esm = t.Unicode(
        asset("literal.js") + asset("history.js"), help="The panel's front end: filters, paging, the table."
    ).tag(sync=True)
    _css = t.Unicode(HISTORY_CSS, help="The panel's look (JupyterLab's CSS variables, with fallbacks).").tag(
        sync=True
    )
    _anywidget_id = t.Unicode("mcp_widgets.HistoryPanel", help="anywidget's name for this class.").tag(
        sync=True
    )
    page = t.Int(0, min=0, help="The page shown: 0 is the newest.").tag(sync=True)
    page_size = t.Int(20, min=1, help="Rows per page.").tag(sync=True)
    server_filter = t.Unicode(None, allow_none=True, help="The server shown, or None for all.").tag(sync=True)
    outcome_filter = t.Unicode(
        None, allow_none=True, help='"pending", an action or a reason (see OUTCOME_CHOICES), or None for all.'
    ).tag(sync=True)
    pages = t.Int(1, help="How many pages the matching records fill (at least 1).").tag(sync=True)
    lines = t.List(
        t.Dict(), help="The page's rows as plain text (see `page_lines`): never a value typed."
    ).tag(sync=True)
    status = t.Unicode("", help='Where the page is: "1–20 of 45 · page 1 of 3".').tag(sync=True)
    empty = t.Unicode("", help="What the table says when no row is shown.").tag(sync=True)
    names_note = t.Unicode("", help="What servers on the page call themselves, once, under the table.").tag(
        sync=True
    )
    servers = t.List(
        t.List(t.Unicode()), help="The server dropdown's choices after 'All servers': [label, name] each."
    ).tag(sync=True)
    pinned = t.Bool(False, help="Whether the panel shows one server only (no server dropdown).").tag(
        sync=True
    )
    outcomes = t.List(
        t.Tuple(t.Unicode(), t.Unicode(allow_none=True)),
        default_value=[(label, None if value == _ALL else value) for label, value in OUTCOME_CHOICES],
        help="The outcome dropdown's choices: [label, value], None for all.",
    ).tag(sync=True)
    columns = t.List(t.Unicode(), default_value=list(COLUMNS), help="The table's headings.").tag(sync=True)

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
        self._views = 0  # views the page says show the panel now
        self._reported = False  # whether a page ever said so (else it is drawn on every change)
        self._stale = False  # a change came while no view showed it
        super().__init__(
            layout=_LAYOUT.layout(),  # the process's shared Layout: one model per panel
            page_size=page_size,
            server_filter=server,
            pinned=server is not None,
        )
        self._update_servers()
        self.observe(self._on_filter, names=["server_filter", "outcome_filter"])
        self.observe(lambda _c: self.refresh(), names=["page", "page_size"])
        self.on_msg(self._receive)
        self._unsubscribe = self.history.subscribe(self._on_change)
        self.refresh()

    # -- what it shows ---------------------------------------------------------------------------------------
    @property
    def total(self) -> int:
        """How many records match the filters."""
        self._catch_up()
        return self._total

    @property
    def rows(self) -> list[tuple[str, ...]]:
        """The visible rows as plain text, in COLUMNS order (what the table shows)."""
        self._catch_up()
        return list(self._rows)

    @property
    def drawing(self) -> bool:
        """Whether the panel is drawn on every change: some view shows it, or no page ever reported one."""
        return self._views > 0 or not self._reported

    def records(self) -> list[dict[str, Any]]:
        """Plain dicts (as `History.records`) for every record matching the filters, newest first."""
        return self.history.records(self.server_filter, self.outcome_filter)

    def __repr__(self) -> str:
        self._catch_up()
        where = f" server={self.server_filter!r}" if self.server_filter is not None else ""
        what = f" outcome={self.outcome_filter!r}" if self.outcome_filter is not None else ""
        return f"<HistoryPanel records={self._total}{where}{what} page={self.page + 1}/{self.pages}>"

    # -- driving it ------------------------------------------------------------------------------------------
    def set_filter(self, *, server: str | None = _KEEP, outcome: str | None = _KEEP) -> None:
        """Choose a server (None: all) and an outcome (None: all) as a person would in the dropdowns.

        Raises:
            ValueError: A server this panel cannot show, or an unknown outcome.
        """
        with self._lock:
            new_outcome = self.outcome_filter
            if outcome is not _KEEP:
                new_outcome = None if outcome is None else str(getattr(outcome, "value", outcome))
                if new_outcome is not None and new_outcome not in {v for _, v in OUTCOME_CHOICES[1:]}:
                    raise ValueError("not a choice of the Outcome filter")
            new_server = self.server_filter
            if server is not _KEEP:
                if self._pinned is not None:
                    if server != self._pinned:
                        raise ValueError("this panel shows one server only")
                else:
                    new_server = server
                    if server is not None and server not in self._names:
                        self._update_servers(extra=server)
            with self.hold_trait_notifications():
                self.server_filter = new_server
                self.outcome_filter = new_outcome

    def older(self) -> bool:
        """Click "Older" (next page); False on the last page."""
        return self._turn(+1)

    def newer(self) -> bool:
        """Click "Newer" (previous page); False on the first page."""
        return self._turn(-1)

    def refresh(self) -> None:
        """Render the current page again (the listener calls this; safe from any thread)."""
        with self._lock:
            if self._closed:
                return
            self._stale = False
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
            first = self.page * size + 1 if found else 0
            pages = max(1, last + 1)
            with self.hold_sync():  # one message to the page for all of it
                self.pages = pages
                self.empty = empty
                self.lines = page_lines(found)
                self.names_note = _names_note(found)
                upto = first + len(found) - 1 if found else 0
                self.status = f"{first}–{upto} of {total:,} · page {self.page + 1} of {pages}"

    def close(self) -> None:
        """Stop listening and close the panel's model."""
        with self._lock:
            self._closed = True
        unsubscribe = getattr(self, "_unsubscribe", None)
        if unsubscribe is not None:
            unsubscribe()
        super().close()

    # -- internals -------------------------------------------------------------------------------------------
    @property
    def _names(self) -> set[str]:
        return {name for _, name in self.servers}

    def _update_servers(self, extra: str | None = None) -> None:
        """List every server with records (and `extra`, and the one chosen)."""
        if self._pinned is not None:
            return
        current = self.server_filter
        names = set(self.history.servers()) | {n for n in (extra, current) if n is not None}
        self.servers = [[visible(n), n] for n in sorted(names)]

    def _receive(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """A choice or a press from the page; a value no dropdown offers is ignored (a stale page)."""
        if not isinstance(content, dict):
            return
        try:
            if "view" in content and content["view"] in (-1, 1) and not isinstance(content["view"], bool):
                self._on_view(content["view"])
            elif "turn" in content and content["turn"] in (-1, 1):
                self._turn(content["turn"])
            elif "server" in content and (content["server"] is None or content["server"] in self._names):
                self.set_filter(server=content["server"])
            elif "outcome" in content and isinstance(content["outcome"], (str, type(None))):
                self.set_filter(outcome=content["outcome"])
        except ValueError:
            self.send_state()  # the page shows the filters as they are

    def _on_filter(self, _change: Any) -> None:
        if self.page != 0:
            self.page = 0  # re-renders through the observer
        else:
            self.refresh()

    def _on_view(self, step: int) -> None:
        """A view of the panel came (+1) or went (-1); one coming to a stale panel draws it."""
        with self._lock:
            self._reported = True
            self._views = max(0, self._views + step)
        if step > 0:
            self._catch_up()

    def _catch_up(self) -> None:
        """Draw the panel if changes came while no view showed it."""
        with self._lock:
            if not self._stale or self._closed:
                return
            self._update_servers()
            self.refresh()

    def _turn(self, step: int) -> bool:
        self._catch_up()
        with self._lock:
            target = self.page + step
            if not 0 <= target < self.pages:
                return False
            self.page = target
            return True

    def _on_change(self, change: str, record: HistoryRecord | None) -> None:
        """A store change: re-render only when it can touch what is shown (new servers join the dropdown)."""
        with self._lock:
            if self._closed:
                return
            if not self.drawing:
                self._stale = True  # drawn when a view comes back (or Python reads the rows)
                return
            new_server = record is None or (self._pinned is None and record.server not in self._names)
            if change != "updated" and new_server:
                self._update_servers()
            if record is not None:
                if self.server_filter is not None and record.server != self.server_filter:
                    return
                if change == "updated" and self.outcome_filter is None and record.id not in self._visible_ids:
                    return  # totals unchanged, and the record is not on this page
            self.refresh()


def history(*, page_size: int = 20) -> HistoryPanel:
    """A live panel of every question any server of this kernel asked, newest first; never a value.

    `srv.history` shows one server's. Export plain records with `panel.records()`.
    """
    return HistoryPanel(page_size=page_size)
