"""Rows of the benchmark table, timing helpers and the printer."""

from __future__ import annotations

import gc
import os
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "GROUPS",
    "Row",
    "median_ms",
    "not_measured",
    "print_table",
    "printed_figures",
    "rss_mb",
    "skipped",
]

GROUPS = (
    "forms",
    "elicitation",
    "waiting",
    "browser",
    "apps",
    "scale",
    "polling",
    "wire",
    "privacy",
    "completions",
    "explorer",
    "wide",
    "live",
)
"""Every group, in the order they run and print."""


@dataclass
class Row:
    """One figure: the median `value` in `unit`, its `baseline` (same run), and the target check."""

    group: str
    name: str
    value: float | None
    unit: str = "ms"
    baseline: float | None = None
    baseline_name: str = ""
    target: str = ""
    ok: bool | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.value is None or not self.baseline:
            return None
        return self.value / self.baseline


def skipped(group: str, why: str) -> Row:
    """The row a group prints when it cannot run here (the smoke test still sees the group)."""
    return Row(group, "skipped", None, unit="", note=why)


def not_measured(group: str, names: Sequence[str], exc: BaseException) -> list[Row]:
    """The rows of figures whose measurement raised `exc`: each says why (its traceback goes to stderr), and
    the run goes on with the next figure (a loaded machine can fail one; the others still count)."""
    traceback.print_exception(exc, file=sys.stderr)
    why = f"not measured: {type(exc).__name__}: {exc}".splitlines()[0][:200]
    return [Row(group, name, None, unit="", note=why) for name in names]


def printed_figures(fe: Any, code: str, *, count: int, timeout: float, grace: float = 30.0) -> list[float]:
    """Run `code` in the benchmark kernel `fe` (tests/kernel/harness.py); the last `count` numbers it printed.

    The printed line can reach the front end after the cell's reply on a loaded machine: it is waited for, up
    to `grace` seconds after the reply. Raises RuntimeError when the cell fails or never prints them.
    """
    cell = fe.run(code, timeout=timeout)
    if cell.status != "ok":
        raise RuntimeError(f"kernel cell failed: {cell.ename}: {cell.evalue}\n{cell.stderr[-2000:]}")
    try:
        fe.wait_until(lambda: len(cell.stdout.split()) >= count, timeout=grace, what="the figures printed")
    except TimeoutError:
        said = cell.stdout.strip()[-200:] or "nothing"
        raise RuntimeError(
            f"the kernel cell printed {said!r}, not {count} figures, {grace:g} s after its reply"
        ) from None
    words = cell.stdout.split()
    return [float(x) for x in words[len(words) - count :]]


def median_ms(
    fn: Callable[[], object], *, runs: int, warmup: int = 2, clock: Callable[[], float] = time.perf_counter
) -> float:
    """Median time of `fn()` in ms over `runs` runs (garbage collected before each, not during).

    `clock` is wall time by default; `time.thread_time` gives CPU time, which a loaded machine disturbs less.
    """
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        gc.collect()
        gc.disable()
        try:
            start = clock()
            fn()
            times.append(clock() - start)
        finally:
            gc.enable()
    return statistics.median(times) * 1e3


def rss_mb() -> float:
    """Resident set size of this process, in MB (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _num(value: float | None, unit: str = "") -> str:
    if value is None:
        return "—"
    if unit in ("models", "calls", "") and float(value).is_integer():
        text = f"{int(value):,}"
    elif abs(value) >= 100:
        text = f"{value:,.0f}"
    elif abs(value) >= 10:
        text = f"{value:.1f}"
    else:
        text = f"{value:.2f}"
    return f"{text} {unit}".rstrip()


def print_table(rows: list[Row], *, header: str = "") -> None:
    """Print the table: group, figure, median, baseline, ratio, target, ✓/✗, note."""
    titles = ("group", "figure", "median", "baseline", "ratio", "target", "ok", "note")
    lines = []
    for r in rows:
        base = _num(r.baseline, r.unit) if r.baseline is not None else "—"
        if r.baseline_name and r.baseline is not None:
            base = f"{base} ({r.baseline_name})"
        ratio = f"{r.ratio:.2f}×" if r.ratio is not None else "—"
        ok = "—" if r.ok is None else ("✓" if r.ok else "✗")
        lines.append((r.group, r.name, _num(r.value, r.unit), base, ratio, r.target or "—", ok, r.note))
    widths = [
        max(len(t), *(len(line[i]) for line in lines)) if lines else len(t) for i, t in enumerate(titles)
    ]
    widths[-1] = 0  # the note runs on
    if header:
        print(header)

    def fmt(cells: tuple[str, ...]) -> str:
        return " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    print(fmt(titles))
    print("-+-".join("-" * (w or 4) for w in widths))
    for line in lines:
        print(fmt(line))


def load_line() -> str:
    """The machine's load, printed above the table (figures on a loaded machine are not comparable)."""
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return ""
    return f"load average {one:.1f} / {five:.1f} on {os.cpu_count()} cores"
