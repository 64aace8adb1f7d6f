"""Forms of huge listings (issue 48): a resource template of 10,000 variables, a tool requiring 10,000
properties and a prompt of 10,000 arguments, each opened and given one keystroke, against the same at 1,000
(the baseline, same run, in turns). Linear work costs 10× the items about 10×; the quadratic check it replaced
cost 100× (44 s to open the template's form and 40 s a keystroke at 10,000). Target: ≤ 12×.

CPU time of this thread, kernel side: comms that serialize every model's state, as a kernel's do (the
messages go nowhere). In-process servers (tests/servers/wide.py).
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ._report import Row, not_measured
from .explorer import _kernel_like_comms

GROUP = "wide"
ROOT = Path(__file__).resolve().parents[1]
SIZES = (1_000, 10_000)
TARGET = 12.0
FIRST = {"template": "v0", "tool": "p0", "prompt": "a0"}
BEFORE = {
    "template": "before: 44 s to open, 40 s a keystroke (issue 48)",
    "tool": "before: quadratic in the missing keys",
    "prompt": "before: quadratic in the missing arguments",
}
WHAT = {
    "template": "template form, {n:,} variables",
    "tool": "tool form, {n:,} required properties",
    "prompt": "prompt form, {n:,} arguments",
}


def _times(open_form: Callable[[], Any], field: str, value: str) -> tuple[float, float]:
    """CPU ms of opening a form and of one keystroke in it (the form is closed after, outside the timing)."""
    gc.collect()
    gc.disable()
    try:
        start = time.thread_time()
        form = open_form()
        opened = time.thread_time()
        form.fill(**{field: value})
        typed = time.thread_time()
    finally:
        gc.enable()
    form.close()
    return (opened - start) * 1000, (typed - opened) * 1000


def measure(servers: dict[int, Any], kind: str, runs: int) -> dict[int, tuple[float, float]]:
    """Median (open, keystroke) CPU ms at each size, the sizes taken in turns (a, b, b, a, ...)."""
    from tests.servers.wide import template_text

    def opener(n: int) -> Callable[[], Any]:
        srv = servers[n]
        if kind == "tool":
            return lambda: srv.form("wide")
        if kind == "prompt":
            return lambda: srv.prompt_form("wide")
        return lambda: srv.template_form(template_text(n))

    taken: dict[int, list[tuple[float, float]]] = {n: [] for n in SIZES}
    for i in range(runs + 1):  # the first round warms up
        for n in SIZES if i % 2 == 0 else tuple(reversed(SIZES)):
            got = _times(opener(n), FIRST[kind], f"x{i}")
            if i:
                taken[n].append(got)
    return {
        n: (statistics.median(t[0] for t in got), statistics.median(t[1] for t in got))
        for n, got in taken.items()
    }


def run(quick: bool) -> list[Row]:
    sys.path.insert(0, str(ROOT))
    from mcp_widgets import connect_sync
    from tests.servers.wide import build_server

    runs = 3 if quick else 9
    small, large = SIZES
    rows: list[Row] = []
    for kind in ("template", "tool", "prompt"):
        names = [f"{WHAT[kind].format(n=large)}: open", f"{WHAT[kind].format(n=large)}: one keystroke"]
        try:
            with (
                _kernel_like_comms(),
                connect_sync(build_server(small, size=100), name="small") as few,
                connect_sync(build_server(large, size=100), name="large") as many,
            ):
                got = measure({small: few, large: many}, kind, runs)
        except Exception as exc:
            rows += not_measured(GROUP, names, exc)
            continue
        for name, step in zip(names, (0, 1), strict=True):
            value, base = got[large][step], got[small][step]
            ratio = value / base if base else None
            rows.append(
                Row(
                    GROUP,
                    name,
                    value,
                    baseline=base,
                    baseline_name=f"the same at {small:,}",
                    target=f"≤ {TARGET:.0f}× (10× the items)",
                    ok=ratio is not None and ratio <= TARGET,
                    note=f"CPU, kernel side; {BEFORE[kind]}",
                )
            )
    return rows
