"""One message as the wire keeps it (`WireMessage`): when, which way, what, how big, and its body as JSON
text, already redacted (`_redaction`) and clipped (`_clip`); with the names of the error codes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from ..text import clip_line, plural

__all__ = ["ERRORS", "Direction", "Kind", "WireMessage", "error_name", "notes"]

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


def error_name(code: Any) -> str:
    """`-32602 invalid params`: a code with its name when it has one."""
    name = ERRORS.get(code) if isinstance(code, int) and not isinstance(code, bool) else None
    return f"{code} {name}" if name else str(code)


_NO_HEADERS: Mapping[str, str] = MappingProxyType({})


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


def notes(kind: Kind, body: Mapping[str, Any]) -> tuple[str, str | None, str | None]:
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
