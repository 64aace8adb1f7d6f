"""The elicitation history: what was asked, by whom, and how it ended — never what was typed (pure).

One `HistoryRecord` per elicitation (per round, for a URL card asked again). A record keeps only what the
server sent and how the request ended: the server, the call it came from (kind and name, never arguments), the
mode (a URL keeps its host only), the message, the names and titles of the fields asked and which were
required, the `Outcome`, who answered and how long it took. No value, no default, no hint of which field was
touched; the only places a value lives are the reply to the server and the caller's variables.

`History` is a thread-safe, bounded store (the newest `max_records`, 10,000 by default; older records are
dropped). Listeners hear of every change, so a panel can update live. `default_history()` is the store of
this process, shared by every server; `History.for_server(name)` is a filtered view of one server.
"""

from __future__ import annotations

import datetime as dt
import itertools
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from .history_records import (
    MAX_NAME,
    MAX_RECORDS,
    MAX_TEXT,
    PENDING,
    RECORD_KEYS,
    AskedField,
    Change,
    HistoryRecord,
    Listener,
    Mode,
    Source,
    answered_by,
    as_fields,
    as_source,
    clean_outcome,
    parse_outcome_filter,
    schema_fields,
    status_of,
)
from .outcome import Outcome
from .text import clip
from .urls import inspect_url

__all__ = [  # the record types are history_records', here too for whoever reads a store
    "MAX_RECORDS",
    "MAX_TEXT",
    "PENDING",
    "RECORD_KEYS",
    "AskedField",
    "History",
    "HistoryRecord",
    "Listener",
    "ServerHistory",
    "Source",
    "answered_by",
    "default_history",
]

log = logging.getLogger("mcp_widgets")


class History:
    """A bounded, thread-safe store of elicitation records, newest kept; listeners hear of every change.

    Args:
        max_records: How many records to keep; when one more is added, the oldest is dropped.
    """

    def __init__(self, *, max_records: int = MAX_RECORDS) -> None:
        if max_records < 1:
            raise ValueError("max_records must be at least 1")
        self._max = max_records
        self._lock = threading.RLock()
        self._records: dict[int, HistoryRecord] = {}  # insertion order is age order: oldest first
        self._ids = itertools.count(1)
        self._listeners: list[Listener] = []
        # (server, pending-or-action, reason) -> how many records: filter totals without a scan.
        self._counts: Counter[tuple[str, str, str | None]] = Counter()

    @property
    def max_records(self) -> int:
        """How many records the store keeps at most."""
        return self._max

    def __len__(self) -> int:
        return len(self._records)

    def __repr__(self) -> str:
        return f"<History records={len(self)} max_records={self._max}>"

    # -- recording -------------------------------------------------------------------------------------------
    def begin(
        self,
        *,
        server: str,
        mode: Mode,
        message: str = "",
        declared_name: str | None = None,
        source: Source | tuple[str, str] | None = None,
        url: str | None = None,
        url_host: str | None = None,
        fields: Iterable[Any] = (),
        schema: Mapping[str, Any] | None = None,
        started: float | None = None,
        outcome: Outcome | None = None,
        scopes: Iterable[str] = (),
    ) -> HistoryRecord:
        """Record a request as asked (pending); `finish` it when it ends (the client does, from its card).

        A card asked again (a URL card's next round) is a new request: record it again.

        Args:
            server: The name we know the server by.
            mode: "form", "url" or "signin" (a sign-in: `url_host` is the authorization server's).
            message: The server's message.
            declared_name: What the server calls itself.
            source: ("tool" | "prompt" | "resource", name) of the call the request came from.
            url: A URL-mode request's URL: reduced to its host here (or give `url_host`).
            fields: The fields asked: FieldSpec-like objects or (name, title, required) tuples.
            schema: Else the raw `requestedSchema`, read leniently (any shape, even one the form refuses;
                only property names, titles and `required` are read).
            started: `time.monotonic()` when the server asked, if earlier than now.
            outcome: Finishes the record at once: a request that ended without a card (e.g. refused for an
                invalid schema).
            scopes: A sign-in's scopes.
        """
        if mode not in ("form", "url", "signin"):
            raise ValueError('mode must be "form", "url" or "signin"')
        now = time.monotonic()
        started = now if started is None else min(started, now)
        if url_host is None and url is not None:
            url_host = inspect_url(url).host
        if not fields and schema is not None:
            fields = schema_fields(schema)
        with self._lock:
            record = HistoryRecord(
                id=next(self._ids),
                asked_at=dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=now - started),
                server=clip(server, MAX_NAME),
                mode=mode,
                message=clip(message, MAX_TEXT),
                declared_name=None if declared_name is None else clip(declared_name, MAX_NAME),
                source=as_source(source),
                url_host=None if url_host is None else clip(url_host, MAX_NAME),
                fields=as_fields(fields),
                scopes=tuple(clip(str(s), MAX_NAME) for s in scopes),
                started=started,
            )
            self._records[record.id] = record
            self._count(record, 1)
            while len(self._records) > self._max:
                oldest = self._records.pop(next(iter(self._records)))
                self._count(oldest, -1)
        self._notify("added", record)
        if outcome is not None:
            self.finish(record.id, outcome)
            return self.get(record.id) or record
        return record

    begin_request = begin
    """The older name of `begin`."""

    def finish(self, record_id: int, outcome: Outcome | None) -> bool:
        """Set the outcome and duration of a pending record. The first outcome wins.

        Returns False (and changes nothing) when the record is unknown, dropped, already finished, or
        `outcome` is None.
        """
        if outcome is None:
            return False
        with self._lock:
            record = self._records.get(record_id)
            if record is None or record.outcome is not None:
                return False
            duration = max(0.0, time.monotonic() - record.started)
            updated = replace(record, outcome=clean_outcome(outcome), duration=round(duration, 3))
            self._records[record_id] = updated
            self._count(record, -1)
            self._count(updated, 1)
        self._notify("updated", updated)
        return True

    def revise(self, record_id: int, outcome: Outcome) -> bool:
        """Replace the outcome of a finished record: only for what was learned later (the server refused a
        late answer: `Reason.EXPIRED`). False when the record is unknown, dropped or still pending."""
        with self._lock:
            record = self._records.get(record_id)
            if record is None or record.outcome is None:
                return False
            updated = replace(record, outcome=clean_outcome(outcome))
            self._records[record_id] = updated
            self._count(record, -1)
            self._count(updated, 1)
        self._notify("updated", updated)
        return True

    def clear(self) -> None:
        """Forget every record."""
        with self._lock:
            self._records.clear()
            self._counts.clear()
        self._notify("cleared", None)

    # -- reading ---------------------------------------------------------------------------------------------
    def get(self, record_id: int) -> HistoryRecord | None:
        """The record with this id, if the store still has it."""
        return self._records.get(record_id)

    def entries(self, server: str | None = None, outcome: object = None) -> list[HistoryRecord]:
        """Records newest first, optionally for one server and one outcome.

        `outcome` is "pending", an action ("accept", "decline", "cancel") or a reason ("timeout",
        "handler", ...), as a string or the enum.
        """
        return self.page(server=server, outcome=outcome, limit=None)[1]

    def records(self, server: str | None = None, outcome: object = None) -> list[dict[str, Any]]:
        """Plain, JSON-ready dicts (keys in RECORD_KEYS), newest first, filtered as `entries`."""
        return [r.to_dict() for r in self.entries(server, outcome)]

    def page(
        self,
        *,
        server: str | None = None,
        outcome: object = None,
        offset: int = 0,
        limit: int | None = 20,
    ) -> tuple[int, list[HistoryRecord]]:
        """(how many records match, the `limit` matches after the first `offset`), newest first.

        Cheap for the newest pages: only the records up to the page are visited, and the total comes from
        counters kept per server and outcome.
        """
        wanted = parse_outcome_filter(outcome)
        with self._lock:
            total = sum(n for key, n in self._counts.items() if _key_matches(key, server, wanted))
            newest_first: Iterator[HistoryRecord] = reversed(self._records.values())
            matching = (r for r in newest_first if _matches(r, server, wanted))
            stop = None if limit is None else offset + limit
            found = list(itertools.islice(matching, offset, stop))
        return total, found

    def count(self, server: str | None = None, outcome: object = None) -> int:
        """How many records match (no scan)."""
        wanted = parse_outcome_filter(outcome)
        with self._lock:
            return sum(n for key, n in self._counts.items() if _key_matches(key, server, wanted))

    def servers(self) -> list[str]:
        """The servers that have records, sorted."""
        with self._lock:
            return sorted({key[0] for key, n in self._counts.items() if n > 0})

    def for_server(self, name: str) -> ServerHistory:
        """A view of this store limited to one server."""
        return ServerHistory(self, name)

    # -- listening -------------------------------------------------------------------------------------------
    def subscribe(self, fn: Listener) -> Callable[[], None]:
        """Call `fn(change, record)` after each change (in the thread making it); returns an unsubscriber."""
        with self._lock:
            self._listeners.append(fn)
        return lambda: self.unsubscribe(fn)

    def unsubscribe(self, fn: Listener) -> None:
        """Stop calling `fn` (nothing happens when it was not subscribed)."""
        with self._lock:
            if fn in self._listeners:
                self._listeners.remove(fn)

    # -- internals -------------------------------------------------------------------------------------------
    def _count(self, record: HistoryRecord, delta: int) -> None:
        key = (record.server, *status_of(record.outcome))
        self._counts[key] += delta
        if self._counts[key] <= 0:
            del self._counts[key]

    def _notify(self, change: Change, record: HistoryRecord | None) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for fn in listeners:
            try:
                fn(change, record)
            except Exception:
                log.exception("a history listener failed")


def _matches(record: HistoryRecord, server: str | None, wanted: tuple[str, str] | None) -> bool:
    return _key_matches((record.server, *status_of(record.outcome)), server, wanted)


def _key_matches(
    key: tuple[str, str, str | None], server: str | None, wanted: tuple[str, str] | None
) -> bool:
    if server is not None and key[0] != server:
        return False
    if wanted is None:
        return True
    kind, value = wanted
    return key[1] == value if kind == "status" else key[2] == value


class ServerHistory:
    """One server's part of a `History`: the same records, filtered by server."""

    def __init__(self, history: History, server: str) -> None:
        self.history = history
        self.server = server

    def __len__(self) -> int:
        return self.history.count(self.server)

    def __repr__(self) -> str:
        return f"<ServerHistory server={self.server!r} records={len(self)}>"

    def entries(self, outcome: object = None) -> list[HistoryRecord]:
        """This server's records, newest first."""
        return self.history.entries(self.server, outcome)

    def records(self, outcome: object = None) -> list[dict[str, Any]]:
        """This server's plain records, newest first."""
        return self.history.records(self.server, outcome)

    def subscribe(self, fn: Listener) -> Callable[[], None]:
        """Like `History.subscribe`, for this server's records only (and "cleared")."""

        def relay(change: Change, record: HistoryRecord | None) -> None:
            if record is None or record.server == self.server:
                fn(change, record)

        return self.history.subscribe(relay)


_default = History()


def default_history() -> History:
    """The store every server of this process records into."""
    return _default
