"""A task's server cannot set the client's polling rate: a 2025-11-25 task reporting a hostile `pollInterval`
(1 ms, -1000 ms) costs what a sane one costs (the floor of 50 ms, no value at all).

Plain python (the client on its own thread, as in a notebook), over stdio against tests/servers/rawtasks.py,
whose task answers every `tasks/get` with `status: "working"`. Per interval: `tasks/get` per second as the
server counted them, and the client's CPU (this process, every thread) as % of one core.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from ._report import Row
from .waiting import _cpu_seconds

GROUP = "polling"
RAWTASKS = Path(__file__).resolve().parents[1] / "tests" / "servers" / "rawtasks.py"
# (hostile pollInterval as sent, the sane one it must cost the same as), JSON texts; None: not sent.
PAIRS = (("1", "50"), ("-1000", None))


def measure(srv: Any, poll: str | None, seconds: float) -> tuple[float, float]:
    """`tasks/get` per second and the client's CPU % while one task reporting `poll` is followed."""
    seen = srv.call_tool_sync
    call = srv.call_tool_background("slow", {} if poll is None else {"poll": poll})
    time.sleep(0.3)  # created and polled once
    gets0, cpu0, t0 = int(seen("seen").content[0].text), _cpu_seconds(os.getpid()), time.monotonic()
    time.sleep(seconds)
    gets1, cpu1, t1 = int(seen("seen").content[0].text), _cpu_seconds(os.getpid()), time.monotonic()
    call.cancel()
    return (gets1 - gets0) / (t1 - t0), 100 * (cpu1 - cpu0) / (t1 - t0)


def run(quick: bool) -> list[Row]:
    from mcp_widgets import connect_sync

    seconds = 1.0 if quick else 5.0
    rows: list[Row] = []
    with connect_sync([sys.executable, str(RAWTASKS)], name="bench-poll", mode="legacy", timeout=30) as srv:
        for hostile, sane in PAIRS:
            rate, cpu = measure(srv, hostile, seconds)
            sane_rate, sane_cpu = measure(srv, sane, seconds)
            sane_name = f"pollInterval {sane}" if sane is not None else "no pollInterval"
            rows.append(
                Row(
                    GROUP,
                    f"2025-11-25 task, pollInterval {hostile}: tasks/get per s",
                    rate,
                    unit="/s",
                    baseline=sane_rate,
                    baseline_name=sane_name,
                    target="ratio ≤ 1.2",
                    ok=rate <= 1.2 * sane_rate + 0.5,
                    note=f"client CPU {cpu:.1f} % vs {sane_cpu:.1f} % of a core",
                )
            )
    return rows
