"""Suggestions as the person types: from a keystroke's value reaching the kernel (`form.fill`, as the
browser's update does) to the server's values set on the field's list (the model the browser draws), against
the same server asked directly (`await srv.complete(...)`, the baseline, same run, alternating).

Plain python (the client on its own thread, as in a notebook), against tests/servers/completing.py in
process and over stdio, on 2026-07-28. The form's figure includes its pause after a keystroke
(`client.completion.FORM_DELAY`, 30 ms): a burst of typing sends one request.

Also a prompt form's Run (get) and a template form's Read, from the click to the result text set under the
form (`form.run()` then `await form.wait()`, which returns once the text is shown), against the same prompt
got or template read directly (`await srv.get_prompt(...)`, `await srv.read_template(...)`), alternating.

And a keystroke's suggestions right after the previous keystroke's request was given up on while its 3 MB
answer (200,000 values) was already on its way (tests/servers/crossing.py, over stdio): that answer dropped
unparsed (`client.unparsed`, as shipped) against the same with it parsed as the SDK would, alternating. Both
include the SDK's stdio reader assembling the 3 MB line before the next answer, which no setting here
changes (docs/sdk-notes.md).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from ._report import Row, not_measured

GROUP = "completions"
ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "tests" / "servers" / "completing.py"
CROSSING = ROOT / "tests" / "servers" / "crossing.py"
TYPED = ("ju", "ma", "a", "s", "o", "n", "d", "f", "j", "m")


async def _pairs(srv: Any, runs: int) -> tuple[list[float], list[float]]:
    form = srv.prompt_form("trip")
    keyed: list[float] = []
    direct: list[float] = []
    try:
        for i in range(runs + 2):  # two to warm up
            typed = TYPED[i % len(TYPED)]
            t0 = time.perf_counter()
            form.fill(month=typed)
            got = await form.wait_suggestions("month")
            t1 = time.perf_counter()
            await srv.complete(prompt="trip", argument="month", value=typed)
            t2 = time.perf_counter()
            assert got is not None and got.values, typed
            if i >= 2:
                keyed.append((t1 - t0) * 1e3)
                direct.append((t2 - t1) * 1e3)
    finally:
        form.close()
    return keyed, direct


async def _runs(srv: Any, runs: int, template: str) -> dict[str, tuple[list[float], list[float]]]:
    """Click to result text, form against direct call, for the prompt form and the template form."""
    prompt_form, template_form = srv.prompt_form("trip"), srv.template_form(template)
    args = {"city": "Paris", "month": "June"}
    variables = {"city": "Paris", "day": "monday"}
    out: dict[str, tuple[list[float], list[float]]] = {"prompt": ([], []), "template": ([], [])}
    try:
        prompt_form.fill(**args)
        template_form.fill(**variables)
        await asyncio.sleep(0.3)  # the suggestions these fills asked for have come and gone
        for i in range(runs + 2):  # two to warm up
            turns: tuple[tuple[str, Any, Callable[[], Awaitable[Any]]], ...] = (
                ("prompt", prompt_form, lambda: srv.get_prompt("trip", args)),
                ("template", template_form, lambda: srv.read_template(template, variables)),
            )
            for kind, form, direct in turns:
                t0 = time.perf_counter()
                assert form.run() is not None, kind
                await form.wait()
                t1 = time.perf_counter()
                await direct()
                t2 = time.perf_counter()
                assert "Paris" in form.result_text, kind
                if i >= 2:
                    out[kind][0].append((t1 - t0) * 1e3)
                    out[kind][1].append((t2 - t1) * 1e3)
    finally:
        prompt_form.close()
        template_form.close()
    return out


def _run_rows(via: str, target: Any, runs: int) -> list[Row]:
    from mcp_widgets import connect_sync
    from tests.servers.completing import TEMPLATE

    side = f"to result text set, kernel side ({via})"
    names = {
        "prompt": (f"prompt form Run (get) {side}", "await srv.get_prompt"),
        "template": (f"template form Read {side}", "await srv.read_template"),
    }
    try:
        with connect_sync(target, name="bench-run", timeout=30) as srv:
            measured = asyncio.run(_runs(srv, runs, TEMPLATE))
    except Exception as exc:
        return not_measured(GROUP, [name for name, _ in names.values()], exc)
    rows = []
    for kind, (name, baseline_name) in names.items():
        form, direct = measured[kind]
        value = statistics.median(form)
        rows.append(
            Row(
                GROUP,
                name,
                value,
                baseline=statistics.median(direct),
                baseline_name=baseline_name,
                target="< 100 ms",
                ok=value < 100,
                note=f"p90 {statistics.quantiles(form, n=10)[-1]:.1f} ms",
            )
        )
    return rows


async def _after_given_up(srv: Any, runs: int) -> tuple[list[float], list[float]]:
    """A keystroke's suggestions after one given up on with a long answer crossing the cancel: its answer
    dropped unparsed (as shipped), and parsed (the threshold raised past it), alternating."""
    from mcp_widgets.client import unparsed

    ask = srv._completer.asker(prompt="trip")
    shipped = unparsed.UNPARSED_OVER
    out: tuple[list[float], list[float]] = ([], [])
    try:
        for i in range(2 * (runs + 1)):  # one of each to warm up
            dropping = i % 2 == 0
            unparsed.UNPARSED_OVER = shipped if dropping else 1 << 62
            sent = len(srv.wire.messages(method="completion/complete"))
            stale = ask("city", "huge", {})
            while len(srv.wire.messages(method="completion/complete")) == sent:
                await asyncio.sleep(0.001)
            t0 = time.perf_counter()
            stale.cancel()  # the newer keystroke: its request goes out after the cancel
            got = await asyncio.wrap_future(ask("city", "Os", {}))
            took = (time.perf_counter() - t0) * 1e3
            assert got.values, "no suggestions"
            if i >= 2:
                out[0 if dropping else 1].append(took)
    finally:
        unparsed.UNPARSED_OVER = shipped
    return out


def _given_up_row(runs: int) -> list[Row]:
    from mcp_widgets import connect_sync

    name = "keystroke to suggestions after one given up on (its 3 MB answer unparsed), stdio"
    try:
        with connect_sync([sys.executable, str(CROSSING)], name="bench-given-up", timeout=30) as srv:
            dropped, parsed = asyncio.run(_after_given_up(srv, runs))
    except Exception as exc:
        return not_measured(GROUP, [name], exc)
    value, base = statistics.median(dropped), statistics.median(parsed)
    return [
        Row(
            GROUP,
            name,
            value,
            baseline=base,
            baseline_name="the same answer parsed",
            target="< 1×",
            ok=value < base,
            note="both wait for the SDK's reader to assemble the 3 MB line",
        )
    ]


def run(quick: bool) -> list[Row]:
    sys.path.insert(0, str(ROOT))
    from mcp_widgets import connect_sync
    from mcp_widgets.client.completion import FORM_DELAY
    from tests.servers.completing import build_server

    runs = 10 if quick else 60
    rows: list[Row] = []
    for via, target in (("in process", build_server()), ("stdio", [sys.executable, str(SERVER)])):
        name = f"keystroke to suggestions set, kernel side ({via})"
        try:
            with connect_sync(target, name="bench-complete", timeout=30) as srv:
                keyed, direct = asyncio.run(_pairs(srv, runs))
        except Exception as exc:
            rows += not_measured(GROUP, [name], exc)
            continue
        value, base = statistics.median(keyed), statistics.median(direct)
        rows.append(
            Row(
                GROUP,
                name,
                value,
                baseline=base,
                baseline_name="await srv.complete",
                target="< 150 ms",
                ok=value < 150,
                note=f"of which {FORM_DELAY * 1e3:.0f} ms the pause after a keystroke; "
                f"p90 {statistics.quantiles(keyed, n=10)[-1]:.1f} ms",
            )
        )
    for via, target in (("in process", build_server()), ("stdio", [sys.executable, str(SERVER)])):
        rows += _run_rows(via, target, runs)
    rows += _given_up_row(3 if quick else 10)
    return rows
