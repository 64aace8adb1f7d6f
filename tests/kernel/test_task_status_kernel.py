"""A task's status messages quoting the answer, in a real kernel (#33): nothing typed in what iopub carried
(outputs, display updates, widget comm traffic) nor in the widget state a notebook would save.

The server (tests/servers/tasks2026.py, in-process in the kernel) quotes the name it was sent in its task's
status messages while working and when it ends completed, failed or cancelled.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.inprocess.client.test_secrets import leaks

from .harness import KernelFrontend

pytestmark = [pytest.mark.kernel, pytest.mark.one_per_mechanism]

CANARY = "Zoé-Canary-4711"
SETUP = f"""
import ipywidgets, json
import mcp_widgets
from mcp_widgets import handlers
from tests.servers.tasks2026 import build_server
server, ext = build_server()
answers = handlers.scripted([{{"name": {CANARY!r}}}] * 3)
srv = mcp_widgets.connect_sync(server, name="t33-kernel", handler=answers)
print("connected", srv.protocol_version)
"""
CALLS = """
for end in ("completed", "failed", "cancelled"):
    try:
        await srv.call_tool("ask_then_echo", {"end": end})
        print(end, "returned")
    except mcp_widgets.MCPWidgetsError as exc:
        print(end, type(exc).__name__, "redacted" if "[redacted]" in str(exc) else "")
"""


def test_task_status_messages_reach_neither_iopub_nor_saved_widget_state(frontend: KernelFrontend) -> None:
    cell = frontend.run(SETUP, timeout=180)
    assert cell.status == "ok" and "connected 2026-07-28" in cell.stdout, (cell.evalue, cell.stderr[-2000:])
    msg_id = frontend.execute(CALLS)
    cell = frontend.wait_cell(msg_id, timeout=90)
    assert cell.status == "ok", (cell.evalue, cell.stderr[-2000:])
    assert cell.stdout.split("\n")[:3] == [
        "completed returned",
        "failed ServerError redacted",
        "cancelled ServerError redacted",
    ]
    frontend.settle(0.5)  # the closing updates may follow the reply

    # All iopub traffic but the echo of the setup cell's code (which types the canary itself) and the form's
    # own fields taking what was filled while it is open (the one-model form's {"values": ...} message to its
    # page, as `echo_update` was for stock fields: docs/privacy.md: a pending form keeps what is on screen; it
    # is closed once answered, and its state never holds it, as the saved state below shows).
    def on_screen(content: dict[str, Any]) -> bool:
        data = content.get("data", {})
        sent = data.get("content") if data.get("method") == "custom" else None
        return data.get("method") == "echo_update" or (
            isinstance(sent, dict) and set(sent) <= {"values", "except"}
        )

    traffic = [
        m["content"]
        for m in frontend.iopub_log
        if m["msg_type"] != "execute_input" and not on_screen(m["content"])
    ]
    iopub = json.dumps(traffic, ensure_ascii=False)
    assert "you said [redacted]" in iopub  # the server did quote it: in the status lines and closing text
    assert leaks(iopub, [CANARY]) == []
    assert leaks(json.dumps([m.state for m in frontend.widgets.values()], ensure_ascii=False), [CANARY]) == []
    saved = frontend.run("print(json.dumps(ipywidgets.Widget.get_manager_state(), default=str))", timeout=60)
    assert saved.status == "ok" and saved.stdout.startswith("{")
    assert leaks(saved.stdout, [CANARY]) == []
