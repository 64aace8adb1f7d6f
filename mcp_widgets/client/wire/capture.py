"""`srv.wire`: every JSON-RPC message of a server's connection, captured as it passes, redacted when kept.

The connection's transport streams are seen through (`tap`, `taps`): what the SDK writes and what it
reads, on the client thread, in the task that sends it, so a request is tied to the call that made it
(`CURRENT_CALL`). An HTTP connection adds each exchange's status and `Mcp-*` headers (`http_exchange`, an
httpx event hook). An in-process server has no transport (on 2026-07-28 the SDK calls it directly): its
client's dispatcher is seen through instead (`tap_client`), each call kept as the JSON-RPC message it
stands for. A message is noted as it passes and kept at the next `flush` (within `FLUSH_AFTER`, or at once
when anything reads the wire): the work of keeping it is off its way. What is kept, and how a person reads
it, is `core.wire`: nothing typed is ever stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import threading
import time
import uuid
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ... import kernel
from ...core.redaction import Matcher, typed_pattern
from ...core.text import clip_line
from ...core.wire import Direction, WireGroup, WireLog, WireMessage, clipped, view_state, whole_text
from ..privacy import texts_of, typed_values
from ..record import CURRENT_CALL, SENDER
from ..runtime import on_main_after
from .taps import TappedDispatcher, tapped

if TYPE_CHECKING:
    from ...widgets import WireView
    from ..context import ServerContext
    from ..record import CallRecord

__all__ = ["Wire", "Wires"]

log = logging.getLogger("mcp_widgets")

REFRESH = 0.25
"""Seconds between two updates of a shown wire view (a busy server must not flood the page)."""
FLUSH_AFTER = 0.05
"""Seconds a noted message waits to be kept (off its way: a person's question is not slowed by the wire)."""
FLUSH_COUNT = 500
"""Noted messages that are kept at once (a flood keeps its wire's memory bounded)."""
_RECENT = 32
"""Calls whose typed values redact every later message too (a server may echo an answer later)."""


class Remembered(Protocol):
    """What the server's last ended calls sent (`privacy.LateLines`): their values still redact."""

    version: int

    def texts(self) -> frozenset[str]: ...


class Wire:
    """A connection's wire: the last `keep` messages, redacted. `srv.wire`.

    `records()` gives them as plain dicts, `save(path)` writes JSON Lines, `print(srv.wire)` shows them as
    text and a cell ending with `srv.wire` shows them live, grouped by call.
    """

    def __init__(self, ctx: ServerContext, keep: int, late: Remembered) -> None:
        self._ctx = ctx
        self.log = WireLog(keep)
        self._lock = threading.Lock()
        self._late = late
        self._calls: OrderedDict[str, weakref.ref[CallRecord]] = OrderedDict()
        """The calls that sent a message lately (not held: an ended call's values are in `late`)."""
        self._pattern: tuple[tuple[str, ...], Matcher | None] = ((), None)
        self._texts: dict[str, tuple[tuple[int, int, int], frozenset[str]]] = {}
        """Each call's typed texts, with the signature they were read at (`_typed`)."""
        self._texts_keys: list[str] = []
        self._late_seen = -1
        self._typed_read = False
        self._pending: list[tuple[float, CallRecord | None, tuple[str, str] | None, tuple[Any, ...]]] = []
        """What passed and was not kept yet (`flush`), with the call or other sender that sent it."""
        self._flush_due = False
        self._ties: OrderedDict[Any, deque[CallRecord]] = OrderedDict()
        """A server's question -> the calls it belongs to, as the client's intake found them, by request id,
        in the order they came (two calls' questions may share an id: a per-call counter's "e1")."""
        self._reads: OrderedDict[str, str] = OrderedDict()
        """A resource read's call -> its label, naming the URI read (`_label`)."""
        self._views: weakref.WeakSet[WireView] = weakref.WeakSet()
        self._refresh_due = False
        self.inproc = False
        """The server runs in this process without JSON-RPC: nothing to capture."""

    @property
    def keep(self) -> int:
        """How many messages are kept (the oldest go first); 0: the wire is off."""
        return self.log.keep

    # -- capture (client thread) -----------------------------------------------------------------------
    def tap(self, kind: str, transport: Any) -> Any:
        """`transport` with its messages captured (an in-process server has no transport: `tap_client`)."""
        if kind == "inproc" or self.keep <= 0:
            return transport
        return tapped(self, transport)

    def tap_client(self, kind: str, client: Any) -> None:
        """An in-process server: the SDK client calls it directly (its 2026-07-28 path frames no JSON-RPC),
        so what passes between them is captured at the client's dispatcher, as the messages they stand for
        (numbered by the wire; nothing comes in the way of a wire's bytes: sizes are of their JSON)."""
        if kind != "inproc" or self.keep <= 0:
            return
        connector = getattr(client, "_connect", None)  # the SDK's seam for how a client reaches its server
        if connector is None:
            self.inproc = True  # an SDK without it: said in the text, nothing captured
            return

        async def connect(*args: Any) -> Any:
            return TappedDispatcher(await connector(*args), self)

        client._connect = connect

    def capture(self, direction: Direction, item: Any) -> None:
        """A message the transport passed (a `SessionMessage`): noted now, kept at the next `flush`."""
        if getattr(item, "message", None) is not None:
            self._note(("message", direction, item))

    def capture_dict(self, direction: Direction, body: dict[str, Any]) -> None:
        """A message given as a dict (in process: no JSON-RPC text): noted now, kept at the next `flush`."""
        self._note(("dict", direction, body))

    def http_exchange(self, response: Any) -> None:
        """An HTTP response arrived (httpx's event hook): its status and headers, kept at the next `flush`."""
        try:
            request = response.request
            headers = {**dict(request.headers), **dict(response.headers)}
            status, content = response.status_code, _content(request)
            self._note(("http", request.method, str(request.url), status, headers, content))
        except Exception:
            log.debug("the wire of %s could not note an HTTP exchange", self._ctx.name, exc_info=True)

    def _note(self, what: tuple[Any, ...]) -> None:
        """Note what passed, when and in which call (the sender's task knows it only now); the work of
        keeping it (JSON, redaction, grouping) is done off the message's way, at most `FLUSH_AFTER` s later,
        or at once when anything reads the wire. What was noted is read by nothing else before."""
        record = CURRENT_CALL.get() if what[1] == "out" else None
        sender = SENDER.get() if record is None and what[1] == "out" else None
        with self._lock:
            self._pending.append((time.monotonic(), record, sender, what))
            due, self._flush_due = self._flush_due, True
            flood = len(self._pending) >= FLUSH_COUNT
        if flood:
            self.flush()
        elif not due:
            with contextlib.suppress(RuntimeError):  # no running loop (a test's own thread): kept when read
                asyncio.get_running_loop().call_later(FLUSH_AFTER, self.flush)

    def flush(self) -> None:
        """Keep what was noted: redacted, clipped, grouped (any thread). Never raises: it only watches."""
        with self._lock:
            pending, self._pending, self._flush_due = self._pending, [], False
            for _, record, _, _ in pending:  # every call of the flush known first: typed values read once
                if record is not None:
                    self._remember(record)
            self._typed_read = False
            for when, record, sender, what in pending:
                try:
                    self._keep(when, record, what, sender)
                except Exception:
                    log.debug("the wire of %s could not keep a message", self._ctx.name, exc_info=True)
        if pending:
            self._changed()

    def _keep(
        self, when: float, record: CallRecord | None, what: tuple[Any, ...], sender: tuple[str, str] | None
    ) -> None:
        if what[0] == "http":
            _, method, url, status, headers, content = what
            ids, answers = _ids(content)
            self.log.add_http(
                method, url, status, headers, ids=ids, answers=answers, when=when, typed=self._typed
            )
            return
        kind, direction, item = what
        # The message as Python objects, its strings shared with the SDK's (no JSON text of a 50 MB
        # message is written nor parsed: only what is kept of it is, once clipped).
        body = item.message.model_dump(by_alias=True, exclude_unset=True) if kind == "message" else item
        if not isinstance(body, dict):
            return
        if kind == "message":
            dump = item.message.model_dump_json
            raw, size = whole_text(body, lambda: dump(by_alias=True, exclude_unset=True))
        else:
            raw, size = whole_text(body, lambda: _dumps(body))
            if raw is not None:  # what an in-process dispatcher passed may hold objects: as their JSON says
                body = json.loads(raw)
        call: tuple[str, str] | None = None
        if record is None and direction == "in" and "method" in body and body.get("id") is not None:
            record = self._tied(body["id"])  # a question the intake tied to its call
        if record is not None:
            call = (record.display_id, self._label(record, body))
            self._remember(record)
        elif sender is not None:
            call = sender  # a completion, a watch's read, an app's document: a group of its own
        self.log.add(
            direction,
            body,
            size=size,
            call=call,
            typed=self._typed,
            typed_arguments=record is not None and record.typed_arguments,
            raw=raw,
            when=when,
        )

    def tie(self, request_id: Any, record: CallRecord) -> None:
        """The server's request `request_id` belongs to `record` (the intake knows; the wire may not: two
        2025-11-25 calls in flight). Read when that request is kept."""
        if request_id is None or self.keep <= 0:  # the wire is off: nothing is kept to tie
            return
        with self._lock:
            self._ties.setdefault(request_id, deque(maxlen=64)).append(record)
            self._ties.move_to_end(request_id)
            while len(self._ties) > 64:
                self._ties.popitem(last=False)
            # Kept already (a busy machine's flush came first): it moves to its call.
            self.log.retie(request_id, (record.display_id, f"{record.kind} {record.name}"))

    def _tied(self, request_id: Any) -> CallRecord | None:
        """The call the intake tied the server's request `request_id` to (the oldest: ids may repeat)."""
        tied = self._ties.get(request_id)
        if not tied:
            return None
        record = tied.popleft()
        if not tied:
            del self._ties[request_id]
        return record

    def _label(self, record: CallRecord, body: Mapping[str, Any]) -> str:
        """What a call is: "tool roll_dice"; a resource read names the URI read (your code's argument), its
        template beside it: "resource demo://text/42 (demo://text/{id})". The history keeps only the
        template; a URI a person typed (an app's read) is kept as the template here too."""
        label = f"{record.kind} {record.name}"
        if record.kind != "resource":
            return label
        params = body.get("params")
        uri = params.get("uri") if isinstance(params, Mapping) else None
        if body.get("method") == "resources/read" and isinstance(uri, str) and not record.typed_arguments:
            read = f"resource {clip_line(uri, 200)}"
            self._reads[record.display_id] = read if uri == record.name else f"{read} ({record.name})"
            while len(self._reads) > 64:
                self._reads.popitem(last=False)
        return self._reads.get(record.display_id, label)

    def _remember(self, record: CallRecord) -> None:
        key = record.display_id
        if key not in self._calls:
            self._calls[key] = weakref.ref(record)
            self._typed_read = False  # a call the flush meets only now (a tied question): read again
            while len(self._calls) > _RECENT:
                self._calls.popitem(last=False)

    def _typed(self, key: str | None) -> Matcher | None:
        """What the person typed in the server's calls in flight and its last ended ones (`late`), as one
        pattern: a server may echo a value in a later call, or in a message tied to none."""
        if self._typed_read:  # once a flush: what the calls sent is read as of the flush, for all it keeps
            return self._pattern[1]
        self._typed_read = True
        # What a call sent changes only when it has a question answered or a typed argument added: each
        # call's texts are kept with a cheap signature of that, and the pattern is rebuilt only on a change.
        changed = self._late.version != self._late_seen
        keys: list[str] = []
        parts: list[frozenset[str]] = []
        for call_key, ref in list(self._calls.items()):
            record = ref()
            if record is None:
                continue
            state = (len(record.answered), len(record.typed_inputs), _answers_shown(record))
            cached = self._texts.get(call_key)
            if cached is None or cached[0] != state:
                texts_now = texts_of([*typed_values(record), *record.typed_inputs])
                changed = changed or cached is None or cached[1] != texts_now
                cached = self._texts[call_key] = (state, texts_now)
            keys.append(call_key)
            parts.append(cached[1])
        if changed or keys != self._texts_keys:
            self._late_seen = self._late.version
            self._texts_keys = keys
            for gone in [k for k in self._texts if k not in self._calls]:
                del self._texts[gone]
            texts = tuple(sorted(frozenset(self._late.texts()).union(*parts)))
            if texts != self._pattern[0]:
                self._pattern = (texts, typed_pattern(texts) if texts else None)
        return self._pattern[1]

    # -- reading ----------------------------------------------------------------------------------------
    def messages(
        self, *, call: str | None = None, method: str | None = None, direction: Direction | None = None
    ) -> list[WireMessage]:
        """The messages kept, oldest first: all, or those of one call (its key or what it is, "tool
        roll_dice"), one method, or one direction ("out": sent, "in": received)."""
        self.flush()
        with self._lock:
            return self.log.messages(call=call, method=method, direction=direction)

    def groups(self) -> list[WireGroup]:
        """The messages kept as a person reads them: one group per call (its rows: `group.rows()`), then
        the connection's own traffic."""
        self.flush()
        with self._lock:
            return self.log.groups()

    def records(
        self, *, call: str | None = None, method: str | None = None, direction: Direction | None = None
    ) -> list[dict[str, Any]]:
        """The messages kept as plain dicts (filtered as `messages`): redacted, for a bug report."""
        return self.log.records(self.messages(call=call, method=method, direction=direction))

    def save(
        self,
        path: str | os.PathLike[str],
        *,
        call: str | None = None,
        method: str | None = None,
        direction: Direction | None = None,
    ) -> Path:
        """Write the messages kept (filtered as `messages`) as JSON Lines, redacted; returns the path."""
        target = Path(path)
        chosen = self.messages(call=call, method=method, direction=direction)
        with target.open("w", encoding="utf-8") as out:
            for line in self.log.lines(chosen):
                out.write(line + "\n")
        return target

    def clear(self) -> None:
        """Forget the messages kept so far."""
        self.flush()
        with self._lock:
            self.log.clear()
        self._changed()

    def text(self, limit: int = 40) -> str:
        self.flush()
        with self._lock:
            text = self.log.text(name=self._ctx.name, limit=limit)
        if self.keep <= 0:
            return f"the wire of {self._ctx.name!r} is off (connect(..., wire=N) keeps N messages)"
        if self.inproc and not len(self.log):
            text += "\n(an in-process server exchanges no JSON-RPC messages: nothing to show)"
        return text

    def __len__(self) -> int:
        self.flush()
        return len(self.log)

    def __repr__(self) -> str:
        return self.text()

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(self.text())

    # -- the live view (main thread) -------------------------------------------------------------------
    def view(self) -> WireView:
        """A live widget of this wire: one row per call, expanding to its messages."""
        from ...widgets import WireView

        view = WireView(title=f"The wire of {self._ctx.name}", fetch=self._details)
        self._views.add(view)
        self._refresh()
        return view

    def _ipython_display_(self) -> None:
        if kernel.kernel_support() == "none":
            print(self.text())
            return
        # The live view, with the text beside it: what a notebook saved without widget state (or read where
        # no widget renders: GitHub, nbconvert) shows, redacted as the view is.
        kernel.display_as(kernel.with_text(self.view(), self.text()), uuid.uuid4().hex)

    def _details(self, seqs: Iterable[int]) -> dict[int, str]:
        wanted = set(seqs)
        found = {m.seq: m for m in self.messages() if m.seq in wanted}
        return {seq: _detail(found.get(seq)) for seq in wanted}

    def _changed(self) -> None:
        """A message was kept (any thread): the shown views update, at most every `REFRESH` s."""
        if self._refresh_due or not self._views:
            return
        self._refresh_due = True
        on_main_after(REFRESH, self._refresh)

    def _refresh(self) -> None:
        self._refresh_due = False
        views = [v for v in list(self._views) if v.comm is not None]
        if not views:
            return
        self.flush()
        with self._lock:
            groups, total, kept = self.log.groups(), self.log.total, len(self.log)
        state = view_state(groups, total=total, kept=kept, keep=self.keep)
        for view in views:
            view.show(state)


def _answers_shown(record: CallRecord) -> int:
    """How many of the call's open questions have an answer (its values redact from then on)."""
    return sum(2 if getattr(q.view, "result", None) is not None else 1 for q in list(record.requests))


def _detail(message: WireMessage | None) -> str:
    """An opened row: the message first (what a person opened it for), then when, which way, how big."""
    if message is None:
        return "(no longer kept: the wire keeps the newest messages only)"
    record = message.record()
    shown = {"message": clipped(record.pop("message"))}  # long strings cut, with their size
    shown.update((k, v) for k, v in record.items() if k != "call")  # a hex key says nothing to a person
    return json.dumps(shown, indent=2, ensure_ascii=False, default=str)


def _dumps(body: Any) -> str:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), default=str)


def _content(request: Any) -> bytes:
    """An HTTP request's body (read only for its ids, then dropped): none for a GET or a streamed body."""
    try:
        content = request.content
    except Exception:  # a streamed body: not read here
        return b""
    return content if isinstance(content, bytes) and len(content) <= 1_000_000 else b""


def _ids(content: bytes) -> tuple[list[Any], list[Any]]:
    """The ids of the JSON-RPC requests an HTTP body carried, and of the answers it carried."""
    try:
        body = json.loads(content) if content else None
    except ValueError:
        return [], []
    items = [i for i in (body if isinstance(body, list) else [body]) if isinstance(i, Mapping)]
    asked = [i["id"] for i in items if i.get("id") is not None and "method" in i]
    answered = [i["id"] for i in items if i.get("id") is not None and "method" not in i]
    return asked, answered


class Wires:
    """Every connection's wire in this kernel (`mw.wire()`): each server's, newest server last."""

    def __init__(self, wires: Callable[[], list[tuple[str, Wire]]]) -> None:
        self._wires = wires

    def records(self) -> list[dict[str, Any]]:
        """Every kept message of every connection, each with its server's name, in time order per server."""
        return [{"server": name, **r} for name, wire in self._wires() for r in wire.records()]

    def save(self, path: str | os.PathLike[str]) -> Path:
        target = Path(path)
        with target.open("w", encoding="utf-8") as out:
            for record in self.records():
                out.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        return target

    def text(self) -> str:
        wires = self._wires()
        if not wires:
            return "no connection yet: mw.connect(...) first"
        return "\n\n".join(wire.text() for _, wire in wires)

    def __repr__(self) -> str:
        return self.text()

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(self.text())

    def _ipython_display_(self) -> None:
        wires = self._wires()
        if kernel.kernel_support() == "none" or not wires:
            print(self.text())
            return
        import ipywidgets

        views = ipywidgets.VBox([wire.view() for _, wire in wires])
        kernel.display_as(kernel.with_text(views, self.text()), uuid.uuid4().hex)
