"""Imported INSIDE the benchmark kernel: a tiny server that stamps when an answer reaches it, and a stamp of
when a form's button click reaches the kernel. Both use `time.perf_counter()` in the same process."""

from __future__ import annotations

import time
from typing import Any

import mcp_types as t
from mcp.server.mcpserver import Context, MCPServer

from mcp_widgets.demo._asking import Asker, converse

from .schemas import NAME

__all__ = ["STAMPS", "build_server", "stamp_clicks"]

STAMPS: dict[str, float] = {}
"""'click': the kernel handled the button click; 'server': the answer reached the tool."""


def build_server() -> MCPServer:
    """A server with one tool, `ask`, that asks for a name once and stamps when the answer arrives."""
    server = MCPServer("bench")

    @server.tool(description="Asks for a name once.")
    async def ask(ctx: Context[Any, Any]) -> dict[str, Any] | t.InputRequiredResult:
        async def body(asker: Asker) -> dict[str, Any]:
            answer = await asker.form("name", "What is your name?", NAME)
            STAMPS["server"] = time.perf_counter()
            return answer.model_dump(mode="json", exclude_none=True)

        return await converse(ctx, body)

    return server


def stamp_clicks() -> None:
    """Stamp STAMPS['click'] whenever a form button click is handled (before the form resolves)."""
    from mcp_widgets.widgets import _form

    cls = _form.ElicitationForm
    if getattr(cls, "_bench_stamped", False):
        return
    original = cls._clicked

    def clicked(self: Any, action: Any) -> None:
        STAMPS["click"] = time.perf_counter()
        original(self, action)

    cls._clicked = clicked  # type: ignore[method-assign]
    cls._bench_stamped = True  # type: ignore[attr-defined]


async def raw_round_trips(runs: int) -> list[float]:
    """The SDK alone: an instant callback's answer to the tool, in ms (the latency baseline)."""
    from mcp import Client

    async def answer(_context: Any, _params: Any) -> t.ElicitResult:
        STAMPS["click"] = time.perf_counter()
        return t.ElicitResult(action="accept", content={"name": "Ada"})

    out = []
    async with Client(build_server(), elicitation_callback=answer) as client:
        for i in range(runs + 2):
            await client.call_tool("ask")
            if i >= 2:
                out.append((STAMPS["server"] - STAMPS["click"]) * 1e3)
    return out


def stamp_requests(asked: list[float], placed: list[float]) -> None:
    """Append `time.time()` to `asked` whenever a server's elicitation request reaches the client, and to
    `placed` when the client puts the form into the calling cell's container."""
    from mcp_widgets.client.display import CallDisplay
    from mcp_widgets.client.questions.intake import Intake

    on_elicit, place = Intake.on_elicit, CallDisplay.place

    async def stamped_on_elicit(self: Any, context: Any, params: Any) -> Any:
        asked.append(time.time())
        return await on_elicit(self, context, params)

    def stamped_place(self: Any, record: Any, widget: Any) -> None:
        place(self, record, widget)
        if type(widget).__name__ == "ElicitationForm":
            placed.append(time.time())

    Intake.on_elicit = stamped_on_elicit  # type: ignore[method-assign]
    CallDisplay.place = stamped_place  # type: ignore[method-assign]
