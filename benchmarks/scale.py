"""Scale: many elicitations in one process and in one kernel (live widget models, memory), and the history
panel over 10,000 records."""

from __future__ import annotations

import gc
import sys
import time
import tracemalloc
from typing import Any

from ._report import Row, median_ms, rss_mb
from .schemas import NAME

GROUP = "scale"
RSS_TARGET_MB = 5.0
PANEL_TARGET_MS = 100.0


def _live_models() -> int:
    from ipywidgets.widgets.widget import _instances

    return len(_instances)


def _in_process(n: int) -> list[Row]:
    from mcp_widgets import handlers
    from mcp_widgets.client import connect_sync
    from mcp_widgets.demo import create_server

    warm = 20
    srv = connect_sync(
        create_server(), handler=handlers.scripted([{"name": "Ada"}] * (2 * n + warm)), name="bench"
    )
    args = {"requested_schema": NAME}
    try:
        for _ in range(warm):
            srv.call_tool_sync("echo_elicit", args)
        gc.collect()
        models0, rss0 = _live_models(), rss_mb()
        start = time.perf_counter()
        for _ in range(n):
            srv.call_tool_sync("echo_elicit", args)
        took = time.perf_counter() - start
        gc.collect()
        models, rss = _live_models() - models0, rss_mb() - rss0
        # What Python still holds of them (the RSS keeps what the allocator does not give back).
        tracemalloc.start()
        held0 = tracemalloc.get_traced_memory()[0]
        for _ in range(n):
            srv.call_tool_sync("echo_elicit", args)
        gc.collect()
        held = (tracemalloc.get_traced_memory()[0] - held0) / 1e6
        tracemalloc.stop()
    finally:
        srv.close()
    return [
        Row(
            GROUP,
            f"{n:,} elicitations in-process: live models added",
            models,
            unit="models",
            baseline=models0,
            baseline_name="live before",
            target="0",
            ok=models == 0,
            note=f"{took / n * 1e3:.1f} ms each",
        ),
        Row(
            GROUP,
            f"{n:,} elicitations in-process: RSS growth",
            rss,
            unit="MB",
            baseline=rss0,
            baseline_name="RSS before",
            target=f"< {RSS_TARGET_MB:g} MB",
            ok=rss < RSS_TARGET_MB,
        ),
        Row(
            GROUP,
            f"{n:,} more elicitations in-process: Python heap growth (tracemalloc)",
            held,
            unit="MB",
            baseline=rss,
            baseline_name="RSS growth above",
            target=f"< {RSS_TARGET_MB:g} MB",
            ok=held < RSS_TARGET_MB,
            note="the history's records and the wire's ring (at most 5,000 messages) among it; "
            "the RSS growth beyond it is memory the allocator keeps",
        ),
    ]


KERNEL_SETUP = """
import gc, os
import mcp_widgets.client as mwc
from mcp_widgets import handlers
from ipywidgets.widgets.widget import _instances
from benchmarks import _probe
answers = handlers.scripted([{"name": "Ada"}] * 100000)
srv = mwc.connect_sync(_probe.build_server(), name="bench", handler=answers)
def rss():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) / 1024 for l in f if l.startswith("VmRSS:"))
for _ in range(20):
    await srv.call_tool("ask")
gc.collect()
before = (len(_instances), rss())
print("ready")
"""
KERNEL_RUN = """
import time
t0 = time.perf_counter()
for _ in range({n}):
    await srv.call_tool("ask")
took = time.perf_counter() - t0
gc.collect()
print(len(_instances) - before[0], rss() - before[1], before[0], before[1], took)
"""


def _in_kernel(n: int) -> list[Row]:
    from tests.kernel.harness import KernelFrontend

    with KernelFrontend(sys.executable) as fe:
        cell = fe.run(KERNEL_SETUP, timeout=120)
        if cell.status != "ok":
            raise RuntimeError(f"kernel setup failed: {cell.ename}: {cell.evalue}")
        cell = fe.run(KERNEL_RUN.format(n=n), timeout=600)
        if cell.status != "ok":
            raise RuntimeError(f"kernel run failed: {cell.ename}: {cell.evalue}")
        added, rss, models0, rss0, took = (float(x) for x in cell.stdout.split())
    return [
        Row(
            GROUP,
            f"{n:,} elicitations in a kernel (await): live models added",
            added,
            unit="models",
            baseline=models0,
            baseline_name="live before",
            target="0",
            ok=added == 0,
            note=f"{took / n * 1e3:.1f} ms each; {added / n:.1f} models per call",
        ),
        Row(
            GROUP,
            f"{n:,} elicitations in a kernel (await): RSS growth",
            rss,
            unit="MB",
            baseline=rss0,
            baseline_name="RSS before",
            target=f"< {RSS_TARGET_MB:g} MB",
            ok=rss < RSS_TARGET_MB,
        ),
    ]


RUNAWAY_SETUP = """
import gc, ipywidgets as w
from mcp_widgets import connect_sync, handlers
from tests.servers.runaway import build_server
srv = connect_sync(build_server(), name="runaway", mode="legacy", max_questions=10**6)
def rss():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) / 1024 for l in f if l.startswith("VmRSS:"))
peak = [0, 0.0]
async def counting(card):
    if card.message.endswith("0"):  # every tenth question: how much is alive while the call runs
        peak[0] = max(peak[0], len(w.Widget.widgets) - base[0])
        peak[1] = max(peak[1], rss() - base[1])
    await handlers.accept_defaults(card)
srv.handler = counting
srv.call_tool_sync("ask", {"count": 20})
print("ready")
"""
RUNAWAY_RUN = """
gc.collect()
base, peak[:] = (len(w.Widget.widgets), rss()), [0, 0.0]
srv.call_tool_sync("ask", {{"count": {n}}})
print(peak[0], peak[1])
"""


def _runaway(n: int, few: int = 20) -> list[Row]:
    """One call asking `n` questions (a runaway server, let through): what is alive at the peak, against a
    call asking `few` (answered questions keep no widgets, so both should be alike)."""
    from tests.kernel.harness import KernelFrontend

    with KernelFrontend(sys.executable) as fe:
        cell = fe.run(RUNAWAY_SETUP, timeout=120)
        if cell.status != "ok":
            raise RuntimeError(f"kernel setup failed: {cell.ename}: {cell.evalue}")
        figures = []
        for count in (few, n):
            cell = fe.run(RUNAWAY_RUN.format(n=count), timeout=900)
            if cell.status != "ok":
                raise RuntimeError(f"kernel run failed: {cell.ename}: {cell.evalue}")
            figures.append([float(x) for x in cell.stdout.split()])
    (models0, rss0), (models, rss) = figures
    return [
        Row(
            GROUP,
            f"one call asking {n:,} questions in a kernel: live models at the peak",
            models,
            unit="models",
            baseline=models0,
            baseline_name=f"{few} questions",
            target="ratio ≈ 1",
            ok=models <= 2 * max(models0, 1),
        ),
        Row(
            GROUP,
            f"one call asking {n:,} questions in a kernel: RSS growth at the peak",
            rss,
            unit="MB",
            baseline=rss0,
            baseline_name=f"{few} questions",
            target="reported",
            note="includes one history record per question (the history keeps the newest 10,000)",
        ),
    ]


def _history(n: int) -> Any:
    from mcp_widgets.core.history import History
    from mcp_widgets.core.outcome import Action, Outcome, Reason

    history = History(max_records=max(n, 1))
    outcomes = [
        Outcome(Action.ACCEPT, Reason.PERSON),
        Outcome(Action.DECLINE, Reason.HANDLER, by="scripted"),
        Outcome(Action.CANCEL, Reason.TIMEOUT, note="no answer within 60 s"),
        None,
    ]
    fields = [("name", "Name", True), ("email", "Email", False), ("age", "Age", False)]
    for i in range(n):
        history.begin_request(
            server=f"server-{i % 5}",
            mode="form",
            message=f"Question number {i}: please tell us a few things about you <b>now</b>.",
            source=("tool", f"tool_{i % 7}"),
            fields=fields,
            outcome=outcomes[i % len(outcomes)],
        )
    return history


def _panel(quick: bool) -> list[Row]:
    from mcp_widgets.widgets._history import HistoryPanel

    runs = 5 if quick else 15
    big, small = _history(10_000), _history(20)
    panels: list[Any] = []

    def build(history: Any) -> Any:
        def make() -> None:
            panels.append(HistoryPanel(history))

        return make

    def closing() -> None:
        while panels:
            panels.pop().close()

    rows = []
    t_big = median_ms(build(big), runs=runs)
    closing()
    t_small = median_ms(build(small), runs=runs)
    closing()
    rows.append(
        Row(
            GROUP,
            "HistoryPanel, 10,000 records: build + first page",
            t_big,
            baseline=t_small,
            baseline_name="20 records",
            target=f"≤ {PANEL_TARGET_MS:g} ms",
            ok=t_big <= PANEL_TARGET_MS,
        )
    )
    # Filtering a rare outcome far down the store: the worst page to find.
    panel, little = HistoryPanel(big), HistoryPanel(small)
    toggle = iter(range(10**9))

    def refilter(p: Any) -> Any:
        return lambda: p.set_filter(outcome="timeout" if next(toggle) % 2 else "pending")

    t_filter = median_ms(refilter(panel), runs=runs)
    t_filter_small = median_ms(refilter(little), runs=runs)
    rows.append(
        Row(
            GROUP,
            "HistoryPanel, 10,000 records: change filter",
            t_filter,
            baseline=t_filter_small,
            baseline_name="20 records",
            target=f"≤ {PANEL_TARGET_MS:g} ms",
            ok=t_filter <= PANEL_TARGET_MS,
        )
    )

    def add(history: Any) -> Any:
        def one() -> None:
            history.begin_request(server="server-1", mode="form", message="live", fields=[("x", "X", True)])

        return one

    panel.set_filter(outcome=None)
    little.set_filter(outcome=None)
    t_add = median_ms(add(big), runs=runs)
    t_add_small = median_ms(add(small), runs=runs)
    rows.append(
        Row(
            GROUP,
            "HistoryPanel, 10,000 records: live update on a new record",
            t_add,
            baseline=t_add_small,
            baseline_name="20 records",
            target=f"≤ {PANEL_TARGET_MS:g} ms",
            ok=t_add <= PANEL_TARGET_MS,
        )
    )
    panel.close()
    little.close()
    return rows


def _configs(quick: bool) -> list[Row]:
    """A hostile mcp.json: comments stripped in linear time (`/*a` repeated took 25 s for 160 KB when the
    stripper was quadratic), and `mw.servers(path)` on a file of the most servers read (one page built)."""
    import json
    import tempfile
    from pathlib import Path

    from mcp_widgets.client.configs.table import servers
    from mcp_widgets.core import jsonc
    from mcp_widgets.core.mcp_config import MAX_SERVERS

    runs = 3 if quick else 9
    rows: list[Row] = []
    kb_times = {}
    for kb in (10, 80, 160):
        text = "/*a" * (kb * 1024 // 3)
        kb_times[kb] = median_ms(lambda text=text: jsonc.strip(text), runs=runs)
    for kb in (80, 160):
        ratio = kb_times[kb] / kb_times[10] if kb_times[10] else 0.0
        rows.append(
            Row(
                GROUP,
                f"mcp.json of '/*a' repeated, {kb} KB: strip comments",
                kb_times[kb],
                baseline=kb_times[10],
                baseline_name="10 KB",
                target=f"linear: ratio ≤ {kb // 5} ({kb // 10} expected)",
                ok=ratio <= kb // 5,
            )
        )
    with tempfile.TemporaryDirectory() as folder:
        many, few = Path(folder, "many.json"), Path(folder, "few.json")
        for path, n in ((many, MAX_SERVERS), (few, 20)):
            path.write_text(json.dumps({"mcpServers": {f"s{i}": {"command": "x"} for i in range(n)}}))
        tables: list[Any] = []

        def build(path: Path) -> Any:
            return lambda: tables.append(servers(path))

        t_many = median_ms(build(many), runs=runs)
        t_few = median_ms(build(few), runs=runs)
        for table in tables:
            table.close()
    rows.append(
        Row(
            GROUP,
            f"mw.servers(path), {MAX_SERVERS:,} servers: read + first page",
            t_many,
            baseline=t_few,
            baseline_name="20 servers",
            target=f"≤ {10 * PANEL_TARGET_MS:g} ms",
            ok=t_many <= 10 * PANEL_TARGET_MS,
        )
    )
    return rows


def run(quick: bool) -> list[Row]:
    rows = _in_process(100 if quick else 1000)
    if not quick:  # a second kernel start costs more than --quick can afford on a loaded machine
        rows += _in_kernel(1000)
        rows += _runaway(5000)
    rows += _panel(quick)
    rows += _configs(quick)
    return rows
