"""The connection's stream stack (`client/streams.py`): its layers, in their stated order, around a real pair
of memory streams standing for a stdio server. A message from the server passes them innermost first: the
wire records what the server sent before the task and round layers rewrite it, and the end of the server's
output is seen under all of them."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp_types
from mcp.shared.message import SessionMessage

from mcp_widgets.client import connect_sync, streams
from mcp_widgets.client.questions.bounds import OVERSIZED
from tests.servers.demo import build_server


def test_the_stack_is_in_its_stated_order() -> None:
    with connect_sync(build_server()) as srv:
        capture = srv._wire._capture
        layers = streams.stack("stdio", srv._ctx, capture, on_end=lambda: None, on_garbage=lambda _: None)
    assert [layer.name for layer in layers] == list(streams.ORDER) == ["exit", "wire", "tasks", "rounds"]


def test_a_message_passes_the_layers_in_order() -> None:
    ended: list[str] = []
    with connect_sync(build_server(), wire=100) as srv:
        ctx, wire = srv._ctx, srv._wire  # the person's wire reads what the capture under it keeps
        largest = min(ctx.settings.max_questions)
        layers = streams.stack(
            "stdio", ctx, wire._capture, on_end=lambda: ended.append("end"), on_garbage=lambda _: None
        )
        before = len(wire.records())

        async def run() -> tuple[Any, Any]:
            to_client, from_server = anyio.create_memory_object_stream[Any](10)
            to_server, from_client = anyio.create_memory_object_stream[Any](10)

            @contextlib.asynccontextmanager
            async def transport() -> AsyncIterator[tuple[Any, Any]]:
                yield from_server, to_server

            async with streams.stacked(transport(), layers) as (read, write):
                call = {"name": "slow", "arguments": {}, "task": {"ttl": 1000}}
                sent = mcp_types.JSONRPCRequest(jsonrpc="2.0", id=7, method="tools/call", params=call)
                await write.send(SessionMessage(sent))
                await from_client.receive()
                task = {"taskId": "t1", "status": "working", "createdAt": "2026-01-01T00:00:00Z", "ttl": 1000}
                created = mcp_types.JSONRPCResponse(jsonrpc="2.0", id=7, result={"task": task})
                asked = {f"q{i}": {"method": "elicitation/create"} for i in range(largest + 1)}
                oversized = {"resultType": "input_required", "inputRequests": asked}
                await to_client.send(SessionMessage(created))
                round_ = mcp_types.JSONRPCResponse(jsonrpc="2.0", id=8, result=oversized)
                await to_client.send(SessionMessage(round_))
                first, second = await read.receive(), await read.receive()
                await to_client.aclose()
                with contextlib.suppress(anyio.EndOfStream):
                    await read.receive()
            return first.message, second.message

        first, second = asyncio.run(run())
        kept = wire.records()[before:]
    # Outermost, the SDK's view: the task's result is a tool result, the oversized round an error.
    assert isinstance(first, mcp_types.JSONRPCResponse) and "task" not in first.result
    assert first.result["content"] == []
    assert isinstance(second, mcp_types.JSONRPCError) and second.error.data == {OVERSIZED: largest + 1}
    # Under them, the wire: what was sent and what the server answered, as they were.
    bodies = [record["message"] for record in kept]
    assert [body.get("id") for body in bodies] == [7, 7, 8]
    assert bodies[1]["result"]["task"]["taskId"] == "t1"
    assert bodies[2]["result"]["resultType"] == "input_required"
    # Innermost: the end of the server's output.
    assert ended == ["end"]
