"""Form build time and widget models: ElicitationForm next to ipywidgets-jsonschema's Form."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ._report import Row
from .schemas import COMPARABLE, EVERY_KIND, comparable_n, every_kind_n

GROUP = "forms"


def _live() -> dict[Any, Any]:
    from ipywidgets.widgets.widget import _instances

    return _instances


def _shared() -> set[str]:
    """The ids of mcp-widgets' process-wide shared Layout and Style models (made once, never closed)."""
    from mcp_widgets.widgets._fields import shared_models

    return {m.model_id for m in shared_models()}


@dataclass
class Build:
    """What one kind of build costs: median CPU and wall time (ms), and widget models."""

    cpu: float
    wall: float
    models: int
    """The models one build makes, once the shared ones exist (so: every build but a process's first)."""
    shared: int
    """The shared Layout and Style models those use (made by a process's first form, then kept for all)."""


def measure(make: Callable[[], object], runs: int) -> Build:
    """Time `make()` (CPU time of this thread: on a loaded machine wall time mostly measures the other
    processes) and count the widget models it makes.

    The first build warms up (and makes the shared Layouts and Styles); the second is counted. The models a
    build made are closed after it, outside the timing, so the registry does not grow; shared ones stay.
    """
    return measure_side_by_side([make], runs)[0]


def measure_side_by_side(makes: Sequence[Callable[[], object]], runs: int) -> list[Build]:
    """`measure` for several builds, taken in turns (a, b, b, a, a, b, ...): a machine whose load changes
    during the run then slows each of them alike, so their ratio holds."""
    live = _live()
    cpus: list[list[float]] = [[] for _ in makes]
    walls: list[list[float]] = [[] for _ in makes]
    models = [0] * len(makes)
    shared = [0] * len(makes)
    for i in range(runs + 1):
        order = range(len(makes)) if i % 2 == 0 else reversed(range(len(makes)))
        for j in order:
            before = set(live)
            gc.collect()
            gc.disable()
            try:
                start, cpu = time.perf_counter(), time.thread_time()
                makes[j]()
                took, wall = time.thread_time() - cpu, time.perf_counter() - start
            finally:
                gc.enable()
            shared_now = _shared()
            made = set(live) - before - shared_now
            if i > 0:
                cpus[j].append(took)
                walls[j].append(wall)
            if i == 1:
                models[j] = len(made)
                widgets = [live[key] for key in made if key in live]
                refs = {getattr(x, name, None) for x in widgets for name in ("layout", "style")}
                shared[j] = len({ref.model_id for ref in refs if ref is not None} & shared_now)
            for key in made:
                widget = live.get(key)
                if widget is not None:
                    widget.close()
    return [
        Build(statistics.median(c) * 1e3, statistics.median(w) * 1e3, m, sh)
        for c, w, m, sh in zip(cpus, walls, models, shared, strict=True)
    ]


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
        # One model whose card holds everything the page renders: the whole form, as ijs builds its whole
        # form (the page draws the controls; ijs's are stock models, made here).
        return lambda: ElicitationForm("Please fill this in.", schema, server="bench")

    def theirs(schema: dict[str, Any]) -> Build | None:
        if Form is None:
            return None
        return measure(lambda: Form(schema).widget, runs if len(schema["properties"]) < 50 else big_runs)

    def side_by_side(schema: dict[str, Any]) -> tuple[Build, Build | None]:
        """Ours and ijs on the same schema, built in turns (their ratio is the target)."""
        if Form is None:
            return measure(ours(schema), runs), None
        a, b = measure_side_by_side([ours(schema), lambda: Form(schema).widget], runs)
        return a, b

    def wall(ours: Build, theirs: Build | None) -> str:
        text = f"wall {ours.wall:.1f} ms"
        return text + (f" vs {theirs.wall:.1f} ms" if theirs is not None else "")

    def shared(build: Build) -> str:
        return f"+ {build.shared} shared Layouts/Styles it uses (made by the first form, kept for all)"

    rows: list[Row] = []
    o, t = side_by_side(COMPARABLE)
    rows.append(
        Row(
            GROUP,
            "(a) 8-field schema, build (CPU)",
            o.cpu,
            baseline=None if t is None else t.cpu,
            baseline_name="ijs Form",
            target="≤ 0.25× ijs",
            ok=None if t is None else o.cpu <= t.cpu / 4,
            note=wall(o, t) if t is not None else missing,
        )
    )
    rows.append(
        Row(
            GROUP,
            "(a) 8-field schema, models",
            o.models,
            unit="models",
            baseline=None if t is None else t.models,
            baseline_name="ijs Form",
            target="fewer than ijs",
            ok=None if t is None else o.models < t.models,
            note=shared(o),
        )
    )
    b = measure(ours(EVERY_KIND), runs)
    rows.append(
        Row(
            GROUP,
            "(b) 12 fields, every kind, build (CPU)",
            b.cpu,
            note=f"{wall(b, None)}; ijs cannot build it (titled oneOf, date-time)",
        )
    )
    rows.append(
        Row(
            GROUP,
            "(b) 12 fields, every kind, models",
            b.models,
            unit="models",
            target="≤ 40",
            ok=b.models <= 40,
            note=shared(b),
        )
    )
    c, ct = measure(ours(every_kind_n(100)), big_runs), theirs(comparable_n(100))
    rows.append(
        Row(
            GROUP,
            "(c) 100 fields, build (CPU)",
            c.cpu,
            baseline=None if ct is None else ct.cpu,
            baseline_name="ijs, 100 of its kinds",
            note=f"{wall(c, ct)}; ours: every kind" if ct is not None else missing,
        )
    )
    rows.append(
        Row(
            GROUP,
            "(c) 100 fields, models",
            c.models,
            unit="models",
            baseline=None if ct is None else ct.models,
            baseline_name="ijs, 100 of its kinds",
            note=shared(c),
        )
    )
    return rows
