"""Live resources (#44): a resource-updated notification to the watch view redrawn (kernel side), against the
manual way in the same run (the baseline, alternating): the same tool call, then `srv.read_resource`; and the
process's memory over 10,000 updates (each one notified, re-read and redrawn), against its first 1,000.

Plain python (the client on its own thread, as in a notebook; the view's redraw runs where `watch.wait`
waits, as the kernel's main thread would), against tests/servers/live.py in process, on 2025-11-25. The
timed rows wait out the re-read interval between runs (`live.feeds.REREAD_INTERVAL`, 0.25 s: it coalesces a
burst, it is no delay of a lone update); the memory row sets the interval to 0 so that each update is read.

And the CPU this process spends (every thread) while a watched resource of 6 million characters changes three
times over stdio, each change waited for: with the watch's cap (`live.watch.REREAD_CAP`, 5 million
characters: read once, the changes counted) against the same with the cap raised past it (read again on each
change, as before), alternating. Each read of that much costs the SDK's stdio reader about a second
(docs/sdk-notes.md).
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from ._report import Row, not_measured, rss_mb

GROUP = "live"
ROOT = Path(__file__).resolve().parents[1]


def _timed(srv: Any, uri: str, runs: int) -> tuple[list[float], list[float]]:
    watch = srv.watch(uri)
    watch.wait(0, timeout=10)
    redrawn: list[float] = []
    manual: list[float] = []
    try:
        for i in range(runs + 2):  # two to warm up
            time.sleep(0.26)  # past the re-read interval: a lone update is read at once
            before = watch.updates
            t0 = time.perf_counter()
            srv.call_tool_sync("bump")
            watch.wait(before + 1, timeout=10)
            t1 = time.perf_counter()
            before = watch.updates
            srv.call_tool_sync("bump")
            srv.read_resource_sync(uri)
            t2 = time.perf_counter()
            if i >= 2:
                redrawn.append((t1 - t0) * 1e3)
                manual.append((t2 - t1) * 1e3)
            watch.wait(before + 1, timeout=10)  # the baseline's own update, drawn before the next run
    finally:
        watch.stop()
    return redrawn, manual


def _memory(srv: Any, uri: str, updates: int) -> tuple[float, float, int]:
    watch = srv.watch(uri)
    watch.wait(0, timeout=10)
    watch._feed.interval = 0.0  # every update read (no coalescing): the worst case for memory
    first = updates // 10
    try:
        for n in range(1, updates + 1):
            srv.call_tool_sync("bump")
            watch.wait(n, timeout=10)
            if n == first:
                gc.collect()
                rss_first = rss_mb()
        gc.collect()
        rss_last = rss_mb()
    finally:
        watch.stop()
    return rss_first, rss_last, watch.view.redraws


PAD = 6_000_000
"""Characters of the large watched resource (over the watch's cap)."""


def _large_cpu(capped: bool) -> float:
    """CPU seconds of this process while a watched resource of `PAD` characters changes three times."""
    from mcp_widgets import connect_sync, kernel
    from mcp_widgets.client.live import watch as watching
    from tests.servers.live import COUNTER

    shipped = watching.REREAD_CAP
    watching.REREAD_CAP = shipped if capped else PAD * 2
    command = [sys.executable, str(ROOT / "tests" / "servers" / "live.py")]
    try:
        env = {"LIVE_PAD": str(PAD)}
        with connect_sync(command, name="bench-live-large", mode="legacy", timeout=60, env=env) as srv:
            watch = srv.watch(COUNTER)
            watch.wait(0, timeout=60)
            feed = watch._feed
            cpu = time.process_time()
            for n in range(1, 4):
                srv.call_tool_sync("bump")
                deadline = time.monotonic() + 60
                while feed.heard < n or (not capped and watch.updates < n):
                    assert time.monotonic() < deadline, "the change never came"
                    time.sleep(0.01)
                    kernel.flush_posted()  # the watch's redraws, posted to this (main) thread
            took = time.process_time() - cpu
            assert (feed.reads == 1) == capped, feed.reads
            watch.stop()
    finally:
        watching.REREAD_CAP = shipped
    return took


def run(quick: bool) -> list[Row]:
    sys.path.insert(0, str(ROOT))
    from mcp_widgets import connect_sync
    from tests.servers.live import COUNTER, build_server

    runs, updates = (10, 1_000) if quick else (40, 10_000)
    rows: list[Row] = []
    name = "update notification to the watch view redrawn, kernel side (in process)"
    try:
        with connect_sync(build_server(), name="bench-live", mode="legacy", timeout=30) as srv:
            redrawn, manual = _timed(srv, COUNTER, runs)
        value, base = statistics.median(redrawn), statistics.median(manual)
        rows.append(
            Row(
                GROUP,
                name,
                value,
                baseline=base,
                baseline_name="call, then srv.read_resource",
                target="< 50 ms",
                ok=value < 50,
                note=f"p90 {statistics.quantiles(redrawn, n=10)[-1]:.1f} ms",
            )
        )
    except Exception as exc:
        rows += not_measured(GROUP, [name], exc)
    name = f"memory over {updates:,} updates (each read and redrawn)"
    try:
        with connect_sync(build_server(), name="bench-live-memory", mode="legacy", timeout=30) as srv:
            rss_first, rss_last, redraws = _memory(srv, COUNTER, updates)
        growth = rss_last - rss_first
        rows.append(
            Row(
                GROUP,
                name,
                growth,
                unit="MB",
                target="< 5 MB",
                ok=growth < 5,
                note=f"RSS {rss_first:.1f} MB after {updates // 10:,}, {rss_last:.1f} MB after {updates:,} "
                f"({redraws:,} redraws)",
            )
        )
    except Exception as exc:
        rows += not_measured(GROUP, [name], exc)
    name = "CPU while a watched 6-million-character resource changes 3 times (stdio)"
    try:
        capped, uncapped = [], []
        for _ in range(1 if quick else 3):
            capped.append(_large_cpu(True))
            uncapped.append(_large_cpu(False))
        value, base = statistics.median(capped), statistics.median(uncapped)
        rows.append(
            Row(
                GROUP,
                name,
                value * 1e3,
                baseline=base * 1e3,
                baseline_name="the same, read again on each change",
                target="< 1×",
                ok=value < base,
                note="capped: read once, the changes counted; most of a read is the SDK's stdio reader",
            )
        )
    except Exception as exc:
        rows += not_measured(GROUP, [name], exc)
    return rows
