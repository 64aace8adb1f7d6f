"""Long answers nobody waits for any more, dropped over stdio before the SDK parses them.

A request given up on (a completion a newer keystroke replaced, a call that timed out or was interrupted)
still gets its answer; the SDK parses it whole (pydantic, on the client thread) only to drop it as late. A
million completion values parsed that way delayed the next keystroke's suggestions by seconds. The SDK says
when it gives a request up: it sends `notifications/cancelled`, which `Abandoned` notes on the way out. The
stdio transport hands each line of the server's stdout to one module-level parse function, the only place
a raw line can be seen; `dropping` wraps the transport so that, for this connection only (a context
variable the transport's reader task inherits), a line over `UNPARSED_OVER` characters that answers such a
request is never parsed: the session gets a small stand-in answer with that id instead, which it drops as
late as it would the real one (the wire shows the stand-in, saying what was not parsed). Shorter answers
are parsed as before: they cost little and the wire keeps what they said.

Only the head and the tail of a line are read to find its id (the two orders SDKs write: the Python SDK's
`{"jsonrpc", "id", "result"}`, the TypeScript SDK's `{"result", "jsonrpc", "id"}`); a line whose id is not
found there is parsed as before. See docs/sdk-notes.md for what the SDK itself could do.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import AsyncIterator
from typing import Any

import mcp_types
from mcp.shared.message import SessionMessage

from .targets import StreamProxy

__all__ = ["DROPPED_KEY", "UNPARSED_OVER", "Abandoned", "answered_id", "dropping"]

UNPARSED_OVER = 65_536
"""Characters of an answer to a request given up on beyond which it is dropped unparsed."""

KEEP_IDS = 1024
"""Requests given up on remembered at most (the oldest forgotten: their answers are parsed as before)."""

DROPPED_KEY = "mcp-widgets/unparsed"
"""The key of the stand-in answer's `_meta` that says what was not parsed."""

_HEAD = re.compile(
    r'\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(\d{1,18})\s*,\s*'
    r'(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"(?:result|error)"\s*:'
)
"""An answer that names its id first (the Python SDK's order)."""

_ANSWER_FIRST = re.compile(r'\s*\{\s*"(?:result|error)"\s*:')
"""An answer whose first member is its result or error (the TypeScript SDK's order): the id is at its end."""

_TAIL = re.compile(r'[{,]\s*"id"\s*:\s*(\d{1,18})\s*\}\s*$')
"""The last member of the line's object is its id (an unescaped `"` after `,` starts a member's name)."""

_TAIL_CHARS = 64

_ACTIVE: contextvars.ContextVar[Abandoned | None] = contextvars.ContextVar(
    "mcp_widgets_abandoned", default=None
)


def answered_id(line: str) -> int | None:
    """The id a raw line answers, read from its head or tail only; None when it is no answer or the id is
    not found there."""
    head = _HEAD.match(line)
    if head is not None:
        return int(head.group(1))
    if _ANSWER_FIRST.match(line):
        tail = _TAIL.search(line, max(0, len(line) - _TAIL_CHARS))
        if tail is not None:
            return int(tail.group(1))
    return None


class Abandoned:
    """One connection's requests given up on (the SDK sent `notifications/cancelled` for each), and what
    was dropped of their answers."""

    def __init__(self) -> None:
        self._ids: dict[int, None] = {}  # in the order given up on, to forget the oldest
        self.dropped = 0
        """Answers dropped unparsed."""
        self.dropped_chars = 0

    def sent(self, item: Any) -> None:
        """A message on its way out: a `notifications/cancelled` notes its request."""
        message = getattr(item, "message", None)
        if not isinstance(message, mcp_types.JSONRPCNotification):
            return
        if message.method != "notifications/cancelled":
            return
        request = (message.params or {}).get("requestId")
        if type(request) is int:
            self._ids[request] = None
            if len(self._ids) > KEEP_IDS:
                del self._ids[next(iter(self._ids))]

    def stand_in(self, line: str) -> SessionMessage | None:
        """For a long line answering a request given up on, the small answer the session gets instead."""
        if not self._ids:
            return None
        request = answered_id(line)
        if request is None or request not in self._ids:
            return None
        del self._ids[request]  # each request is answered once
        if len(line) <= UNPARSED_OVER:
            return None
        self.dropped += 1
        self.dropped_chars += len(line)
        said = f"an answer to a request given up on, not parsed: {len(line):,} characters"
        return SessionMessage(
            mcp_types.JSONRPCResponse(jsonrpc="2.0", id=request, result={"_meta": {DROPPED_KEY: said}})
        )


class _Noting(StreamProxy):
    """The transport's write stream, each message shown to `Abandoned` as it goes out."""

    def __init__(self, stream: Any, abandoned: Abandoned) -> None:
        super().__init__(stream)
        self._abandoned = abandoned

    async def send(self, item: Any) -> None:
        self._abandoned.sent(item)
        await self._stream.send(item)


@contextlib.asynccontextmanager
async def dropping(stdio: Any, abandoned: Abandoned) -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's stdio transport `stdio` (not entered yet), its long answers to requests given up on
    dropped unparsed (see the module's docstring)."""
    _install()
    token = _ACTIVE.set(abandoned)  # the transport's reader task, started as it is entered, inherits it
    reset = False
    try:
        async with stdio as (read, write):
            _ACTIVE.reset(token)
            reset = True
            yield read, _Noting(write, abandoned)
    finally:
        if not reset:
            _ACTIVE.reset(token)


def _install() -> None:
    """Wrap the stdio transport's parse function once (process-wide; without an active `Abandoned`, as for
    every other connection, it is the SDK's own)."""
    from mcp.client import stdio

    parse = getattr(stdio, "_parse_line", None)
    if parse is None or getattr(parse, "mcp_widgets_wrapped", False):
        return

    def parse_line(line: str) -> Any:
        abandoned = _ACTIVE.get()
        if abandoned is not None:
            instead = abandoned.stand_in(line)
            if instead is not None:
                return instead
        return parse(line)

    parse_line.mcp_widgets_wrapped = True  # type: ignore[attr-defined]
    stdio._parse_line = parse_line
