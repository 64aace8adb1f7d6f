"""`%mcp` in real kernels: load the extension, connect to the demo over stdio, call a tool whose form the
test answers as the browser would, look at the listings, and make a mistake."""

from __future__ import annotations

import json

import pytest

from .harness import KernelFrontend
from .test_client_kernel import ok, pending_form

pytestmark = [pytest.mark.kernel, pytest.mark.one_per_mechanism]

SETUP = """
import sys
import mcp_widgets.client as mwc
mwc.questions.answering.LOOK_GRACE = 30  # the test frontend may be slow to report a view on a loaded machine
%load_ext mcp_widgets
%mcp connect demo {sys.executable} -m mcp_widgets.demo
"""

SCHEMA = {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}, "required": ["name"]}


def test_magics_connect_call_and_list(frontend: KernelFrontend) -> None:
    cell = ok(frontend.run(SETUP, timeout=180))
    assert "connected to 'mcp-widgets-demo'" in cell.stdout and "stored as demo" in cell.stdout

    # The call's form appears while the magic's cell waits; the person answers; the result is the output.
    # (Where exactly the form is displayed is tested in test_client_kernel.py: a magic calls the same code.)
    msg_id = frontend.execute(
        f"%mcp call demo.echo_elicit requested_schema={json.dumps(SCHEMA)} message='Who?'"
    )
    form = pending_form(frontend).seen()
    assert not frontend.cells[msg_id].done
    form.type("Name *", "Ada").click("Accept")
    cell = ok(frontend.wait_cell(msg_id, timeout=60))
    shown = [data["text/plain"] for data in cell.results if "text/plain" in data]
    # The result reads as one (not the SDK's repr): its structured content as indented JSON.
    assert any("Structured content:" in text and '"name": "Ada"' in text for text in shown), shown

    # Listings display as HTML tables.
    cell = ok(frontend.run("%mcp tools"))
    assert any(">echo_elicit</td>" in data.get("text/html", "") for data in cell.results)
    cell = ok(frontend.run("%mcp info"))
    assert any("mcp-widgets-demo" in data.get("text/html", "") for data in cell.results)

    # A mistake is one line, not a traceback.
    cell = frontend.run("%mcp tools nobody")
    assert (cell.status, cell.ename) == ("error", "UsageError")
    assert "nobody holds nothing, not a server" in cell.evalue
    assert not any("Traceback" in line or "File " in line for line in cell.traceback)

    ok(frontend.run("%mcp close demo"))
