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
    ├── TemplateError          a URI template that is none, or values it cannot take (core.uri_template)
    └── ServerError            a server answered with a JSON-RPC error (.code, .data)
        ├── ConnectionClosedError   the connection ended while a request was in flight
        └── AnswerExpired           the server no longer kept the question when its answer came

Messages never carry what a person typed: only field names, rules and actions.

Every error the API raises to a person reads as one line: `Type: message`, the message naming the server,
the call, the code and what went wrong. An `MCPWidgetsError` shows so in a notebook (IPython's
`_render_traceback_`); `brief(exc)` marks any other exception so (an argument error raised before sending,
an interrupt: the person's own doing). The public calls are wrapped in `one_line`: what they raise leaves
them with nothing chained and none of the client's frames, so `traceback.print_exc()` prints the caller's
own frames and the line. What it was chained to (the SDK's error, an OSError while connecting) stays on the
error as `.cause`, with its own traceback, for code that wants it.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

from .text import shown

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
    "argument_errors",
    "brief",
    "one_line",
]

INVALID_PARAMS = -32602
E = TypeVar("E", bound=BaseException)
P = ParamSpec("P")
R = TypeVar("R")
_RED, _RESET = "\x1b[31m", "\x1b[0m"  # how IPython colours an exception's name


class MCPWidgetsError(Exception):
    """Base class of every error this package raises on purpose: a notebook shows it as one line.

    `cause`: the error underneath (the SDK's `MCPError`, an `OSError`), kept here instead of chained; None
    when there is none, or when its text could carry what a person typed or a server's terminal escapes.
    """

    cause: BaseException | None = None

    def _render_traceback_(self) -> list[str]:
        # IPython shows the lines this returns instead of a traceback (`InteractiveShell.showtraceback`).
        return [_line(self)]


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
    line = _line(exc, text)
    _unchain(exc)
    setattr(exc, "_render_traceback_", lambda: [line])  # noqa: B010
    return exc


def _line(exc: BaseException, text: str | None = None) -> str:
    # Literal: a server's text in a message (a tool's error) must not colour or move the notebook's output.
    return f"{_RED}{type(exc).__name__}{_RESET}: {shown(exc if text is None else text)}"


def _unchain(exc: BaseException) -> None:
    """Cut what `exc` chains to; an explicit cause (`raise ... from exc`) of ours stays as `.cause`."""
    if isinstance(exc, MCPWidgetsError) and exc.cause is None and exc.__cause__ is not None:
        exc.cause = exc.__cause__
    exc.__cause__ = None
    exc.__context__ = None
    exc.__suppress_context__ = True


def _for_people(exc: BaseException) -> bool:
    return isinstance(exc, MCPWidgetsError) or "_render_traceback_" in getattr(exc, "__dict__", {})


def _trimmed(exc: BaseException) -> None:
    """An error for people leaves the public call as its line: unchained, without the client's frames."""
    if not _for_people(exc):
        return  # a bug of ours keeps its traceback
    _unchain(exc)
    tb = exc.__traceback__
    if tb is not None:
        tb.tb_next = None  # Python 3.10 raises this traceback again: the public call's frame, none under it
    # 3.11 and newer: a bare `raise` raises the exception with its own traceback, now none, so the caller's
    # frames are all a traceback shows.
    exc.__traceback__ = None


def one_line(fn: Callable[P, R]) -> Callable[P, R]:
    """Wrap a public call (a function or a coroutine function): an error for people (`MCPWidgetsError`, or
    one marked by `brief`) leaves it with nothing chained and none of the client's frames."""
    if inspect.iscoroutinefunction(fn):
        run = cast("Callable[P, Awaitable[Any]]", fn)

        @functools.wraps(fn)
        async def waited(*args: P.args, **kwargs: P.kwargs) -> Any:
            try:
                return await run(*args, **kwargs)
            except BaseException as exc:
                _trimmed(exc)
                raise

        return cast("Callable[P, R]", waited)

    @functools.wraps(fn)
    def called(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except BaseException as exc:
            _trimmed(exc)
            raise

    return called


@contextlib.contextmanager
def argument_errors() -> Iterator[None]:
    """A `ValueError` or `TypeError` raised inside (a `with` block, or the function it decorates) is a
    mistake in the caller's arguments, found before anything was sent: it is `brief`, one line."""
    try:
        yield
    except (TypeError, ValueError) as exc:
        raise brief(exc) from None


class MalformedAnswer(MCPWidgetsError, ValueError):
    """A server's answer (a result, a task's state, a question) did not follow the protocol.

    Its message names where (`content.0.text`) and how (`Input should be a valid string`) the answer was
    malformed, never a value from it: a server may quote back what the person typed in a malformed answer,
    which a validator's own error (pydantic's `ValidationError`) would show in full.
    """
