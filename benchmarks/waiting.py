"""Waiting for a person in a real kernel (tests/kernel/harness.py plays the browser): the kernel's CPU while a
form waits (also a task's form, on 2025-11-25 and on 2026-07-28, polled all the while), and click-to-server
latency for `await`, blocking (`call_tool_sync`) and background calls."""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from ._report import Row, printed_figures

GROUP = "waiting"
FORM_ID = "mcp_widgets.ElicitationForm"
"""A question card's `_anywidget_id` (one model: ElicitationForm)."""
CPU_TARGET = 0.5  # % of one core
LATENCY_TARGET = 5.0  # ms, kernel-side

SETUP = """
import os, time
import mcp_widgets.client as mwc
from benchmarks import _probe
_probe.stamp_clicks()
mwc.questions.answering.LOOK_GRACE = 3600  # the simulated frontend reports views itself
srv = mwc.connect_sync(_probe.build_server(), name="bench")
print(os.getpid())
"""
CALLS = {
    "await": "r = await srv.call_tool('ask')",
    "sync": "r = srv.call_tool_sync('ask')",
    "background": "call = srv.call_tool_background('ask')",
}


def _cpu_seconds(pid: int) -> float:
    """CPU time of a whole process (every thread), in seconds: the sum of each thread's schedstat (ns).

    /proc/PID/stat counts in 10 ms ticks, too coarse for a mostly idle process over a few seconds.
    """
    import os

    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that just ended
    return total / 1e9


def _cpu_percent(pid: int, seconds: float, fe: Any) -> float:
    """CPU of `pid` over `seconds` as % of one core; the frontend keeps reading (as a browser would)."""
    c0, t0 = _cpu_seconds(pid), time.monotonic()
    fe.settle(seconds)
    return 100 * (_cpu_seconds(pid) - c0) / (time.monotonic() - t0)


def _pending_form(fe: Any, seen: set[str]) -> Any:
    def pending(w: Any) -> bool:
        state = w.state
        return (
            state.get("_anywidget_id") == FORM_ID and not state.get("closing_line") and w.comm_id not in seen
        )

    form = fe.wait_widget("AnyModel", where=pending, timeout=60)
    seen.add(form.comm_id)
    return form


def _answer(fe: Any, form: Any) -> None:
    """Report the form rendered, type a name, click Accept: what JupyterLab sends (question.js's messages,
    in order on the form's one comm: no pause is needed before the click)."""
    fe.update(form, {"_view_count": 1})
    fe.send_custom(form, {"edit": "name", "value": "Ada", "view": "bench"})
    fe.send_custom(form, {"press": "accept"})


TASK_SETUP = """
tsrv = mwc.connect_sync([{node!r}, {script!r}, "stdio"], name="bench-tasks")
"""


def _task_row(fe: Any, pid: int, idle: float, wait_s: float, seen: set[str]) -> Row | None:
    """CPU while a task's form waits (tasks/result pending; tasks/get paused while the question is open).

    The TypeScript task server (tests/interop/tasks_server.mjs) asks for a poll every 200 ms, five times the
    SDK's default; no row where Node or the SDK is not installed.
    """
    from tests.interop.nodejs import HERE, SDK, find_node

    node = find_node()
    if node is None or not SDK.exists():
        return None
    _ok(fe.run(TASK_SETUP.format(node=node, script=str(HERE / "tasks_server.mjs")), timeout=120))
    what = f"a task's form waiting {wait_s:g} s (pollInterval 200 ms)"
    call = "tsrv.call_tool('ask_required')"
    return _waiting_task_row(fe, pid, seen, call, "tsrv.close()", what, idle, wait_s)


TASK2026_SETUP = """
from tests.servers.launch import serving
_t26 = serving([sys.executable, {script!r}, "http", "3600000", "state", "1000"], "the 2026-07-28 task server")
_port, _ = _t26.__enter__()
t26srv = mwc.connect_sync(f"http://127.0.0.1:{{_port}}/mcp", name="bench-t26")
"""


def _task2026_row(fe: Any, pid: int, quick: bool, seen: set[str]) -> Row:
    """CPU while a 2026-07-28 task's form waits: tasks/get every second over streamable HTTP (the server
    in its own process, so only the client's polling counts), and the panel's countdown ticking."""
    from tests.servers import tasks2026

    wait_s = 2.0 if quick else 20.0
    _ok(fe.run("import sys\n" + TASK2026_SETUP.format(script=tasks2026.__file__), timeout=120))
    fe.settle(1.0)
    idle = _cpu_percent(pid, wait_s, fe)
    what = f"a 2026-07-28 task's form waiting {wait_s:g} s (pollInterval 1 s, HTTP)"
    close = "t26srv.close()\n_t26.__exit__(None, None, None)"
    return _waiting_task_row(fe, pid, seen, "t26srv.call_tool('ask_names')", close, what, idle, wait_s)


def _waiting_task_row(
    fe: Any, pid: int, seen: set[str], call: str, close: str, what: str, idle: float, wait_s: float
) -> Row:
    """The kernel's CPU while a task's form waits for the person (the call started with `call`)."""
    msg_id = fe.execute(f"r = await {call}")
    form = _pending_form(fe, seen)
    fe.update(form, {"_view_count": 1})
    fe.settle(0.5)
    waiting = _cpu_percent(pid, wait_s, fe)
    _answer(fe, form)
    _ok(fe.wait_cell(msg_id, timeout=60))
    _ok(fe.run(close, timeout=60))
    return Row(
        GROUP,
        f"kernel CPU, {what}",
        waiting,
        unit="%",
        baseline=idle,
        baseline_name="idle kernel",
        target=f"≤ {CPU_TARGET:g}% of a core",
        ok=waiting <= CPU_TARGET,
    )


def _ok(cell: Any) -> Any:
    if cell.status != "ok":
        raise RuntimeError(f"kernel cell failed: {cell.ename}: {cell.evalue}\n{cell.stderr[-2000:]}")
    return cell


def _latency(fe: Any) -> float:
    code = "print((_probe.STAMPS['server'] - _probe.STAMPS['click']) * 1e3)"
    (ms,) = printed_figures(fe, code, count=1, timeout=30)
    return ms


def run(quick: bool) -> list[Row]:
    from tests.kernel.harness import KernelFrontend

    runs = 2 if quick else 7
    wait_s = 2.0 if quick else 10.0
    rows: list[Row] = []
    seen: set[str] = set()
    with KernelFrontend(sys.executable) as fe:
        pid = int(printed_figures(fe, SETUP, count=1, timeout=120)[0])
        fe.settle(1.0)
        idle = _cpu_percent(pid, wait_s, fe)
        # CPU while a form waits: an awaiting cell (native) and a blocked one (the pump).
        for style in ("await", "sync"):
            msg_id = fe.execute(CALLS[style])
            form = _pending_form(fe, seen)
            fe.update(form, {"_view_count": 1})
            fe.settle(0.5)
            waiting = _cpu_percent(pid, wait_s, fe)
            _answer(fe, form)
            _ok(fe.wait_cell(msg_id, timeout=60))
            rows.append(
                Row(
                    GROUP,
                    f"kernel CPU, form waiting {wait_s:g} s ({style})",
                    waiting,
                    unit="%",
                    baseline=idle,
                    baseline_name="idle kernel",
                    target=f"≤ {CPU_TARGET:g}% of a core",
                    ok=waiting <= CPU_TARGET,
                )
            )
        task_row = _task_row(fe, pid, idle, wait_s, seen)
        if task_row is not None:
            rows.append(task_row)
        rows.append(_task2026_row(fe, pid, quick, seen))
        # Click to server, kernel-side: the click handled -> the answer inside the tool.
        trips = "import asyncio\nprint(*await _probe.raw_round_trips(20))"  # numbers only, spaced
        raw_ms = statistics.median(printed_figures(fe, trips, count=20, timeout=60))
        for style in ("await", "sync", "background"):
            samples = []
            for _ in range(runs):
                msg_id = fe.execute(CALLS[style])
                if style == "background":
                    _ok(fe.wait_cell(msg_id, timeout=60))
                form = _pending_form(fe, seen)
                _answer(fe, form)
                if style == "background":
                    _ok(fe.run("call.result(timeout=30)", timeout=60))
                else:
                    _ok(fe.wait_cell(msg_id, timeout=60))
                samples.append(_latency(fe))
            value = statistics.median(samples)
            rows.append(
                Row(
                    GROUP,
                    f"click to server, kernel-side ({style})",
                    value,
                    baseline=raw_ms,
                    baseline_name="SDK callback to server",
                    target=f"≤ {LATENCY_TARGET:g} ms",
                    ok=value <= LATENCY_TARGET,
                )
            )
    return rows
