"""A 2026-07-28 input-required round larger than `max_questions` allows, refused from its count on the wire.

The SDK builds a model of every question of a round, and starts a task for each, before any callback sees
one (a round of 10,000 questions cost over 100 MB): "refused as a whole" must happen before that. So the
read stream of a stdio or HTTP connection counts the `inputRequests` of each raw `input_required` answer;
a round past the bound becomes a JSON-RPC error marked `OVERSIZED`, which the runner reports as
`TooManyQuestions`. Nothing of such a round is built, shown or answered. Every other message passes
untouched. An in-process server hands the SDK its models directly (no wire): its rounds are refused as the
questions come (`Intake`), none shown either.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import mcp_types
from mcp.shared.message import SessionMessage

from ..core.exceptions import INVALID_PARAMS
from .targets import StreamProxy

if TYPE_CHECKING:
    from .context import ServerContext

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
