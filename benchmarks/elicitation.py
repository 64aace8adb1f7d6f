"""Elicitation overhead: a tool call that elicits once, answered through the real form by a scripted handler,
next to the raw `mcp.Client` answering the same elicitation with an instant callback (their calls take turns,
in blocks, so that a machine whose load changes meanwhile slows both alike).

A form is one widget model (an anywidget holding the card). The same calls inside a real kernel, where the
model and the call's displays are messages to the front end, are measured too, and one question there is
counted: models per question and iopub messages from the call started to the form placed in its cell."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import queue
import statistics
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from ._report import Row, median_ms, not_measured, printed_figures
from .schemas import NAME

GROUP = "elicitation"
ANSWER = {"name": "Ada"}
TARGET_MS = 3.0
KERNEL_TARGET_MS = 4.0


def _args() -> dict[str, Any]:
    return {"requested_schema": NAME, "message": "What is your name?"}


def _check(result: Any) -> None:
    text = result.content[0].text
    if '"accept"' not in text or "Ada" not in text:
        raise RuntimeError("the elicitation was not answered as scripted")


def _medians(walls: list[float], cpus: list[float]) -> tuple[float, float]:
    return statistics.median(walls) * 1e3, statistics.median(cpus) * 1e3


class _Raw:
    """The raw `mcp.Client` with an instant callback, on an event loop of its own that this thread drives
    one block of calls at a time (so its blocks can take turns with ours)."""

    def __init__(self, target: Any, mode: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.requests: asyncio.Queue[tuple[int, asyncio.Future[Any]]] = asyncio.Queue()
        self.task = self.loop.create_task(self._serve(target, mode))

    async def _serve(self, target: Any, mode: str) -> None:
        import mcp_types
        from mcp import Client

        async def answer(_context: Any, _params: Any) -> mcp_types.ElicitResult:
            return mcp_types.ElicitResult(action="accept", content=dict(ANSWER))

        async with Client(target, elicitation_callback=answer, mode=mode) as client:
            while True:
                n, done = await self.requests.get()
                if n == 0:
                    done.set_result(None)
                    return
                walls, cpus, result = [], [], None
                for _ in range(n):
                    start, cpu = time.perf_counter(), time.process_time()
                    result = await client.call_tool("echo_elicit", _args())
                    walls.append(time.perf_counter() - start)
                    cpus.append(time.process_time() - cpu)
                _check(result)
                done.set_result((walls, cpus))

    def block(self, n: int) -> Any:
        done = self.loop.create_future()
        self.requests.put_nowait((n, done))
        self.loop.run_until_complete(asyncio.wait({done, self.task}, return_when=asyncio.FIRST_COMPLETED))
        if not done.done():  # the client failed (or returned early): say why
            self.task.result()
            raise RuntimeError("the raw client stopped")
        return done.result()

    def close(self) -> None:
        try:
            if not self.task.done():
                self.block(0)
                self.loop.run_until_complete(self.task)
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        finally:
            self.loop.close()


class _Threaded:
    """The raw `mcp.Client` on a loop thread of its own, its callback answered on the calling thread: the same
    thread hops as ours (which runs the SDK on a bridge thread so that awaiting, blocking and background calls
    all work, and builds forms on the kernel's main thread), without any widget."""

    def __init__(self, target: Any, mode: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="bench-threaded", daemon=True)
        self.thread.start()
        self.asks: queue.SimpleQueue[concurrent.futures.Future[Any]] = queue.SimpleQueue()
        self.opened: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.serving = asyncio.run_coroutine_threadsafe(self._serve(target, mode), self.loop)
        self.client = self.opened.result(timeout=60)

    async def _serve(self, target: Any, mode: str) -> None:
        import mcp_types
        from mcp import Client

        async def answer(_context: Any, _params: Any) -> mcp_types.ElicitResult:
            asked: concurrent.futures.Future[mcp_types.ElicitResult] = concurrent.futures.Future()
            self.asks.put(asked)
            return await asyncio.wrap_future(asked)

        self.stop = asyncio.Event()
        async with Client(target, elicitation_callback=answer, mode=mode) as client:
            self.opened.set_result(client)
            await self.stop.wait()

    def block(self, n: int) -> tuple[list[float], list[float]]:
        import mcp_types

        walls, cpus, result = [], [], None
        for _ in range(n):
            start, cpu = time.perf_counter(), time.process_time()
            call = asyncio.run_coroutine_threadsafe(self.client.call_tool("echo_elicit", _args()), self.loop)
            self.asks.get(timeout=30).set_result(
                mcp_types.ElicitResult(action="accept", content=dict(ANSWER))
            )
            result = call.result(timeout=30)
            walls.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)
        _check(result)
        return walls, cpus

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        self.serving.result(timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


class _Ours:
    """mcp-widgets' client answering through the real form with a scripted handler, block by block."""

    def __init__(self, target: Any, mode: str, answers: int, **options: Any) -> None:
        from mcp_widgets import handlers
        from mcp_widgets.client import connect_sync

        handler = handlers.scripted([ANSWER] * answers)
        self.srv = connect_sync(target, mode=mode, handler=handler, **{"name": "bench", **options})

    def block(self, n: int) -> tuple[list[float], list[float]]:
        walls, cpus, result = [], [], None
        for _ in range(n):
            start, cpu = time.perf_counter(), time.process_time()
            result = self.srv.call_tool_sync("echo_elicit", _args())
            walls.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)
        _check(result)
        return walls, cpus

    def close(self) -> None:
        self.srv.close()


def side_by_side(fresh: Callable[[], Any], mode: str, runs: int, *, block: int = 10) -> dict[str, float]:
    """Median wall and CPU time (ms) of a tool call eliciting once: raw, raw on a thread ("threaded") and
    ours, their blocks of calls taking turns (the order rotates) so that a change in load hits all alike.

    `added` and `hops` are paired: the median, over rounds, of a round's block median minus the raw block
    median of the same round (a machine whose speed drifts between rounds disturbs them less)."""
    sides: dict[str, Any] = {}
    rounds: list[dict[str, float]] = []
    try:
        sides["raw"] = _Raw(fresh(), mode)
        sides["threaded"] = _Threaded(fresh(), mode)
        sides["ours"] = _Ours(fresh(), mode, answers=runs + block + 3)
        for side in sides.values():
            side.block(3)  # warm up
        got: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in sides}
        names = list(sides)
        for i in range(max(1, runs // block)):
            this_round = {}
            for name in names[i % 3 :] + names[: i % 3]:
                walls, cpus = sides[name].block(block)
                got[name][0].extend(walls)
                got[name][1].extend(cpus)
                this_round[name] = statistics.median(walls)
            rounds.append(this_round)
    finally:
        for side in reversed(sides.values()):
            side.close()
    out = {}
    for name, (walls, cpus) in got.items():
        out[name], out[f"{name}_cpu"] = _medians(walls, cpus)
    for name, paired in (("added", "ours"), ("hops", "threaded")):
        out[name] = statistics.median(r[paired] - r["raw"] for r in rounds) * 1e3
    return out


KERNEL_CELL = """
import statistics, time
import mcp_types
from mcp import Client
from mcp_widgets import handlers
from mcp_widgets.client import connect
from mcp_widgets.demo import create_server

async def _answer(_context, _params):
    return mcp_types.ElicitResult(action="accept", content={ANSWER!r})

async def _bench(runs, block, mode):
    args = {ARGS!r}
    ours = await connect(create_server(), mode=mode, name="bench",
                         handler=handlers.scripted([{ANSWER!r}] * (runs + 3 * block)))
    got = {{"raw": [], "ours": []}}
    async with Client(create_server(), elicitation_callback=_answer, mode=mode) as raw:
        async def one(side):
            start = time.perf_counter()
            if side == "raw":
                await raw.call_tool("echo_elicit", args)
            else:
                await ours.call_tool("echo_elicit", args)
            return time.perf_counter() - start
        for side in ("raw", "ours"):  # warm up
            for _ in range(3):
                await one(side)
        for i in range(max(1, runs // block)):
            for side in ("raw", "ours") if i % 2 == 0 else ("ours", "raw"):
                for _ in range(block):
                    got[side].append(await one(side))
    await ours.aclose()
    print(statistics.median(got["raw"]) * 1e3, statistics.median(got["ours"]) * 1e3)
"""


def in_kernel(mode: str, runs: int, *, bench: str | None = None, grace: float = 30.0) -> tuple[float, float]:
    """Median ms of a tool call eliciting once inside a real kernel (the form displayed in the cell, its
    models sent to a simulated front end), raw and ours, blocks taking turns.

    `bench`: the cell that measures and prints both (default: `_bench` of KERNEL_CELL)."""
    from tests.kernel.harness import KernelFrontend

    setup = KERNEL_CELL.format(ANSWER=ANSWER, ARGS=_args())
    with KernelFrontend(sys.executable) as fe:
        printed_figures(fe, setup, count=0, timeout=120, grace=0)
        code = bench if bench is not None else f"await _bench({runs}, 10, {mode!r})"
        raw, ours = printed_figures(fe, code, count=2, timeout=600, grace=grace)
    return raw, ours


def kernel_rows(mode: str, runs: int, *, bench: str | None = None, grace: float = 30.0) -> list[Row]:
    """The in-kernel rows of one protocol generation; when they cannot be measured, rows that say why."""
    label = "2026-07-28" if mode == "auto" else "2025-11-25"
    once = f"in a kernel {label}: tool call eliciting once"
    added = f"in a kernel {label}: added per elicitation"
    try:
        raw, ours = in_kernel(mode, runs, bench=bench, grace=grace)
    except Exception as exc:
        return not_measured(GROUP, (once, added), exc)
    return [
        Row(
            GROUP,
            once,
            ours,
            baseline=raw,
            baseline_name="raw mcp.Client",
            note="the form shown in the cell: its models go to a simulated front end",
        ),
        Row(
            GROUP,
            added,
            ours - raw,
            target=f"≤ {KERNEL_TARGET_MS:g} ms",
            ok=ours - raw <= KERNEL_TARGET_MS,
            note="one model a question (was 9.7-12 ms with the composed form's ~30 iopub messages)",
        ),
    ]


def _stdio() -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=["-m", "mcp_widgets.demo"])


def run(quick: bool) -> list[Row]:
    from mcp_widgets.demo import create_server
    from mcp_widgets.widgets._form import ElicitationForm

    runs = 15 if quick else 150
    rows: list[Row] = []

    def form_only() -> None:
        form = ElicitationForm.for_handler("What is your name?", NAME, server="bench")  # as the client does
        form.fill(**ANSWER)
        form.accept()

    rows.append(
        Row(
            GROUP,
            "form build + fill + accept (1 field, no MCP)",  # built as for a handler
            median_ms(form_only, runs=runs),
            note=f"the form's share; CPU {median_ms(form_only, runs=runs, clock=time.thread_time):.2f} ms",
        )
    )
    cases = [("in-process", "auto"), ("in-process", "legacy"), ("stdio", "auto")]
    if not quick:
        cases.append(("stdio", "legacy"))
    for where, mode in cases:
        label = "2026-07-28" if mode == "auto" else "2025-11-25"
        names = [f"{where} {label}: {what}" for what in ("tool call eliciting once", "added per elicitation")]
        names.append(f"{where} {label}: of which thread hops")
        try:
            got = side_by_side(create_server if where == "in-process" else _stdio, mode, runs)
        except Exception as exc:
            rows += not_measured(GROUP, names, exc)
            continue
        raw, raw_cpu, ours, ours_cpu = got["raw"], got["raw_cpu"], got["ours"], got["ours_cpu"]
        rows.append(
            Row(
                GROUP,
                names[0],
                ours,
                baseline=raw,
                baseline_name="raw mcp.Client",
                note=f"CPU {ours_cpu:.2f} ms vs {raw_cpu:.2f} ms (this process, every thread)",
            )
        )
        rows.append(
            Row(
                GROUP,
                names[1],
                got["added"],
                target=f"≤ {TARGET_MS:g} ms",
                ok=got["added"] <= TARGET_MS,
                note=f"paired by round; CPU added {ours_cpu - raw_cpu:.2f} ms",
            )
        )
        rows.append(
            Row(
                GROUP,
                names[2],
                got["hops"],
                note="the raw client on a thread of its own, answered on the calling thread (no widgets)",
            )
        )
    for mode in ("auto",) if quick else ("auto", "legacy"):
        rows += kernel_rows(mode, runs)
    rows += question_rows()
    rows.append(url_card_row())
    rows.append(signin_card_row())
    rows.append(inputs_card_row())
    return rows


def models_per_step(make: Callable[[], Any], *steps: Callable[[Any], object]) -> list[int]:
    """The widget models a card opens when made, then after each step (in this process: the card's models are
    the same in a kernel). A first card made and closed beforehand makes the process's shared Layout."""
    from ipywidgets.widgets.widget import _instances

    make().close()
    before = set(_instances)
    shown = make()
    counts = [len(set(_instances) - before)]
    for step in steps:
        step(shown)
        counts.append(len(set(_instances) - before))
    shown.close()
    return counts


def _models_row(name: str, counts: list[int], note: str) -> Row:
    return Row(GROUP, name, counts[0], unit="models", target="1", ok=set(counts) == {1}, note=note)


def url_card_row() -> Row:
    """The widget models one URL card opens: pending, then consented and ended."""
    from mcp_widgets.widgets import UrlCard

    counts = models_per_step(
        lambda: UrlCard("Sign in, please.", "https://auth.example.com/connect?x=1", server="bench"),
        lambda card: (card.accept(), card.complete()),
    )
    note = f"{counts[1]} once consented and ended (the composed card: 9, 13 after consent, 3 once ended)"
    return _models_row("URL card: models per card", counts, note)


def signin_card_row() -> Row:
    """The widget models one sign-in card opens: pending, waiting after consent, ended."""
    from mcp_widgets.widgets import SignInCard

    address = (
        "https://auth.example.com/authorize?response_type=code&client_id=bench&state=s&code_challenge=c"
        "&code_challenge_method=S256&redirect_uri=http%3A%2F%2F127.0.0.1%3A5555%2Fcallback&scope=read"
    )
    counts = models_per_step(
        lambda: SignInCard(address, server="bench"), lambda card: card.accept(), lambda card: card.signed_in()
    )
    note = f"{counts[1]} waiting after consent, {counts[2]} once ended (the composed card: 9, 16, 4)"
    return _models_row("sign-in card: models per card", counts, note)


def inputs_card_row() -> Row:
    """The widget models one inputs card (a config's `${input:id}` values: a password and a text) opens."""
    from mcp_widgets.core.mcp_config import ConfigInput
    from mcp_widgets.widgets import InputsCard

    inputs = (ConfigInput("token", password=True), ConfigInput("user"))
    counts = models_per_step(lambda: InputsCard("bench", inputs, "mcp.json"), lambda card: card.submit())
    note = f"{counts[1]} once answered (the composed card: 23, 18 left open once answered)"
    return _models_row("inputs card (2 inputs): models per card", counts, note)


QUIET = {"status", "execute_input", "execute_reply", "stream"}
"""Iopub messages a front end does not draw from (a kernel's status, the echoed code, a print)."""


def question_rows() -> list[Row]:
    """In a real kernel: the widget models one question opens, and the iopub messages from a background
    call started to its form placed in the calling cell (what a front end takes in before the person sees
    it)."""
    names = ("in a kernel: models per question", "in a kernel: iopub messages, call started to form placed")
    try:
        models, others, messages, own = _count_question()
    except Exception as exc:
        return not_measured(GROUP, names, exc)
    return [
        Row(
            GROUP,
            names[0],
            models,
            unit="models",
            target="1",
            ok=models == 1,
            note=f"was 22-33 (composed); the call's own display opened {others} more (its line)",
        ),
        Row(
            GROUP,
            names[1],
            messages,
            unit="messages",
            target="≤ 5",
            ok=messages <= 5,
            note=f"was ~30 (composed), 9-10 with the call's box; from the question's model on: {own} (its "
            "model, then the call's line opened naming it and shown); before it the call's status as text",
        ),
    ]


def _count_question() -> tuple[int, int]:
    from tests.kernel.harness import KernelFrontend
    from tests.kernel.test_client_kernel import FORM_ID, connect, ok, pending_form, shown_in

    with KernelFrontend(sys.executable) as fe:
        connect(fe)
        ok(fe.run("call = srv.call_tool_background('ask_name')"))  # warm up: the first question of a kernel
        first = pending_form(fe)
        fe.send_custom(first.model, {"press": "decline"})
        fe.wait_until(lambda: bool(first.model.state.get("closing_line")), timeout=60, what="warm-up ended")
        fe.settle(0.5)
        mark = len(fe.iopub_log)
        cell = ok(fe.run("call = srv.call_tool_background('ask_name')"))
        form = pending_form(fe)
        fe.wait_until(lambda: shown_in(cell, form.model.comm_id, fe), timeout=60, what="the form placed")
        fe.settle(0.2)
        log = list(fe.iopub_log)[mark:]
        placed = _placed_at(log, form.model.comm_id)
        counted = [m for m in log[: placed + 1] if m["msg_type"] not in QUIET]
        opens_form = [
            i
            for i, m in enumerate(log)
            if m["msg_type"] == "comm_open" and m["content"]["comm_id"] == form.model.comm_id
        ]
        own = len([m for m in log[opens_form[0] : placed + 1] if m["msg_type"] not in QUIET])
        opened = [m["content"]["data"]["state"] for m in log if m["msg_type"] == "comm_open"]
        models = sum(1 for state in opened if state.get("_anywidget_id") == FORM_ID)
        fe.send_custom(form.model, {"press": "decline"})
        fe.wait_until(lambda: bool(form.model.state.get("closing_line")), timeout=60, what="the form ended")
    return models, len(opened) - models, len(counted), own


def _view_of(message: dict[str, Any]) -> str:
    """The model id a display message shows ("" when it shows no widget)."""
    view = message["content"].get("data", {}).get("application/vnd.jupyter.widget-view+json", {})
    return str(view.get("model_id", "")) if isinstance(view, dict) else ""


def _placed_at(log: list[dict[str, Any]], form_id: str) -> int:
    """Where in `log` the form became visible in its cell: displayed itself, or named in the state of a model
    (the call's line) once that model is displayed too, whichever of the two came later."""
    ref = f"IPY_MODEL_{form_id}"
    displays = ("display_data", "update_display_data")
    for i, m in enumerate(log):
        if m["msg_type"] in displays and _view_of(m) == form_id:
            return i
        if m["msg_type"] in ("comm_open", "comm_msg") and ref in json.dumps(
            m["content"].get("data", {}).get("state", {})
        ):
            holder = m["content"]["comm_id"]
            return max(
                i, next(j for j, d in enumerate(log) if d["msg_type"] in displays and _view_of(d) == holder)
            )
    raise LookupError("the form was never placed")
