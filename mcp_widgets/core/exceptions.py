"""The exception tree of mcp-widgets.

    MCPWidgetsError
    ├── SchemaError            a requested schema breaks a rule (JSON-RPC -32602)
    ├── FieldNotFound          fill() named a field the form does not have (also a KeyError)
    ├── FormStateError         misuse of a form's lifecycle (also a RuntimeError)
    ├── BlockingCallError      a blocking wait where it would freeze the kernel (also a RuntimeError)
    ├── ConnectError           connecting to a server failed (also a ConnectionError)
    ├── RequestTimeout         a request got no answer within `timeout=` (also a TimeoutError)
    ├── TooManyQuestions       a call was stopped: its server asked past `max_questions=`
    ├── MalformedAnswer        a server's answer broke the protocol (says where and how, never the values)
    └── ServerError            a server answered with a JSON-RPC error (.code, .data)
        ├── ConnectionClosedError   the connection ended while a request was in flight
        └── AnswerExpired           the server no longer kept the question when its answer came

Messages never carry what a person typed: only field names, rules and actions.

What ends a call because of the person's own choice (a decline, a cancel, an interrupt) or a question that
expired is no fault to debug: `brief(exc)` makes a notebook show it as one line (IPython's
`_render_traceback_`), with nothing chained to it, whatever its type.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from .spec import Problem

__all__ = [
    "AnswerExpired",
    "BlockingCallError",
    "ConnectError",
    "ConnectionClosedError",
    "FieldNotFound",
    "FormStateError",
    "MCPWidgetsError",
    "MalformedAnswer",
    "RequestTimeout",
    "SchemaError",
    "ServerError",
    "TooManyQuestions",
    "brief",
]

INVALID_PARAMS = -32602
E = TypeVar("E", bound=BaseException)
_RED, _RESET = "\x1b[31m", "\x1b[0m"  # how IPython colours an exception's name


class MCPWidgetsError(Exception):
    """Base class of every error this package raises on purpose."""


class SchemaError(MCPWidgetsError, ValueError):
    """A requested schema has at least one error; the request is refused with -32602."""

    code: int = INVALID_PARAMS

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        errors = [p for p in self.problems if p.severity == "error"] or list(self.problems)
        text = "; ".join(str(p) for p in errors)
        super().__init__(f"invalid requested schema: {text}")


class FieldNotFound(MCPWidgetsError, KeyError):
    """A field name that the form does not have."""

    def __init__(self, name: str, known: Sequence[str]) -> None:
        self.name = name
        self.known = tuple(known)
        super().__init__(name)

    def __str__(self) -> str:
        known = ", ".join(self.known) or "none"
        return f"no field named {self.name!r} (fields: {known})"


class FormStateError(MCPWidgetsError, RuntimeError):
    """A form was used in a way its lifecycle does not allow."""


class BlockingCallError(MCPWidgetsError, RuntimeError):
    """A blocking wait was started where it would freeze the kernel (a widget callback, a nested wait)."""


class ServerError(MCPWidgetsError):
    """A server answered a request with a JSON-RPC error."""

    def __init__(self, message: str, *, code: int, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data


class ConnectionClosedError(ServerError, ConnectionError):
    """The connection to the server ended while a request was in flight."""


class ConnectError(MCPWidgetsError, ConnectionError):
    """Connecting to a server failed."""


class RequestTimeout(MCPWidgetsError, TimeoutError):
    """A request got no answer within `timeout=` (time spent waiting for a person is never counted)."""


class TooManyQuestions(MCPWidgetsError):
    """A call was stopped because its server asked more than `connect(max_questions=...)` allows."""


class AnswerExpired(ServerError):
    """The server refused an answer because its question had expired (2026-07-28: a round's `requestState`
    lives as long as the server keeps it). Nothing was sent in its place: call again to be asked again."""


def brief(exc: E, text: str | None = None) -> E:
    """Mark `exc` to be shown in a notebook as the one line `Type: text` (default: its message), and cut
    what it chains to (`__cause__`, `__context__`: the client's internals, not the caller's concern).

    For an ending the person chose (decline, cancel, interrupt): code that catches still gets `exc`, of its
    own type, and `traceback.print_exc()` prints only it.
    """
    line = f"{_RED}{type(exc).__name__}{_RESET}: {exc if text is None else text}"
    exc.__cause__ = None
    exc.__context__ = None
    exc.__suppress_context__ = True
    # IPython shows the lines this returns instead of a traceback (`InteractiveShell.showtraceback`).
    setattr(exc, "_render_traceback_", lambda: [line])  # noqa: B010
    return exc


class MalformedAnswer(MCPWidgetsError, ValueError):
    """A server's answer (a result, a task's state, a question) did not follow the protocol.

    Its message names where (`content.0.text`) and how (`Input should be a valid string`) the answer was
    malformed, never a value from it: a server may quote back what the person typed in a malformed answer,
    which a validator's own error (pydantic's `ValidationError`) would show in full.
    """
