"""How many questions a call may ask (`connect(max_questions=...)`), and how many may be open at once.

`question_bounds` reads the setting; `over_bound` is asked for each new question (client thread). A
2026-07-28 input-required round larger than the bound is refused from its count on the wire: the SDK builds a
model of every question of a round, and starts a task for each, before any callback sees one (a round of
10,000 questions cost over 100 MB), so "refused as a whole" must happen before that. The read stream of a
stdio or HTTP connection (`bound`) counts the `inputRequests` of each raw `input_required` answer; a round
past the bound becomes a JSON-RPC error marked `OVERSIZED`, which the runner reports as `TooManyQuestions`.
Nothing of such a round is built, shown or answered. Every other message passes untouched. An in-process
server hands the SDK its models directly (no wire): its rounds are refused as the questions come (`Intake`),
none shown either.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import mcp_types
from mcp.shared.message import SessionMessage

from ...core.exceptions import INVALID_PARAMS
from ..targets import StreamProxy

if TYPE_CHECKING:
    from ..context import ServerContext
    from ..record import CallRecord

MAX_QUESTIONS = (100, 20)
"""Default `max_questions`: per call, and open at once (one 2026-07-28 round; 2025-11-25 unanswered)."""
_ROUND = MAX_QUESTIONS[1]


def question_bounds(value: int | tuple[int, int]) -> tuple[int, int]:
    """`max_questions=` as (per call, open at once): an int n is (n, min(n, 20))."""
    if isinstance(value, int) and not isinstance(value, bool):
        bounds = (value, min(value, _ROUND))
    elif isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, int) for v in value):
        bounds = (value[0], value[1])
    else:
        raise ValueError(f"max_questions must be an int or a pair of ints, not {value!r}")
    if min(bounds) < 1:
        raise ValueError(f"max_questions must be at least 1, not {value!r}")
    return bounds


def over_bound(record: CallRecord, bounds: tuple[int, int]) -> str | None:
    """What a new question of `record` would exceed (client thread), or None."""
    per_call, at_once = bounds
    if record.asked >= per_call:
        return f"more than {per_call} questions in one call"
    if len(record.pending) >= at_once:
        return f"more than {at_once} questions open at once"
    return None


OVERSIZED = "io.github.mcp-widgets/oversized-round"
"""The key, in the `data` of the error a refused round becomes, of how many questions it asked."""


def largest(ctx: ServerContext) -> int:
    """The most questions one round may ask: no more than may be open at once, nor than a call may ask."""
    per_call, at_once = ctx.settings.max_questions
    return min(per_call, at_once)


def bound(kind: str, ctx: ServerContext, transport: Any) -> Any:
    """`transport` with oversized rounds refused from their count (see above)."""
    if kind == "inproc":
        return transport
    return _bounded(ctx, transport)


@contextlib.asynccontextmanager
async def _bounded(ctx: ServerContext, transport: Any) -> AsyncIterator[tuple[Any, Any]]:
    async with transport as (read, write):
        yield _Counting(read, ctx), write


class _Counting(StreamProxy):
    """A read stream turning an oversized round into an error before the SDK parses its questions."""

    def __init__(self, stream: Any, ctx: ServerContext) -> None:
        super().__init__(stream)
        self._ctx = ctx

    async def receive(self) -> Any:
        item = await self._stream.receive()
        message = getattr(item, "message", None)
        if not isinstance(message, mcp_types.JSONRPCResponse):
            return item
        result = message.result
        if not isinstance(result, dict) or result.get("resultType") != "input_required":
            return item
        asked = result.get("inputRequests")
        if not isinstance(asked, dict) or len(asked) <= largest(self._ctx):
            return item
        error = mcp_types.ErrorData(
            code=INVALID_PARAMS,
            message=f"too many questions: {len(asked)} in one input-required round",
            data={OVERSIZED: len(asked)},
        )
        refused = mcp_types.JSONRPCError(jsonrpc="2.0", id=message.id, error=error)
        return SessionMessage(message=refused, metadata=item.metadata)
