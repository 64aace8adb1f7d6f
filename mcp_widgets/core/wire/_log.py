"""The log: a connection's messages as they pass, each tied to the call it belongs to and kept in a ring.

`WireLog.add` keeps one message (any thread, one at a time): it finds its call (our request's sender, a
result's request, a question's related task, a progress token), redacts it (`_redaction`: the policy) and
clips it (`_clip`), and stores it as a `WireMessage`. The ring keeps the last `keep` messages, so its memory
is bounded; reading gives them back filtered, grouped (`_groups`), or as text (`_views`).
"""

from __future__ import annotations

import itertools
import json
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from ..redaction import Matcher
from ._groups import WireGroup, grouped
from ._message import Direction, Kind, WireMessage, notes
from ._redaction import http_headers, http_path, is_answer, kept_body, redact
from ._views import wire_text

__all__ = ["DEFAULT_KEEP", "WireLog"]

DEFAULT_KEEP = 5000
"""Messages a connection's wire keeps by default (`connect(..., wire=N)`; 0 turns it off)."""
_TRACKED = 2000
"""Open requests remembered (for their method and time) before the oldest is forgotten."""
_EARLY = 32
"""The newest messages looked through for a task's status pushed before the result naming the task."""

_K = TypeVar("_K")
_V = TypeVar("_V")


class _Recent(OrderedDict[_K, _V]):
    """A dict of the last `limit` keys set: one more forgets the oldest (a server may send without end)."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def __setitem__(self, key: _K, value: _V) -> None:
        super().__setitem__(key, value)
        while len(self) > self.limit:
            self.popitem(last=False)


@dataclass
class _Open:
    method: str
    at: float
    call: str | None


class WireLog:
    """A connection's wire: `add` each message as it passes (any thread, one at a time), read it back.

    `calls` names each call key ("tool roll_dice"); `now` is the clock (monotonic seconds).
    """

    def __init__(self, keep: int = DEFAULT_KEEP, now: Callable[[], float] = time.monotonic) -> None:
        self.keep = keep
        self._now = now
        self._began = now()
        self._seq = itertools.count(1)
        self._messages: deque[WireMessage] = deque(maxlen=max(keep, 1))
        self._sent: _Recent[Any, _Open] = _Recent(_TRACKED)
        """Our requests awaiting their answer, by id."""
        self._asked: _Recent[Any, list[_Open]] = _Recent(_TRACKED)
        """The server's requests awaiting our answer, by id (several when a server used an id twice)."""
        self._answered: _Recent[Any, _Open] = _Recent(64)
        """The server's requests we answered last, by id (over HTTP the answer's exchange comes after it)."""
        self._tasks: _Recent[str, str] = _Recent(_TRACKED)
        """Task id -> the call that made it."""
        self.labels: OrderedDict[str, str] = OrderedDict()
        """Call key -> what the call is ("tool roll_dice")."""
        self.total = 0
        """Messages seen since the wire began (the ring keeps the last `keep`)."""
        self.listeners: list[Callable[[], None]] = []

    def __len__(self) -> int:
        return len(self._messages)

    def add(
        self,
        direction: Direction,
        message: Mapping[str, Any],
        *,
        size: int,
        call: tuple[str, str] | None = None,
        typed: Callable[[str | None], Matcher | None] | None = None,
        typed_arguments: bool = False,
        raw: str | None = None,
        when: float | None = None,
    ) -> WireMessage | None:
        """Keep one JSON-RPC message (a dict as on the wire), redacted. `call` is (key, label) when the
        sender knows the call (our requests); `typed(key)` matches what the person typed in the call the
        message belongs to (None: in no call); `raw` is the message's JSON text, when the caller has it (a
        message without it, or over `WHOLE_KEEP`, is kept clipped); `when` the clock's time it passed."""
        if self.keep <= 0:
            return None
        at = (self._now() if when is None else when) - self._began
        method = message.get("method")
        ident = message.get("id")
        key = call[0] if call is not None else None
        if call is not None:
            self.labels[call[0]] = call[1]
            self.labels.move_to_end(call[0])
        took: float | None = None
        answers: str | None = None
        if isinstance(method, str):
            kind: Kind = "request" if ident is not None else "notification"
            if kind == "request" and direction == "out":
                self._sent[ident] = _Open(method, at, key)
            elif kind == "request":
                if key is None:
                    key = self._call_of_request(message)
                # A server may use an id twice (a ping with its question's id, two calls' "e1"): each is kept.
                self._asked.setdefault(ident, []).append(_Open(method, at, key))
            elif key is None:
                key = self._call_of_notification(message)
        else:
            kind = "error" if "error" in message else "result"
            opened = self._sent.pop(ident, None) if direction == "in" else self._answering(ident, message)
            if opened is not None:
                method, took, key = opened.method, at - opened.at, key or opened.call
                # what we answer, and a completion's result (its values extend what was typed)
                asked = direction == "out" or opened.method == "completion/complete"
                answers = opened.method if asked else None
                if direction == "out":
                    self._answered[ident] = _Open(opened.method, at, key)
                if direction == "in" and key is not None:
                    self._note_task(message, key)
        body = redact(message, sent=direction == "out", answers=answers, typed_arguments=typed_arguments)
        # What we send quotes no typed value but where it is redacted above (answers, typed arguments,
        # request state); the rest is the person's own code. What comes in may quote anything.
        pattern = typed(key) if typed is not None and direction == "in" else None
        body, text = kept_body(message, body, raw, pattern)
        note, task, state = notes(kind, body)
        kept = WireMessage(
            seq=next(self._seq),
            at=at,
            direction=direction,
            kind=kind,
            method=method if isinstance(method, str) else None,
            id=ident if isinstance(ident, (str, int)) and not isinstance(ident, bool) else None,
            size=size,
            text=text,
            call=key,
            took=took,
            note=note,
            task=task,
            state=state,
        )
        self._store(kept)
        return kept

    def _answering(self, ident: Any, message: Mapping[str, Any]) -> _Open | None:
        """The server's request our answer `message` answers: of those with its id (a server may use one
        twice), the question when the answer is shaped as one's, else the other, else the oldest."""
        opened = self._asked.get(ident)
        if not opened:
            return None
        answer = is_answer(message.get("result"))
        chosen = next((o for o in opened if (o.method == "elicitation/create") == answer), opened[0])
        opened.remove(chosen)
        if not opened:
            del self._asked[ident]
        return chosen

    def add_http(
        self,
        method: str,
        url: str,
        status: int,
        headers: Mapping[str, str],
        *,
        ids: Sequence[Any] = (),
        answers: Sequence[Any] = (),
        when: float | None = None,
        typed: Callable[[str | None], Matcher | None] | None = None,
    ) -> WireMessage | None:
        """Keep one HTTP exchange: status, `Mcp-*` headers (credentials as markers), the URL without its
        query. `ids` are those of the JSON-RPC requests its body carried, `answers` those of the answers to
        the server's requests (it is shown with their call). `typed` as for `add`: a server may echo a
        typed value in a header or redirect to a path holding it."""
        if self.keep <= 0:
            return None
        carried = [o for i in ids if (o := self._sent.get(i)) is not None]
        carried += [o for i in answers if (o := self._answered.get(i)) is not None]
        key = next((o.call for o in carried if o.call), None)
        pattern = typed(key) if typed is not None else None
        kept = WireMessage(
            seq=next(self._seq),
            at=(self._now() if when is None else when) - self._began,
            direction="in",
            kind="http",
            method=f"{method} {http_path(url, pattern)}",
            about=carried[0].method if carried else None,
            id=ids[0] if len(ids) == 1 else None,
            size=0,
            text="{}",
            call=key,
            status=status,
            headers=http_headers(headers, pattern),
        )
        self._store(kept)
        return kept

    def retie(self, request_id: Any, call: tuple[str, str]) -> None:
        """The server's request `request_id`, kept already, belongs to `call` (key, label): it moves there,
        and so does our answer to it."""
        asked = self._asked.get(request_id)
        self.labels[call[0]] = call[1]
        self._prune_labels()
        if not asked:  # not kept yet (the usual case): kept, it finds its call; no scan of the ring
            return
        asked[-1].call = call[0]
        for message in reversed(self._messages):
            if message.direction == "in" and message.kind == "request" and message.id == request_id:
                message.call = call[0]
                break

    def _store(self, message: WireMessage) -> None:
        self._messages.append(message)
        self.total += 1
        self._prune_labels()
        for listener in list(self.listeners):
            listener()

    def _prune_labels(self) -> None:
        if len(self.labels) > self.keep + 16:  # labels of calls gone from the ring
            live = {m.call for m in self._messages}
            for stale in [k for k in self.labels if k not in live]:
                del self.labels[stale]

    def _call_of_request(self, message: Mapping[str, Any]) -> str | None:
        """The call a server's request belongs to: its related task's call, else the only call open."""
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, Mapping) else None
        related = meta.get("io.modelcontextprotocol/related-task") if isinstance(meta, Mapping) else None
        if isinstance(related, Mapping) and related.get("taskId") in self._tasks:
            return self._tasks[related["taskId"]]
        return self._only_open_call()

    def _call_of_notification(self, message: Mapping[str, Any]) -> str | None:
        params = message.get("params")
        if not isinstance(params, Mapping):
            return None
        token = params.get("progressToken")
        if token is not None and token in self._sent:
            return self._sent[token].call
        task = params.get("taskId")
        if isinstance(task, str) and task in self._tasks:
            return self._tasks[task]
        if message.get("method") == "notifications/message":
            return self._only_open_call()
        return None

    def _only_open_call(self) -> str | None:
        calls = {o.call for o in self._sent.values() if o.call is not None}
        return calls.pop() if len(calls) == 1 else None

    def _note_task(self, message: Mapping[str, Any], key: str) -> None:
        result = message.get("result")
        task = result.get("task") if isinstance(result, Mapping) else None
        ident = task.get("taskId") if isinstance(task, Mapping) else None
        if ident is None and isinstance(result, Mapping) and result.get("resultType") == "task":
            ident = result.get("taskId")
        if isinstance(ident, str):
            self._tasks[ident] = key
            # A server may push the task's first status before the result that names the task (the
            # TypeScript SDK does): that notification was kept in no call ("other messages"); it is this
            # call's.
            for at in range(len(self._messages) - 1, max(len(self._messages) - _EARLY, 0) - 1, -1):
                early = self._messages[at]
                status = early.method == "notifications/tasks/status"
                if early.call is None and status and early.task == ident:
                    self._messages[at] = replace(early, call=key)

    # -- reading ----------------------------------------------------------------------------------------
    def messages(
        self,
        *,
        call: str | None = None,
        method: str | None = None,
        direction: Direction | None = None,
    ) -> list[WireMessage]:
        """The messages kept, oldest first; filtered by call key (or label), method, direction."""
        kept = list(self._messages)
        if call is not None:
            # A resource read's label names the URI read, its template beside it: either finds it.
            beside = f" ({call.removeprefix('resource ')})" if call.startswith("resource ") else None
            keys = {call} | {
                k
                for k, label in self.labels.items()
                if label == call or (beside is not None and label.endswith(beside))
            }
            kept = [m for m in kept if m.call in keys]
        if method is not None:
            kept = [m for m in kept if m.method == method]
        if direction is not None:
            kept = [m for m in kept if m.direction == direction]
        return kept

    def groups(self, messages: Iterable[WireMessage] | None = None) -> list[WireGroup]:
        """The messages as groups, in order of their first message: calls, and the connection's traffic."""
        return grouped(self._messages if messages is None else messages, self.labels)

    def text(self, *, name: str = "", limit: int = 40) -> str:
        """The wire as text (the console's view): a line per group, its rows under it."""
        return wire_text(self.groups(), total=self.total, kept=len(self), name=name, limit=limit)

    def records(self, messages: Iterable[WireMessage] | None = None) -> list[dict[str, Any]]:
        return [m.record() for m in (self._messages if messages is None else messages)]

    def lines(self, messages: Iterable[WireMessage] | None = None) -> Iterable[str]:
        """JSON Lines: one redacted record per line."""
        for record in self.records(messages):
            yield json_line(record)

    def clear(self) -> None:
        self._messages.clear()


_SEPARATORS = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"})
"""Line breaks JSON leaves as they are but line readers split on (Python's `splitlines`, JavaScript)."""


def json_line(record: Any) -> str:
    """`record` as one line of JSON Lines: a server's U+2028, U+2029 or NEL inside a string stays escaped, so
    no reader splits the line there."""
    return json.dumps(record, ensure_ascii=False, default=str).translate(_SEPARATORS)
