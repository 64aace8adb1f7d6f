"""Form build time and widget models: ElicitationForm next to ipywidgets-jsonschema's Form."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

from ._report import Row
from .schemas import COMPARABLE, EVERY_KIND, comparable_n, every_kind_n

GROUP = "forms"


def _live() -> dict[Any, Any]:
    from ipywidgets.widgets.widget import _instances

    return _instances


def measure(make: Callable[[], object], runs: int) -> tuple[float, int, float]:
    """Median build time of `make()` (CPU time of this thread, in ms), how many widget models one build
    creates, and the median wall time (ms).

    CPU time is the figure: on a loaded machine wall time mostly measures the other processes. The models each
    build made are closed after it, outside the timing, so the registry does not grow.
    """
    live = _live()
    samples: list[float] = []
    walls: list[float] = []
    models = 0
    for i in range(runs + 1):  # the first build warms up and is counted, not timed
        before = set(live)
        gc.collect()
        gc.disable()
        try:
            start, cpu = time.perf_counter(), time.thread_time()
            make()
            took, wall = time.thread_time() - cpu, time.perf_counter() - start
        finally:
            gc.enable()
        made = set(live) - before
        if i == 0:
            models = len(made)
        else:
            samples.append(took)
            walls.append(wall)
        for key in made:
            widget = live.get(key)
            if widget is not None:
                widget.close()
    return statistics.median(samples) * 1e3, models, statistics.median(walls) * 1e3


def run(quick: bool) -> list[Row]:
    # Ours first: mcp_widgets loads jsonschema without its IRI grammar (seconds of import when loaded).
    from mcp_widgets.widgets._form import ElicitationForm

    try:
        from ipywidgets_jsonschema import Form
    except ImportError:
        Form = None
    missing = "ipywidgets-jsonschema not installed (pip install -e .[bench])"

    runs = 5 if quick else 25
    big_runs = 1 if quick else 9

    def ours(schema: dict[str, Any]) -> Callable[[], object]:
        return lambda: ElicitationForm("Please fill this in.", schema, server="bench")

    def theirs(schema: dict[str, Any]) -> tuple[float, int, float] | tuple[None, None, None]:
        if Form is None:
            return None, None, None
        return measure(lambda: Form(schema).widget, runs if len(schema["properties"]) < 50 else big_runs)

    def wall(ours: float, theirs: float | None) -> str:
        text = f"wall {ours:.1f} ms"
        return text + (f" vs {theirs:.1f} ms" if theirs is not None else "")

    rows: list[Row] = []
    o_ms, o_models, o_wall = measure(ours(COMPARABLE), runs)
    t_ms, t_models, t_wall = theirs(COMPARABLE)
    rows.append(
        Row(
            GROUP,
            "(a) 8-field schema, build (CPU)",
            o_ms,
            baseline=t_ms,
            baseline_name="ijs Form",
            target="≤ 0.25× ijs",
            ok=None if t_ms is None else o_ms <= t_ms / 4,
            note=wall(o_wall, t_wall) if Form is not None else missing,
        )
    )
    rows.append(
        Row(
            GROUP,
            "(a) 8-field schema, models",
            o_models,
            unit="models",
            baseline=t_models,
            baseline_name="ijs Form",
            target="fewer than ijs",
            ok=None if t_models is None else o_models < t_models,
        )
    )
    b_ms, b_models, b_wall = measure(ours(EVERY_KIND), runs)
    rows.append(
        Row(
            GROUP,
            "(b) 12 fields, every kind, build (CPU)",
            b_ms,
            note=f"{wall(b_wall, None)}; ijs cannot build it (titled oneOf, date-time)",
        )
    )
    rows.append(
        Row(
            GROUP,
            "(b) 12 fields, every kind, models",
            b_models,
            unit="models",
            target="≤ 40",
            ok=b_models <= 40,
        )
    )
    c_ms, c_models, c_wall = measure(ours(every_kind_n(100)), big_runs)
    ct_ms, ct_models, ct_wall = theirs(comparable_n(100))
    rows.append(
        Row(
            GROUP,
            "(c) 100 fields, build (CPU)",
            c_ms,
            baseline=ct_ms,
            baseline_name="ijs, 100 of its kinds",
            note=f"{wall(c_wall, ct_wall)}; ours: every kind" if Form is not None else missing,
        )
    )
    rows.append(
        Row(
            GROUP,
            "(c) 100 fields, models",
            c_models,
            unit="models",
            baseline=ct_models,
            baseline_name="ijs, 100 of its kinds",
        )
    )
    return rows
