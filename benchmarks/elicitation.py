"""Elicitation overhead: a tool call that elicits once, answered through the real form by a scripted handler,
next to the raw `mcp.Client` answering the same elicitation with an instant callback."""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from typing import Any

from ._report import Row, median_ms
from .schemas import NAME

GROUP = "elicitation"
ANSWER = {"name": "Ada"}
TARGET_MS = 3.0


def _args() -> dict[str, Any]:
    return {"requested_schema": NAME, "message": "What is your name?"}


def _check(result: Any) -> None:
    text = result.content[0].text
    if '"accept"' not in text or "Ada" not in text:
        raise RuntimeError("the elicitation was not answered as scripted")


def _medians(walls: list[float], cpus: list[float]) -> tuple[float, float]:
    return statistics.median(walls) * 1e3, statistics.median(cpus) * 1e3


async def _raw(target: Any, mode: str, runs: int) -> tuple[float, float]:
    import mcp_types
    from mcp import Client

    async def answer(_context: Any, _params: Any) -> mcp_types.ElicitResult:
        return mcp_types.ElicitResult(action="accept", content=dict(ANSWER))

    async with Client(target, elicitation_callback=answer, mode=mode) as client:
        walls, cpus = [], []
        for i in range(runs + 3):
            start, cpu = time.perf_counter(), time.process_time()
            result = await client.call_tool("echo_elicit", _args())
            if i >= 3:
                walls.append(time.perf_counter() - start)
                cpus.append(time.process_time() - cpu)
        _check(result)
    return _medians(walls, cpus)


def _widgets(target: Any, mode: str, runs: int) -> tuple[float, float]:
    from mcp_widgets import handlers
    from mcp_widgets._client import connect_sync

    srv = connect_sync(target, mode=mode, handler=handlers.scripted([ANSWER] * (runs + 3)), name="bench")
    try:
        walls, cpus = [], []
        for i in range(runs + 3):
            start, cpu = time.perf_counter(), time.process_time()
            result = srv.call_tool_sync("echo_elicit", _args())
            if i >= 3:
                walls.append(time.perf_counter() - start)
                cpus.append(time.process_time() - cpu)
        _check(result)
    finally:
        srv.close()
    return _medians(walls, cpus)


def _stdio() -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=["-m", "mcp_widgets.demo"])


def run(quick: bool) -> list[Row]:
    from mcp_widgets.demo import create_server
    from mcp_widgets.widgets._form import ElicitationForm

    runs = 15 if quick else 150
    rows: list[Row] = []

    def form_only() -> None:
        form = ElicitationForm("What is your name?", NAME, server="bench")
        form.fill(**ANSWER)
        form.accept()

    rows.append(
        Row(
            GROUP,
            "form build + fill + accept (1 field, no MCP)",
            median_ms(form_only, runs=runs),
            note=f"the form's share; CPU {median_ms(form_only, runs=runs, clock=time.thread_time):.2f} ms",
        )
    )
    cases = [("in-process", "auto"), ("in-process", "legacy"), ("stdio", "auto")]
    if not quick:
        cases.append(("stdio", "legacy"))
    for where, mode in cases:
        fresh = create_server if where == "in-process" else _stdio
        raw, raw_cpu = asyncio.run(_raw(fresh(), mode, runs))
        ours, ours_cpu = _widgets(fresh(), mode, runs)
        label = "2026-07-28" if mode == "auto" else "2025-11-25"
        rows.append(
            Row(
                GROUP,
                f"{where} {label}: tool call eliciting once",
                ours,
                baseline=raw,
                baseline_name="raw mcp.Client",
                note=f"CPU {ours_cpu:.2f} ms vs {raw_cpu:.2f} ms (this process, every thread)",
            )
        )
        rows.append(
            Row(
                GROUP,
                f"{where} {label}: added per elicitation",
                ours - raw,
                target=f"≤ {TARGET_MS:g} ms",
                ok=ours - raw <= TARGET_MS,
                note=f"CPU added {ours_cpu - raw_cpu:.2f} ms",
            )
        )
    return rows
