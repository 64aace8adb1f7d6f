"""A cell ending in `srv` in a real kernel: its output is the explorer (a widget view) whose plain text is
the server's repr (what a saved notebook, GitHub and nbconvert show); opening Tools and a tool's form works
as the browser drives it."""

from __future__ import annotations

import pytest

from .harness import CellResult, KernelFrontend

pytestmark = [pytest.mark.kernel, pytest.mark.one_per_mechanism]

SETUP = """
import sys
sys.path.insert(0, {root!r})
from tests.servers.explored import build_server
import mcp_widgets.client as mwc
srv = mwc.connect_sync(build_server(200), mode="legacy")
print(repr(srv))
"""

VIEW = "application/vnd.jupyter.widget-view+json"


def ok(cell: CellResult) -> CellResult:
    assert cell.status == "ok", (cell.ename, cell.evalue, cell.stderr[-3000:])
    return cell


def test_a_cell_ending_in_srv_shows_the_explorer_and_keeps_the_text(frontend: KernelFrontend) -> None:
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])
    text = ok(frontend.run(SETUP.format(root=root), timeout=180)).stdout.strip()
    assert text.startswith("<Server 'explored'") and "200 tools" in text
    cell = ok(frontend.run("srv", timeout=60))
    assert len(cell.results) == 1, cell.results
    shown = cell.results[0]
    assert shown["text/plain"] == text  # the saved notebook keeps today's text
    kinds = [m["msg_type"] for m in frontend.iopub_log if m["parent_header"].get("msg_id") == cell.msg_id]
    assert "execute_result" in kinds and "display_data" not in kinds  # still the cell's result (Out[n])
    model_id = shown[VIEW]["model_id"]
    explorer = frontend.wait_widget("VBoxModel", where=lambda w: w.comm_id == model_id, timeout=30)
    assert "mcp-widgets-explorer" in explorer.state["_dom_classes"]
    assert not any(w.model_name == "SelectModel" for w in frontend.widgets.values())  # Tools not built

    nav = frontend.wait_widget(
        "ToggleButtonsModel",
        where=lambda w: "mcp-widgets-explorer-nav" in w.state["_dom_classes"],
        timeout=30,
    )
    assert nav.state["_options_labels"][0] == "Tools (200)"
    frontend.update(nav, {"index": 0})  # the browser's click on "Tools"
    tools = frontend.wait_widget("SelectModel", timeout=30)
    assert len(tools.state["_options_labels"]) == 200
    frontend.update(tools, {"index": 5})
    button = frontend.wait_widget(
        "ButtonModel", where=lambda w: "mcp-widgets-explorer-open" in w.state["_dom_classes"], timeout=30
    )
    frontend.click(button)
    frontend.wait_widget(
        "VBoxModel", where=lambda w: "mcp-widgets-tool-form" in w.state["_dom_classes"], timeout=30
    )
    ok(frontend.run("srv.close()", timeout=60))
    ended = ok(frontend.run("srv", timeout=60))
    assert [set(r) for r in ended.results] == [{"text/plain"}]  # a closed server: its text only
    assert ended.results[0]["text/plain"].endswith("closed>")
