"""The wire's capture: every JSON-RPC message of a server's connection, seen as it passes and kept
redacted, for `srv.wire` (`client.wire.wire.Wire`) to read.

The connection's transport streams are seen through (`tap`, `taps`): what the SDK writes and what it
reads, on the client thread, in the task that sends it, so a request is tied to the call that made it
(`CURRENT_CALL`). An HTTP connection adds each exchange's status and `Mcp-*` headers (`http_exchange`, an
httpx event hook). An in-process server has no transport (on 2026-07-28 the SDK calls it directly): its
client's dispatcher is seen through instead (`tap_client`), each call kept as the JSON-RPC message it
stands for. A message is noted as it passes and kept at the next `flush` (within `FLUSH_AFTER`, or at once
when anything reads the wire): the work of keeping it is off its way. What is kept, and how a person reads
it, is `core.wire` (its redaction policy: `core.wire._redaction`): nothing typed is ever stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ...core.redaction import Matcher, typed_pattern
from ...core.text import clip_line
from ...core.wire import Direction, WireGroup, WireLog, WireMessage, dumps, whole_text
from ..privacy import texts_of, typed_values
from ..record import CURRENT_CALL, SENDER
from .taps import TappedDispatcher, tapped

if TYPE_CHECKING:
    from ..context import ServerContext
    from ..record import CallRecord

__all__ = ["Remembered", "WireCapture"]

log = logging.getLogger("mcp_widgets")

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


class WireCapture:
    """What a connection's wire sees (the connection holds it): its streams tapped, each message noted as it
    passes and kept at the next `flush`, redacted, in a `WireLog` of the last `keep`. `srv.wire` reads it;
    `listeners` hear of each change (a flush that kept messages, a clear)."""

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
        self.listeners: list[Callable[[], None]] = []
        """Told (any thread) when messages were kept or cleared: `srv.wire`'s live views."""
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
            raw, size = whole_text(body, lambda: dumps(body))
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

    # -- reading (any thread; what was noted is kept first) --------------------------------------------
    def messages(
        self, *, call: str | None = None, method: str | None = None, direction: Direction | None = None
    ) -> list[WireMessage]:
        """The messages kept, oldest first, filtered as `WireLog.messages`."""
        self.flush()
        with self._lock:
            return self.log.messages(call=call, method=method, direction=direction)

    def groups(self) -> tuple[list[WireGroup], int, int]:
        """The messages kept as groups, with the count seen since the wire began and the count kept."""
        self.flush()
        with self._lock:
            return self.log.groups(), self.log.total, len(self.log)

    def text(self, *, name: str, limit: int) -> str:
        """The log as text (`WireLog.text`)."""
        self.flush()
        with self._lock:
            return self.log.text(name=name, limit=limit)

    def __len__(self) -> int:
        self.flush()
        return len(self.log)

    def clear(self) -> None:
        """Forget the messages kept so far."""
        self.flush()
        with self._lock:
            self.log.clear()
        self._changed()

    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()


def _answers_shown(record: CallRecord) -> int:
    """How many of the call's open questions have an answer (its values redact from then on)."""
    return sum(2 if getattr(q.card, "result", None) is not None else 1 for q in list(record.requests))


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
