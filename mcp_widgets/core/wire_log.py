"""The wire: every JSON-RPC message of a connection, redacted when captured, grouped the way a person reads.

A message is kept as a `WireMessage`: when (seconds since the wire began), which way, what (method, id,
result or error code), its size on the wire, how long its request took, and its body, redacted and clipped
before it is stored. What a person typed is never stored: the content of an accepted elicitation answer, the
values of `inputResponses`, the arguments of a call whose arguments a person typed (a tool or prompt form, an
app), the URI a template form filled in and any string that quotes a typed value become a marker saying what
was there ("[redacted: 2 fields: name, seats]"). HTTP exchanges keep their status and `Mcp-*` headers;
`Authorization` and cookies are markers, bodies and query strings are not kept. The log is a ring (`keep`
messages), so its memory is bounded.

`groups()` reads the ring as a person thinks: one group per call (its 2026-07-28 rounds numbered, its task's
polls folded into one row), then the connection's own traffic (handshake, listings, subscriptions) apart.

One concept: capturing and reading a protocol log, from the message as sent to the rows a person reads.
"""

from __future__ import annotations

import itertools
import json
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal, TypeVar
from urllib.parse import urlsplit

from .redaction import REDACTED, Matcher, redact_head, scrub, strip_url_secrets
from .text import byte_size, clip_line, plural, shown

__all__ = [
    "DEFAULT_KEEP",
    "WireGroup",
    "WireLog",
    "WireMessage",
    "WireRow",
    "clipped",
    "error_name",
    "redacted_fields",
    "view_state",
]

DEFAULT_KEEP = 5000
"""Messages a connection's wire keeps by default (`connect(..., wire=N)`; 0 turns it off)."""

STRING_KEEP = 400
"""A string longer than this is kept clipped, with its size."""
LIST_KEEP = 50
"""Items of a list kept; the rest are counted."""
DEPTH_KEEP = 16
"""Nesting kept; deeper values are counted."""
_ATOMS = frozenset({int, float, bool, type(None)})
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


Direction = Literal["out", "in"]
Kind = Literal["request", "notification", "result", "error", "http"]

ERRORS = {
    -32700: "parse error",
    -32600: "invalid request",
    -32601: "method not found",
    -32602: "invalid params",
    -32603: "internal error",
    -32000: "connection closed",
    -32001: "request timeout",
    -32002: "resource not found",
    -32020: "missing Mcp-Name header",
    -32021: "task required",
    -32022: "task not supported",
    -32042: "URL elicitation required",
}
"""Names of the error codes a person meets on the MCP wire (JSON-RPC's and the spec's)."""

_HANDSHAKE = ("initialize", "notifications/initialized", "server/discover", "ping", "logging/setLevel")
_SUBSCRIPTIONS = ("resources/subscribe", "resources/unsubscribe", "notifications/resources/updated")


def error_name(code: Any) -> str:
    """`-32602 invalid params`: a code with its name when it has one."""
    name = ERRORS.get(code) if isinstance(code, int) and not isinstance(code, bool) else None
    return f"{code} {name}" if name else str(code)


WHOLE_KEEP = 4096
"""A message this long or shorter (as JSON text) is kept whole: most are, and walking each one to clip it
would cost more than capturing it (the ring stays bounded: 5,000 of them hold at most 20 MB)."""


def fits(raw: str) -> bool:
    """Whether a message whose JSON text is `raw` is kept whole (else `clipped`)."""
    return len(raw) <= WHOLE_KEEP


def clipped(value: Any, depth: int = 0, typed: Matcher | None = None) -> Any:
    """`value` (JSON-like) with long strings, long lists and deep nesting cut, each saying what was cut; with
    `typed`, what is kept is redacted as `scrub` does: only what is kept is searched, never the whole text
    (one 50 MB string costs what a 400-character one does)."""
    kind = type(value)
    if kind is bool or value is None:
        return value
    if kind in _ATOMS:  # what JSON parses to first: no ABC checks on the way (this runs for every message)
        return REDACTED if typed is not None and typed.search(str(value)) else value
    if isinstance(value, str):
        if len(value) <= STRING_KEEP:
            return value if typed is None else typed.sub(REDACTED, value)
        return f"{redact_head(value, typed, STRING_KEEP)} [{len(value):,} characters]"
    if isinstance(value, Mapping):
        if depth >= DEPTH_KEEP:
            return f"[{plural(len(value), 'key')} nested deeper]"
        return {clipped(str(k), depth, typed): clipped(v, depth + 1, typed) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if depth >= DEPTH_KEEP:
            return f"[{plural(len(value), 'item')} nested deeper]"
        kept = [clipped(v, depth + 1, typed) for v in value[:LIST_KEEP]]
        if len(value) > LIST_KEEP:
            kept.append(f"[… {plural(len(value) - LIST_KEEP, 'more item')}]")
        return kept
    return clipped(str(value), depth, typed)  # not JSON (an in-process server's object): kept as its text


def json_size(value: Any, limit: int | None = None) -> int:
    """About the bytes of `value` as compact JSON, without writing it (a 50 MB string is not copied): exact
    for what has no escapes, a string's escapes not counted. With `limit`, it stops once past it.

    It runs for every message the wire sees: the types JSON parses to are checked first, by identity, and a
    dict's keys are counted in place; the abstract types (`Mapping`, tuples) only for what is left."""
    total = 0
    todo = [value]
    pop, extend = todo.pop, todo.extend
    while todo:
        item = pop()
        kind = type(item)
        if kind is str:
            total += (len(item) if item.isascii() else len(item.encode("utf-8", "replace"))) + 2
        elif kind is dict or (kind not in _ATOMS and kind is not list and isinstance(item, Mapping)):
            if not item:
                total += 2
                continue
            total += 1 + 4 * len(item)  # braces, colons and commas; each key's two quotes
            for key in item:
                text = key if type(key) is str else str(key)
                total += len(text) if text.isascii() else len(text.encode("utf-8", "replace"))
            extend(item.values())
        elif kind is list or kind is tuple or (kind not in _ATOMS and isinstance(item, (list, tuple))):
            total += 1 + len(item) if item else 2
            extend(item)
        elif item is None or kind is bool:
            total += 5 if item is False else 4
        else:
            total += len(str(item))
        if limit is not None and total > limit:
            break
    return total


def whole_text(body: Any, dump: Callable[[], str]) -> tuple[str | None, int]:
    """A message's JSON text when it is kept whole (`dump()` writes it; None: it is over `WHOLE_KEEP`, and
    no text of it is written) and its size in bytes."""
    if json_size(body, WHOLE_KEEP) > WHOLE_KEEP:
        return None, json_size(body)
    raw = dump()
    return raw, len(raw) if raw.isascii() else len(raw.encode("utf-8", "replace"))


def redacted_fields(content: Any, what: str = "field") -> str:
    """The marker for typed content: "[redacted: 3 fields: name, email, seats]" (names, never values)."""
    if isinstance(content, Mapping):
        if not content:
            return f"[redacted: no {what}s]"
        names = ", ".join(clip_line(k, 40) for k in list(content)[:12])
        more = ", …" if len(content) > 12 else ""
        return f"[redacted: {plural(len(content), what)}: {names}{more}]"
    return REDACTED


def _answers(responses: Any) -> Any:
    """`inputResponses` with each answer's content a marker (its action stays: what the person chose)."""
    if not isinstance(responses, Mapping):
        return REDACTED
    kept: dict[str, Any] = {}
    for key, answer in responses.items():
        if isinstance(answer, Mapping):
            kept[key] = {k: (redacted_fields(v) if k == "content" else v) for k, v in answer.items()}
        else:
            kept[key] = REDACTED
    return kept


def _opaque(state: Any) -> str:
    """A 2026-07-28 `requestState`: the server's own state, which may carry the answers of earlier rounds
    in any encoding (the demo server's does), so only its size is kept."""
    return f"[opaque: {len(state):,} characters]" if isinstance(state, str) else "[opaque]"


def is_answer(result: Any) -> bool:
    """A result shaped as an elicitation's answer (`action`, and `content` when accepted): what it answers
    is not looked up by its id, which a server may have used twice."""
    return isinstance(result, Mapping) and isinstance(result.get("action"), str)


def _completion_asked(params: Mapping[str, Any]) -> dict[str, Any]:
    """A `completion/complete` request as kept: the partial value and the context's values are typed (as a
    person types them into a form, or code passes them on): names only."""
    params = dict(params)
    argument = params.get("argument")
    if isinstance(argument, Mapping):
        params["argument"] = {**argument, "value": "[redacted: the value typed so far]"}
    context = params.get("context")
    if isinstance(context, Mapping) and isinstance(context.get("arguments"), Mapping):
        params["context"] = {**context, "arguments": redacted_fields(context["arguments"], "argument")}
    return params


def _completion_answered(body: Mapping[str, Any]) -> Mapping[str, Any]:
    """A `completion/complete` result as kept: how many values, not them (they extend what was typed); an
    error keeps its code, not its message or data (they may quote what was typed)."""
    error = body.get("error")
    if isinstance(error, Mapping):
        kept = {"code": error.get("code"), "message": "[redacted: a completion's error message]"}
        return {**body, "error": kept}
    result = body.get("result")
    completion = result.get("completion") if isinstance(result, Mapping) else None
    if not isinstance(completion, Mapping) or not isinstance(completion.get("values"), list):
        return body
    count = len(completion["values"])
    marker = f"[redacted: {count} {'value' if count == 1 else 'values'}]"
    assert isinstance(result, Mapping)
    return {**body, "result": {**result, "completion": {**completion, "values": marker}}}


def _redact(
    body: Mapping[str, Any],
    *,
    sent: bool,
    answers: str | None,
    typed_arguments: bool,
) -> Mapping[str, Any]:
    """What of `body` may be kept: see the module's docstring (`body` itself when all of it may). `sent`:
    we sent it; `answers` is the method of the server's request it answers, when known."""
    params, method = body.get("params"), body.get("method")
    if method == "completion/complete" and isinstance(params, Mapping):
        body = {**body, "params": _completion_asked(params)}
    elif answers == "completion/complete":
        return _completion_answered(body)
    typed_in = typed_arguments and isinstance(params, Mapping) and (
        (method in ("tools/call", "prompts/get") and "arguments" in params)
        or (method == "resources/read" and "uri" in params)
    )
    if isinstance(params, Mapping) and ("inputResponses" in params or "requestState" in params or typed_in):
        params = dict(params)
        if "inputResponses" in params:
            params["inputResponses"] = _answers(params["inputResponses"])
        if typed_arguments and method in ("tools/call", "prompts/get") and "arguments" in params:
            params["arguments"] = redacted_fields(params["arguments"], "argument")
        if typed_arguments and method == "resources/read" and "uri" in params:  # filled in from a form
            params["uri"] = "[redacted: a URI filled in from a template form]"
        if "requestState" in params:
            params["requestState"] = _opaque(params["requestState"])
        body = {**body, "params": params}
    result = body.get("result")
    if isinstance(result, Mapping):
        # Any answer we send shaped as an elicitation's is typed, whatever request its id names.
        typed = sent and "content" in result and (answers == "elicitation/create" or is_answer(result))
        if typed or "requestState" in result:
            result = dict(result)
            if typed:
                result["content"] = redacted_fields(result["content"])
            if "requestState" in result:
                result["requestState"] = _opaque(result["requestState"])
            body = {**body, "result": result}
    return body


_NO_HEADERS: Mapping[str, str] = MappingProxyType({})


def _dumps(body: Any) -> str:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), default=str)


@dataclass(slots=True)  # one per message kept: no frozen __setattr__ cost (nothing sets it after)
class WireMessage:
    """One message as kept: redacted and clipped, never what a person typed.

    Its body is kept as its JSON text (`text`), parsed only when read (`body`: a row opened, a record
    asked for): a parsed message weighs about six times its text, and 5,000 of them are kept. What the rows
    show of it (`note`, `task`, `state`) is read once, when it is kept."""

    seq: int
    """Its place in the connection's wire (1, 2, ...): gaps say messages fell off the ring."""
    at: float
    """Seconds since the wire began."""
    direction: Direction
    """"out": the client sent it; "in": the server did."""
    kind: Kind
    method: str | None
    """The method; for a result or an error, the method of its request."""
    id: str | int | None
    size: int
    """Bytes of the message as JSON (before clipping; over 4 KB, counted without its strings' escapes)."""
    text: str
    """The message as kept (redacted, clipped), as JSON text."""
    call: str | None = None
    """The key of the call it belongs to (None: the connection's own traffic)."""
    took: float | None = None
    """A result or error: seconds since its request was sent."""
    status: int | None = None
    """HTTP: the response's status code."""
    headers: Mapping[str, str] = field(default_factory=lambda: _NO_HEADERS)
    """HTTP: the `Mcp-*` headers (and markers for credentials)."""
    about: str | None = None
    """HTTP: the method of the JSON-RPC request the exchange carried (it is shown with that request)."""
    note: str = ""
    """A result: what a person looks for first (`_result_note`); an error: its code and message."""
    task: str | None = None
    """The task id its params name (a task's status notification)."""
    state: str | None = None
    """The task status it tells ("working"), if any."""

    @property
    def body(self) -> Mapping[str, Any]:
        """The message as kept (parsed from `text` each time it is read)."""
        body = json.loads(self.text)
        return body if isinstance(body, dict) else {}

    @property
    def error(self) -> str | None:
        """ "-32602 invalid params: <message>" for an error answer."""
        return (self.note or "error") if self.kind == "error" else None

    @property
    def summary(self) -> str:
        """One line: what the message is ("tools/call #3", "result #3 accept", "HTTP 202")."""
        ident = f" #{self.id}" if self.id is not None else ""
        if self.kind == "http":
            kind = next((v for k, v in self.headers.items() if k.lower() == "content-type"), "")
            kind = f" ({kind.split(';')[0].strip()})" if kind else ""
            return f"HTTP {self.status} {self.method or ''}{kind}"
        if self.kind == "error":
            return f"error{ident} {self.error}"
        what = self.method or "?"
        if self.kind == "result":
            return f"result{ident} ({what}){self.note}"
        return f"{what}{ident}"

    def record(self) -> dict[str, Any]:
        """A plain dict (for `records()` and the JSON Lines file)."""
        out: dict[str, Any] = {
            "seq": self.seq,
            "at": round(self.at, 6),
            "direction": self.direction,
            "kind": self.kind,
            "method": self.method,
            "id": self.id,
            "size": self.size,
            "call": self.call,
        }
        if self.took is not None:
            out["took"] = round(self.took, 6)
        if self.kind == "http":
            out["status"] = self.status
            out["headers"] = dict(self.headers)
            out["carried"] = self.about
        out["message"] = self.body
        return out


def _notes(kind: Kind, body: Mapping[str, Any]) -> tuple[str, str | None, str | None]:
    """What the rows show of a message, read when it is kept: its note, the task it names, its status."""
    note = ""
    result = body.get("result")
    if kind == "error":
        error = body.get("error")
        if isinstance(error, Mapping):
            note = f"{error_name(error.get('code'))}: {clip_line(error.get('message', ''), 200)}"
    elif kind == "result" and isinstance(result, Mapping):
        note = _result_note(result)
    params = body.get("params")
    task = params.get("taskId") if isinstance(params, Mapping) else None
    told = params if body.get("method") == "notifications/tasks/status" else result
    status = told.get("status") if isinstance(told, Mapping) else None
    if status is None and isinstance(told, Mapping) and isinstance(told.get("task"), Mapping):
        status = told["task"].get("status")
    return note, task if isinstance(task, str) else None, status if isinstance(status, str) else None


def _result_note(result: Mapping[str, Any]) -> str:
    """What a person looks for first in a result: an answer's action, a round, a task, an error result."""
    if isinstance(result.get("action"), str):
        return f" {result['action']}"
    kind = result.get("resultType")
    if kind == "input_required":
        asked = result.get("inputRequests")
        return f" input required ({plural(len(asked), 'question')})" if isinstance(asked, Mapping) else ""
    task = result.get("task")
    if isinstance(task, Mapping) and task.get("status"):
        return f" task {task.get('status')}"
    if isinstance(result.get("status"), str) and "taskId" in result:
        return f" {result['status']}"
    if result.get("isError") is True:
        return " isError"
    return ""


_CHOSE = {"decline": "declined", "cancel": "cancelled"}
"""A call that ended well after its last question was declined or cancelled says so, not "ok"."""


@dataclass
class WireRow:
    """A row of a group: one message, or several folded into one (a task's polls)."""

    messages: list[WireMessage]
    text: str

    @property
    def at(self) -> float:
        return self.messages[0].at


@dataclass
class WireGroup:
    """The messages of one call (or of one kind of the connection's own traffic), in order."""

    key: str
    label: str
    kind: Literal["call", "connection", "listings", "subscriptions", "other"]
    messages: list[WireMessage] = field(default_factory=list)

    @property
    def start(self) -> float:
        return self.messages[0].at

    @property
    def took(self) -> float:
        return self.messages[-1].at - self.messages[0].at

    @property
    def size(self) -> int:
        return sum(m.size for m in self.messages)

    @property
    def outcome(self) -> str:
        """How the call ended, as far as the wire tells: its last answer's summary, else "open"."""
        if self.kind != "call":
            return ""
        # A 2026-07-28 task ends in a poll's answer (its outcome read "working" when it was done); a
        # 2025-11-25 task's own result (tasks/result) says how it ended, whatever poll came after it.
        ends = ["tools/call", "resources/read", "prompts/get", "tasks/result", "tasks/get"]
        ends.append("completion/complete")  # a completion's group of its own
        answers = [
            m
            for m in self.messages
            if m.direction == "in" and m.kind in ("result", "error") and m.method in ends
        ]
        if any(m.method == "tasks/result" for m in answers):
            answers = [m for m in answers if m.method != "tasks/get"]
        if not answers:
            sent = (m.method for m in self.messages if m.direction == "out")
            return "given up" if "notifications/cancelled" in sent else "open"
        message = answers[-1]
        if message.kind == "error":
            return message.error or "error"
        note = message.note.strip()
        if note.startswith("input required"):
            return "waiting for answers"
        return note or _CHOSE.get(self._last_choice() or "", "ok")

    def _last_choice(self) -> str | None:
        """The action of the last answer we gave the call's questions ("decline"), if it asked any: a
        2025-11-25 answer to `elicitation/create`, or a 2026-07-28 round's `inputResponses`."""
        for message in reversed(self.messages):
            if message.direction != "out":
                continue
            if message.kind == "result" and message.method == "elicitation/create":
                return message.note.strip() or None
            if _is_call(message) and '"inputResponses"' in message.text:
                responses = message.body.get("params", {}).get("inputResponses")
                actions = [a.get("action") for a in responses.values() if isinstance(a, Mapping)]
                if actions and isinstance(actions[-1], str):
                    return actions[-1]
        return None

    def rows(self) -> list[WireRow]:
        """The group's messages as rows: rounds numbered, a task's polls (`tasks/get` and their answers)
        folded into one row per run."""
        rows: list[WireRow] = []
        run: WireRow | None = None
        runs: dict[Any, WireRow] = {}  # a poll's id -> its run (its answer joins it, whatever came between)
        rounds = 0
        retried = sum(1 for m in self.messages if _is_call(m)) > 1
        for message in self.messages:
            if _is_poll(message):
                if run is None:
                    run = WireRow([], "")
                    rows.append(run)
                run.messages.append(message)
                runs[message.id] = run
                continue
            # A poll's answer, its HTTP exchange (over HTTP) and a task's status notification (a 2025-11-25
            # server may push one between two polls) join the run: they broke it, each starting a row of
            # its own ("tasks/get: polled 0 times"), so that polls over HTTP never folded.
            joined = (runs.get(message.id) if message.id is not None else None) or run
            if joined is not None and _polls_part(message):
                joined.messages.append(message)
                continue
            run = None
            text = message.summary
            if _is_call(message):
                rounds += 1
                if retried:
                    text = f"round {rounds}: {text}"
            rows.append(WireRow([message], text))
        for row in rows:
            if not row.text:
                row.text = _poll_text(row.messages)
        return rows


def _is_call(message: WireMessage) -> bool:
    """Our `tools/call` request: a 2026-07-28 call sends one per input-required round."""
    return message.direction == "out" and message.kind == "request" and message.method == "tools/call"


def _is_poll(message: WireMessage) -> bool:
    """A `tasks/get` request we sent: it starts a run of polls, or continues one."""
    return message.direction == "out" and message.kind == "request" and message.method == "tasks/get"


def _polls_part(message: WireMessage) -> bool:
    """What joins a run of polls without starting one: a poll's answer, its HTTP exchange, a task's status
    notification."""
    if message.kind == "http":
        return message.about == "tasks/get"
    return message.method in ("tasks/get", "notifications/tasks/status")


def _poll_text(run: Sequence[WireMessage]) -> str:
    asked = [m for m in run if m.direction == "out"]
    gaps = [b.at - a.at for a, b in itertools.pairwise(asked)]
    apart = f", {sum(gaps) / len(gaps):.1f} s apart" if gaps else ""
    status = _last_status(run)
    notices = sum(1 for m in run if m.method == "notifications/tasks/status")
    told = f", {plural(notices, 'status notification')}" if notices else ""
    return f"tasks/get: polled {plural(len(asked), 'time')}{apart}" + (f", {status}" if status else "") + told


def _last_status(messages: Sequence[WireMessage]) -> str:
    for message in reversed(messages):
        if message.state is not None:
            return f"last {clip_line(message.state, 40)}"
    return ""


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
        body = _redact(message, sent=direction == "out", answers=answers, typed_arguments=typed_arguments)
        # What we send quotes no typed value but where it is redacted above (answers, typed arguments,
        # request state); the rest is the person's own code. What comes in may quote anything.
        pattern = typed(key) if typed is not None and direction == "in" else None
        if raw is not None and fits(raw):
            # `raw` is the message as JSON text, where a typed value shows as itself or JSON-escaped (both
            # matched): one search instead of a walk through every string, for the many that quote none.
            if pattern is not None and pattern.search(raw) is not None:
                body = scrub(body, pattern)
            text = raw if body is message else _dumps(body)
        else:  # clipped first: only what is kept is searched (a 50 MB string is not)
            body = clipped(body, typed=pattern)
            text = _dumps(body)
        note, task, state = _notes(kind, body)
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
        path = redact_head(urlsplit(url).path or "/", pattern, 2000)
        kept = WireMessage(
            seq=next(self._seq),
            at=(self._now() if when is None else when) - self._began,
            direction="in",
            kind="http",
            method=f"{method} {strip_url_secrets(shown(path, multiline=False))}",
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
        groups: dict[str, WireGroup] = {}
        for message in self._messages if messages is None else messages:
            key, label, kind = self._group_of(message)
            group = groups.get(key)
            if group is None:
                group = groups[key] = WireGroup(key, label, kind)
            group.messages.append(message)
        return list(groups.values())

    def _group_of(self, message: WireMessage) -> tuple[str, str, Any]:
        if message.call is not None:
            return message.call, self.labels.get(message.call, "a call"), "call"
        method = (message.about or "") if message.kind == "http" else (message.method or "")
        if method in _HANDSHAKE or not method:
            return "~connection", "connection", "connection"
        if method.endswith("/list") or method.endswith("/list_changed"):
            return "~listings", "listings", "listings"
        if method in _SUBSCRIPTIONS or method.startswith("subscriptions/"):
            return "~subscriptions", "subscriptions", "subscriptions"
        return "~other", "other messages", "other"

    def text(self, *, name: str = "", limit: int = 40) -> str:
        """The wire as text (the console's view): a line per group, its rows under it."""
        groups = self.groups()
        head = f"wire of {name!r}: " if name else "wire: "
        head += f"{plural(len(self), 'message')} kept"
        if self.total > len(self):
            head += f" (the last {len(self):,} of {self.total:,})"
        lines = [head]
        for group in groups[-limit:]:
            outcome = f", {group.outcome}" if group.outcome else ""
            lines.append(
                f"{group.start:9.3f}s  {shown(group.label, multiline=False)}"
                f" ({plural(len(group.messages), 'message')}, {group.took:.3f} s{outcome})"
            )
            for row in group.rows():
                first = row.messages[0]
                arrow = "→" if first.direction == "out" else "←"
                took = f"  {first.took * 1000:.0f} ms" if first.took is not None else ""
                size = f"  {byte_size(sum(m.size for m in row.messages))}" if first.size else ""
                lines.append(f"  {row.at:9.3f}s {arrow} {clip_line(row.text, 120)}{size}{took}")
        if len(groups) > limit:
            lines.insert(1, f"(the last {limit} of {len(groups)} groups)")
        return "\n".join(lines)

    def records(self, messages: Iterable[WireMessage] | None = None) -> list[dict[str, Any]]:
        return [m.record() for m in (self._messages if messages is None else messages)]

    def lines(self, messages: Iterable[WireMessage] | None = None) -> Iterable[str]:
        """JSON Lines: one redacted record per line."""
        for record in self.records(messages):
            yield json.dumps(record, ensure_ascii=False, default=str)

    def clear(self) -> None:
        self._messages.clear()



_KEPT_HEADERS = ("content-type",)
_CREDENTIALS = {
    "authorization": "credentials",
    "cookie": "cookies",
    "set-cookie": "cookies",
    "proxy-authorization": "credentials",
}


def http_headers(headers: Mapping[str, str], typed: Matcher | None = None) -> dict[str, str]:
    """The headers a person debugging MCP needs: `Mcp-*`, `WWW-Authenticate`, the content type; credentials
    as a marker naming their scheme ("Bearer"), the session id shortened; what `typed` matches (a value a
    person typed, which a server may echo in a header) redacted."""
    kept: dict[str, str] = {}
    for name, value in headers.items():
        lower = name.lower()
        if typed is not None and lower not in _CREDENTIALS:
            name, value = redact_head(name, typed, 2000), redact_head(value, typed, 2000)
        if lower in _CREDENTIALS:
            scheme = value.split(" ", 1)[0] if lower.endswith("authorization") and " " in value else ""
            what = f"{scheme} token" if scheme and len(scheme) < 20 else _CREDENTIALS[lower]
            kept[name] = f"[redacted: {clip_line(what, 30)}]"
        elif lower == "mcp-session-id":
            kept[name] = f"{shown(value[:8], multiline=False)}…" if len(value) > 8 else shown(value)
        elif lower.startswith("mcp-") or lower in _KEPT_HEADERS or lower == "www-authenticate":
            kept[name] = clip_line(value, 300)
    return kept


GROUPS_SHOWN = 100
"""Groups a live view shows (the newest); older ones are counted."""
ROWS_SHOWN = 100
"""Rows of a group a live view shows (the newest); older ones are counted."""


def view_state(groups: Sequence[WireGroup], *, total: int, kept: int, keep: int) -> dict[str, Any]:
    """What a live view shows, as JSON: the newest groups with their newest rows, every text literal
    (controls and invisible characters written as escapes). A row's message is fetched when opened."""
    summary = f"{plural(kept, 'message')} kept"
    if total > kept:
        summary += f" (the newest {kept:,} of {total:,}; at most {keep:,})"
    shown_groups = []
    for group in groups[-GROUPS_SHOWN:]:
        rows = group.rows()
        shown_rows = []
        for row in rows[-ROWS_SHOWN:]:
            first = row.messages[0]
            shown_rows.append(
                {
                    "at": round(row.at, 3),
                    "dir": "http" if first.kind == "http" else first.direction,
                    "text": clip_line(row.text, 160),
                    "size": sum(m.size for m in row.messages),
                    "took": None if first.took is None else round(first.took, 4),
                    "error": first.kind == "error" or (first.status or 0) >= 400,
                    "seqs": [m.seq for m in row.messages][-20:],
                }
            )
        outcome = group.outcome
        shown_groups.append(
            {
                "key": group.key,
                "label": clip_line(group.label, 120),
                "kind": group.kind,
                "start": round(group.start, 3),
                "took": round(group.took, 4),
                "count": len(group.messages),
                "size": group.size,
                "outcome": clip_line(outcome, 160),
                "error": any(m.kind == "error" for m in group.messages),
                "rows": shown_rows,
                "earlier": max(0, len(rows) - ROWS_SHOWN),
            }
        )
    return {
        "summary": summary,
        "groups": shown_groups,
        "earlier": max(0, len(groups) - GROUPS_SHOWN),
    }
