"""What a saved notebook keeps of a call in a real kernel holds nothing typed (#18).

A server reports progress and logs quoting the answer it was sent (tests/servers/echoing.py). The call's
display ends as plain text (the call's closing text), which is what a notebook saves as the cell's output:
neither it nor any other output of the cell may quote the answer, in any escape or letter case.
"""

from __future__ import annotations

import json

import pytest

from tests.inprocess.client.test_secrets import ANSWER, leaks

from .harness import KernelFrontend

pytestmark = [pytest.mark.kernel, pytest.mark.one_per_mechanism]

SETUP = """
import mcp_widgets
from mcp_widgets import handlers
from tests.servers.echoing import build_server
answers = handlers.scripted([{answer!r}])
srv = mcp_widgets.connect_sync(build_server(), name="echo", mode={mode!r}, handler=answers)
print("connected", srv.protocol_version)
"""
OUTPUTS = ("display_data", "update_display_data", "execute_result", "stream", "error")


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_closing_text_a_notebook_saves_quotes_no_answer(frontend: KernelFrontend, mode: str) -> None:
    cell = frontend.run(SETUP.format(mode=mode, answer=ANSWER), timeout=180)
    assert cell.status == "ok" and "connected" in cell.stdout, (cell.evalue, cell.stderr[-2000:])
    msg_id = frontend.execute("r = await srv.call_tool('progress')\nprint(r.content[0].text)")
    cell = frontend.wait_cell(msg_id, timeout=90)
    assert cell.status == "ok" and cell.stdout == "ok\n", (cell.evalue, cell.stderr[-2000:])
    frontend.settle(0.5)  # the closing update may follow the reply
    outputs = [
        m["content"]
        for m in list(frontend.iopub_log)
        if m["msg_type"] in OUTPUTS and m["parent_header"].get("msg_id") == msg_id
    ]
    texts = [str(o["data"].get("text/plain", "")) for o in outputs if "data" in o]
    final = [text for text in texts if "Progress: done" in text]
    assert final, "the call never ended as text"
    assert "checked [redacted] (2/2, 100%)" in final[-1]
    assert leaks(json.dumps(outputs, ensure_ascii=False)) == []
