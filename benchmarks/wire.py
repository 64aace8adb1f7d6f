"""The wire: what capturing every message costs a call that elicits once (wire on against wire off, their
blocks taking turns, with the raw `mcp.Client` for the added cost), and the memory of a wire that has seen
100,000 messages against one that has seen 10,000 (its ring keeps 5,000: flat).

A message is noted as it passes and kept (JSON, redaction, grouping) up to 50 ms later, off its way: the
medians show what a person waits; the CPU per call shows the wire's whole work, the flush a block leaves
behind included. The target is checked on CPU: the wall medians of two connections differ by several per
cent from run to run whatever the wire does (the same build measured 7.4 % and 2.3 %), which is more than the
target, while the wire's own work is CPU, measured in every thread of this process."""

from __future__ import annotations

import gc
import json
import logging
import statistics
import time
import tracemalloc
from typing import Any

from ._report import Row
from ._shouting import shouting
from .elicitation import _Ours, _Raw, _stdio

GROUP = "wire"
TARGET_SHARE = 5.0
"""The wire may add at most this % to the added CPU per elicitation (see the module's docstring)."""


class _Flushed(_Ours):
    """Ours, with the wire's work still pending after a block's last call counted in that block's CPU (it
    would run during the next block, another side's)."""

    def block(self, n: int) -> tuple[list[float], list[float]]:
        walls, cpus = super().block(n)
        cpu = time.process_time()
        self.srv.wire._capture.flush()
        cpus[-1] += time.process_time() - cpu
        return walls, cpus


def on_and_off(mode: str, runs: int, block: int = 10) -> dict[str, float]:
    """Median ms of a call eliciting once over stdio: raw, ours with the wire off, ours with it on; and the
    paired (by round) added cost of each of ours over raw. `cpu_*`: mean CPU ms per call."""
    sides: dict[str, Any] = {}
    rounds: list[dict[str, float]] = []
    cpu: dict[str, list[float]] = {"raw": [], "off": [], "on": []}
    walls: dict[str, list[float]] = {"raw": [], "off": [], "on": []}
    try:
        sides["raw"] = _Raw(_stdio(), mode)
        sides["off"] = _Flushed(_stdio(), mode, runs + block + 3, wire=0, name="bench-wire-off")
        sides["on"] = _Flushed(_stdio(), mode, runs + block + 3, wire=5000, name="bench-wire-on")
        for side in sides.values():
            side.block(3)
        names = list(sides)
        for i in range(max(1, runs // block)):
            this_round = {}
            for name in names[i % 3 :] + names[: i % 3]:
                took, used = sides[name].block(block)
                this_round[name] = statistics.median(took)
                cpu[name] += used
                walls[name] += took
            rounds.append(this_round)
    finally:
        for side in reversed(sides.values()):
            side.close()
    out = {name: statistics.median(r[name] for r in rounds) * 1e3 for name in ("raw", "off", "on")}
    out["added_off"] = statistics.median(r["off"] - r["raw"] for r in rounds) * 1e3
    out["added_on"] = statistics.median(r["on"] - r["raw"] for r in rounds) * 1e3
    out["wire"] = statistics.median(r["on"] - r["off"] for r in rounds) * 1e3
    for name in ("raw", "off", "on"):  # means: the wire's own work, done after a flush delay, counts here too
        out[f"cpu_{name}"] = statistics.fmean(cpu[name]) * 1e3
        out[f"mean_{name}"] = statistics.fmean(walls[name]) * 1e3
    return out


def _message(n: int) -> tuple[dict[str, Any], dict[str, Any]]:
    args = {"name": "tools/call", "arguments": {"text": "x" * 200, "n": n}}
    request = {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": args}
    result = {"jsonrpc": "2.0", "id": n, "result": {"content": [{"type": "text", "text": "y" * 600}]}}
    return request, result


def memory(seen: int) -> tuple[float, float, float]:
    """KB a wire holds after `seen` messages (a call and its result each), µs per message kept (as the
    client keeps it: its JSON text written, redacted, clipped) and bytes per message kept."""
    from mcp_widgets.core.wire import WireLog, whole_text

    def fill(log: WireLog) -> None:
        for n in range(seen // 2):
            for direction, message in zip(("out", "in"), _message(n), strict=True):
                raw, size = whole_text(message, lambda m=message: json.dumps(m, ensure_ascii=False))
                call = (f"k{n}", "tool echo") if n % 2 else None
                log.add(direction, message, size=size, raw=raw, call=call)

    start = time.perf_counter()
    fill(WireLog())  # timed apart: tracemalloc slows every allocation several times over
    took = (time.perf_counter() - start) / seen * 1e6
    gc.collect()
    tracemalloc.start()
    log = WireLog()
    fill(log)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    per = held / max(len(log), 1)
    del log
    return held / 1024, took, per


def _stalls(size: int, n: int, wire: int) -> tuple[float, float]:
    """One call to a server sending `n` log lines and a result of `size` characters quoting the typed
    answer: the longest the shared client thread went without running a 5 ms heartbeat (what another
    server's calls wait), in ms, and the call's messages per second."""
    import asyncio

    from mcp_widgets import handlers
    from mcp_widgets.client import connect_sync
    from mcp_widgets.client.runtime import RUNTIME

    gaps: list[float] = []
    stop = False

    async def heartbeat() -> None:
        last = time.perf_counter()
        while not stop:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    answers = handlers.scripted([{"name": "Zanzibar-Canary-77"}])
    logger = logging.getLogger("mcp_widgets")
    level, logger.level = logger.level, logging.WARNING  # the lines go to the log here: not printed
    options: dict[str, Any] = {"name": f"shouting-{wire}", "wire": wire, "log_level": "info"}
    with connect_sync(shouting(size), handler=answers, **options) as srv:
        beating = RUNTIME.submit(heartbeat())
        start = time.perf_counter()
        srv.call_tool_sync("shout", {"n": n})
        srv.wire._capture.flush()
        took = time.perf_counter() - start
        stop = True
        beating.result(timeout=10)
    logger.setLevel(level)
    return max(gaps) * 1e3, (n + 1) / took


def big_messages(quick: bool) -> list[Row]:
    """The redaction's cost follows what is kept, not what a server sends (#40)."""
    size = 5_000_000 if quick else 50_000_000
    rows: list[Row] = []
    on, _ = _stalls(size, 1, 5000)
    off, _ = _stalls(size, 1, 0)
    rows.append(
        Row(
            GROUP,
            f"a {size / 1e6:g} MB log line and result quoting a typed value: client thread's longest stall",
            on,
            unit="ms",
            baseline=off,
            baseline_name="wire off",
            note="in process (no JSON); what another server's calls wait for at most (was 10 s)",
        )
    )
    n = 20 if quick else 100
    rate_on = _stalls(1_000_000, n, 5000)[1]
    rate_off = _stalls(1_000_000, n, 0)[1]
    rows.append(
        Row(
            GROUP,
            f"{n} log lines of 1 MB quoting a typed value: messages a second",
            rate_on,
            unit="/s",
            baseline=rate_off,
            baseline_name="wire off",
            note="in process; each line redacted in the call's log and kept clipped on the wire (was 7/s)",
        )
    )
    return rows


def run(quick: bool) -> list[Row]:
    runs = 30 if quick else 600
    rows: list[Row] = []
    for mode in ("auto",) if quick else ("auto", "legacy"):
        got = on_and_off(mode, runs)
        label = "2026-07-28" if mode == "auto" else "2025-11-25"
        share = 100 * got["wire"] / got["added_off"] if got["added_off"] > 0 else 0.0
        added_cpu = got["cpu_off"] - got["cpu_raw"]
        share_cpu = 100 * (got["cpu_on"] - got["cpu_off"]) / added_cpu if added_cpu > 0 else 0.0
        rows.append(
            Row(
                GROUP,
                f"stdio {label}: tool call eliciting once, wire on",
                got["on"],
                baseline=got["off"],
                baseline_name="wire off",
                note=(
                    f"raw mcp.Client {got['raw']:.2f} ms; means {got['mean_on']:.2f} / "
                    f"{got['mean_off']:.2f} ms; wall share of the added cost {share:.1f} % "
                    f"({got['added_on']:.2f} ms on, {got['added_off']:.2f} ms off, paired by round)"
                ),
            )
        )
        rows.append(
            Row(
                GROUP,
                f"stdio {label}: the wire's share of the added CPU",
                share_cpu,
                unit="%",
                target=f"≤ {TARGET_SHARE:g} %",
                ok=share_cpu <= TARGET_SHARE,
                note=(
                    f"CPU per call {got['cpu_on']:.2f} on, {got['cpu_off']:.2f} off, "
                    f"{got['cpu_raw']:.2f} raw ms"
                    " (every thread of this process; the flush a block leaves behind counted)"
                ),
            )
        )
    rows += big_messages(quick)
    small, _, _ = memory(10_000)
    large, per, weight = memory(20_000 if quick else 100_000)
    rows.append(
        Row(
            GROUP,
            f"memory after {20_000 if quick else 100_000:,} messages (ring of 5,000)",
            large,
            unit="KB",
            baseline=small,
            baseline_name="after 10,000",
            note=(
                f"flat when the ratio is ~1; {per:.1f} µs to keep a message (redacted, clipped);"
                f" {weight:,.0f} bytes per kept message of ~1 KB of JSON"
            ),
        )
    )
    return rows
