"""Progress and logs of a call in real kernels: live widgets while it runs, one text display when it ends.

The demo's `long_task` reports progress and logs each step. The test reads what a frontend receives: the
call's display (made with a display id when the call starts), the widget updates while it runs (comm
messages), and the `update_display_data` that turns the display into text when it ends.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import KernelFrontend
from .test_client_kernel import RESET as CLIENT_RESET
from .test_client_kernel import VIEW, ok

# One kernel per release serves the module's cases (`reuse_kernel`: a case that fails or leaves it unclean
# gets a fresh one): what they test happens after the kernel's first moments.
pytestmark = [pytest.mark.kernel, pytest.mark.reuse_kernel, pytest.mark.one_per_mechanism]
RESET = CLIENT_RESET

SETUP = """
import mcp_widgets.client as mwc
from mcp_widgets.demo import create_server
srv = mwc.connect_sync(create_server(), name="demo", mode={mode!r}, log_level="debug")
print("connected", srv.protocol_version)
"""
ARGS = "'long_task', {'seconds': 1.5, 'steps': 5}"
CALLS = {
    "await": f"r = await srv.call_tool({ARGS})\nprint(r.structured_content)",
    "sync": f"r = srv.call_tool_sync({ARGS})\nprint(r.structured_content)",
}
DONE = [
    "Progress: done — step 5 of 5 (100%)",
    "Log (7 messages):",
    "  [info] demo: starting 5 steps over 1.5 s",
    *(f"  [debug] demo: finished step {i}" for i in range(1, 6)),
    "  [info] demo: all steps done",
]


def messages(fe: KernelFrontend, kind: str) -> list[dict[str, Any]]:
    return [m for m in list(fe.iopub_log) if m["msg_type"] == kind]


def display_id(msg: dict[str, Any]) -> str | None:
    return msg["content"].get("transient", {}).get("display_id")


def updates_of(fe: KernelFrontend, ident: str) -> list[dict[str, Any]]:
    """The bundles `update_display_data` sent for one display id, in order."""
    return [m["content"]["data"] for m in messages(fe, "update_display_data") if display_id(m) == ident]


def state_updates(fe: KernelFrontend, comm_id: str) -> list[dict[str, Any]]:
    """The state changes the kernel sent for one widget model, in order."""
    return [
        m["content"]["data"]["state"]
        for m in messages(fe, "comm_msg")
        if m["content"]["comm_id"] == comm_id and m["content"]["data"].get("method") == "update"
    ]


def opened_during(fe: KernelFrontend, start: int) -> list[dict[str, Any]]:
    """comm_open messages of widget models after iopub message number `start`."""
    return [
        m
        for m in list(fe.iopub_log)[start:]
        if m["msg_type"] == "comm_open" and m["content"].get("target_name") == "jupyter.widget"
    ]


def closed_ids(fe: KernelFrontend) -> set[str]:
    return {m["content"]["comm_id"] for m in messages(fe, "comm_close")}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("style", list(CALLS))
def test_long_task_shows_progress_and_log_then_text(frontend: KernelFrontend, style: str, mode: str) -> None:
    ok(frontend.run(SETUP.format(mode=mode), timeout=180))
    start = len(frontend.iopub_log)
    msg_id = frontend.execute(CALLS[style])
    cell = ok(frontend.wait_cell(msg_id, timeout=90))
    assert cell.stdout == "{'done': True, 'steps': 5}\n"
    frontend.settle(0.5)  # the closing update may follow the reply

    # The call's display: made by the calling cell, empty until there was something to show.
    (shown,) = [m for m in messages(frontend, "display_data") if m["parent_header"].get("msg_id") == msg_id]
    ident = display_id(shown)
    assert ident and shown["content"]["data"] == {"text/plain": ""}
    updates = updates_of(frontend, ident)
    assert VIEW in updates[0], "the live line replaced the empty display"
    final = updates[-1]
    assert VIEW not in final and final["text/plain"].splitlines() == DONE
    assert "<details>" in final["text/html"]

    # While it ran, in the call's line (one model): a bar that moved forward, a line with the server's
    # message, a log that grew.
    opened = opened_during(frontend, start)
    by_name = {m["content"]["data"]["state"]["_model_name"]: m["content"]["comm_id"] for m in opened}
    line = state_updates(frontend, by_name["AnyModel"])
    values = [u["fraction"] for u in line if "fraction" in u]
    assert values == sorted(values) and values[-1] == 1.0
    logs = [u["log"] for u in line if "log" in u]
    assert logs and any("[debug] demo: finished step" in text for text in logs[-1])
    lines = [u["progress"] for u in line if "progress" in u]
    assert any(text.startswith("step ") and text.endswith("%)") for text in lines)  # "step 2 of 5 (40%)"
    assert not {"FloatProgressModel", "TextareaModel", "AccordionModel", "VBoxModel", "LabelModel"} & set(
        by_name
    )

    # Nothing of the call stays alive but the process-wide shared Layout and Style models.
    own = [
        m["content"]["comm_id"]
        for m in opened
        if not m["content"]["data"]["state"]["_model_name"].endswith(("LayoutModel", "StyleModel"))
    ]
    # A model younger than LOAD_GRACE closes in the page once it is that old (see kernel.comms).
    assert own
    frontend.wait_until(lambda: set(own) <= closed_ids(frontend), timeout=10, what="the call's models closed")


def test_background_call_status_ends_as_text(frontend: KernelFrontend) -> None:
    ok(frontend.run(SETUP.format(mode="auto"), timeout=180))
    calling = frontend.execute("call = srv.call_tool_background('long_task', {'seconds': 1, 'steps': 2})")
    ok(frontend.wait_cell(calling, timeout=60))
    handle_cell = ok(frontend.run("call")).msg_id  # the handle shown in another cell than the call's display
    cells = (calling, handle_cell)
    shown = [m for m in messages(frontend, "display_data") if m["parent_header"].get("msg_id") in cells]
    # The call's display and the handle's display, both plain text (no widget for a status line).
    assert [m["content"]["data"]["text/plain"] for m in shown] == ["tool 'long_task' on 'demo': running"] * 2
    cell = ok(frontend.run("print(call.result().structured_content, call.state)", timeout=60))
    assert cell.stdout == "{'done': True, 'steps': 2} done\n"
    frontend.settle(0.5)
    call_display, handle_display = (display_id(m) for m in shown)
    assert handle_display == f"{call_display}-status"
    status = updates_of(frontend, handle_display)[-1]["text/plain"]
    assert status == "tool 'long_task' on 'demo': done"  # one line: the result is under it, not in it
    final = updates_of(frontend, call_display)[-1]["text/plain"].splitlines()
    assert final[:2] == ["Progress: done — step 2 of 2 (100%)", status]
    assert "Structured content:" in final and '  "done": true,' in final  # the result, readable
