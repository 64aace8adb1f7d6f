"""In a real kernel, the SDK's record of a server line it could not parse quotes nothing typed (#40).

A careless server (tests/servers/careless.py, over stdio) prints the answer it got on stdout, sends it as a
notification's params, and as a malformed progress notification. The SDK logs each failure with its
traceback, which quotes the line; with no logging set up, Python writes it to the kernel's stderr, that is
into a cell's output and the saved notebook. The answer is typed into the form by a handler acting as the
person (`card.fill`, `card.accept`).
"""

from __future__ import annotations

import json

import pytest

from tests.inprocess.client.test_sdk_logs import CANARY

from .harness import KernelFrontend

pytestmark = [pytest.mark.kernel, pytest.mark.one_per_mechanism]

OUTPUTS = ("display_data", "update_display_data", "execute_result", "stream", "error")
"""What a notebook saves of a cell (the cell's own code, which types the canary, aside)."""

CELL = """
import sys
import mcp_widgets

async def person(card):
    card.fill(name={canary!r})
    card.accept()

srv = mcp_widgets.connect_sync([sys.executable, "tests/servers/careless.py"], name="careless", mode="legacy",
                               handler=person)
for how in ("print", "params", "progress", "none"):
    print(how, srv.call_tool_sync("ask", {{"how": how}}).content[0].text)
srv.close()
"""


def test_the_cells_stderr_quotes_nothing_typed(frontend: KernelFrontend) -> None:
    msg_id = frontend.execute(CELL.format(canary=CANARY))
    cell = frontend.wait_cell(msg_id, timeout=180)
    assert cell.status == "ok", (cell.evalue, cell.stderr[-2000:])
    assert cell.stdout.splitlines() == ["print ok", "params ok", "progress ok", "none ok"]
    frontend.settle(0.5)
    printed = frontend.printed()  # every stream, under any parent: the client thread's too
    assert "Failed to parse JSONRPC message from server" in printed  # the SDK wrote it to the cell
    assert "Failed to validate notification" in printed
    kept = [m["content"] for m in list(frontend.iopub_log) if m["msg_type"] in OUTPUTS]  # not the code
    outputs = json.dumps(kept, ensure_ascii=False)
    assert "canary-4711" not in outputs.lower(), printed[-3000:]
