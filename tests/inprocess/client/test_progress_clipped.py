"""Progress messages are server text as log lines are: clipped and shown literally (a real MCPServer)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import anyio
import ipywidgets as w
import pytest
from ipywidgets.widgets.widget import _instances
from mcp.server.mcpserver import Context, MCPServer

from mcp_widgets import connect
from mcp_widgets.widgets import CallLine

VIEW = "application/vnd.jupyter.widget-view+json"
MEGABYTE = 1_000_000
KEPT = 2000

pytestmark = pytest.mark.usefixtures("clean_client")  # see tests/conftest.py


def build_server(reached: threading.Event, opened: threading.Event) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer("runaway")

    @server.tool()
    async def flood(ctx: Context[Any, Any], n: int = 40) -> str:
        # A megabyte per message, a terminal escape (clear the screen) and a bidi override up front.
        for i in range(1, n + 1):
            await ctx.report_progress(i, n, f"\x1b[2J\u202e{i} " + "x" * MEGABYTE)
        reached.set()
        while not opened.is_set():
            await anyio.sleep(0.005)
        return "ok"

    return server


def live_line(out: w.Output) -> str | None:
    """The progress line of the running call's line (one model, the call's display in `out`)."""
    for entry in out.outputs:
        view = entry["data"].get(VIEW)
        line = None if view is None else _instances.get(view["model_id"])
        if isinstance(line, CallLine) and line.progress.startswith("\\x1b[2JU+202E40 "):
            return str(line.progress)
    return None


def test_a_megabyte_progress_message_is_clipped_and_literal() -> None:
    reached, opened = threading.Event(), threading.Event()
    out = w.Output()
    seen: dict[str, Any] = {}

    async def scenario() -> None:
        async with connect(build_server(reached, opened), output=out) as srv:
            task = asyncio.ensure_future(srv.call_tool("flood", {"n": 40}))
            deadline = asyncio.get_running_loop().time() + 60
            while not (reached.is_set() and live_line(out) is not None):
                assert asyncio.get_running_loop().time() < deadline, "timed out waiting for the last progress"
                await asyncio.sleep(0.01)
            seen["live"] = live_line(out)
            opened.set()
            await task

    asyncio.run(scenario())
    (entry,) = out.outputs
    closing = str(entry["data"]["text/plain"])
    left_out = len("\\x1b[2JU+202E40 ") + MEGABYTE - KEPT
    for text in (seen["live"], closing):
        assert len(text) < KEPT + 200, "a progress line is clipped like a log line"
        assert f"… ({left_out} more characters)" in text
        assert "\x1b" not in text and "\u202e" not in text
    assert closing.startswith("Progress: done — \\x1b[2JU+202E40 xxx")
