"""In marimo's own runtime (no IPython kernel): marimo is recognised, and a question that arrives while a
cell waits for its call is declined at once, the cell saying so in one line (marimo hands no widget message
to a running cell, so nobody could ever answer it there)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.marimo_rig import ROOT, notebook, run_notebook
from tests.servers.launch import serving

pytestmark = pytest.mark.kernel

CONNECT = f"""
srv = await mw.connect([{sys.executable!r}, "-m", "mcp_widgets.demo"], name="demo")
"""

LINE = (
    "mcp-widgets: 'demo' asked a question while this cell ran, and marimo delivers no click to a running cell"
)


def test_marimo_is_recognised_and_an_awaited_or_blocking_question_declined_in_one_line(
    tmp_path: Path,
) -> None:
    page = run_notebook(
        notebook(
            "import mcp_widgets as mw",
            CONNECT,
            """
from mcp_widgets import kernel
print("recognised:", kernel.in_marimo(), kernel.kernel_support())
""",
            """
awaited = await srv.call_tool("register")
print("awaited:", awaited.structured_content)
""",
            """
blocked = srv.call_tool_sync("register")
print("blocked:", blocked.structured_content)
""",
            """
print("no question:", sorted((await srv.call_tool("list_files")).structured_content))
""",
        ),
        tmp_path,
    )
    assert "recognised: True none" in page
    # Both calls ran and came back declined; each cell said why once, with the style that can be answered.
    assert page.count(LINE) == 2, page.count(LINE)
    assert page.count("start the call with srv.call_tool_background(...)") == 2
    for style in ("awaited", "blocked"):
        assert f"{style}: {{'done': False, 'action': 'decline'}}" in page
    assert "no question: ['files', 'trash']" in page  # a call that asks nothing runs as anywhere


def test_composed_displays_show_their_text_in_marimo_never_the_not_supported_box(tmp_path: Path) -> None:
    page = run_notebook(
        notebook(
            """
import mcp_widgets as mw
mw.preview({"type": "object", "properties": {"name": {"type": "string"}}}, server="Preview <b>x</b>")
""",
            CONNECT + "srv",
            'srv.form("weather")',
            "srv.explore()",
            "mw.history()",
        ),
        tmp_path,
    )
    # Each composed one is the cell's output as plain text (escaped by marimo, never HTML), with the line
    # saying why; the preview is its form (one anywidget) over its lines as marimo's plain text.
    note = "(shown as text: marimo renders only anywidgets, and this view is not one yet)"
    assert page.count(note) == 2, page.count(note)  # the tool form and the explorer: the history renders
    unescaped = page.replace("\\u003C", "<").replace("\\u003E", ">")
    assert '{"text/plain": "<ToolForm tool=\'weather\'' in unescaped
    assert "No problems found in this schema." in page and "preview.sent_json(" in page
    assert "<Explorer " in page.replace("\\u003C", "<") and "<HistoryPanel " not in page.replace(
        "\\u003C", "<"
    )
    assert "mcp_widgets.HistoryPanel" in page  # the history: its one anywidget
    assert "application/vnd.jupyter.widget-view+json" not in page  # what marimo's yellow box is drawn for


def test_a_sign_in_that_needs_a_click_while_connect_runs_is_refused_in_one_line(tmp_path: Path) -> None:
    script = ROOT / "tests" / "servers" / "oauth_quick.py"
    with serving([sys.executable, str(script)], "the OAuth server") as (port, _):
        page = run_notebook(
            notebook(
                "import mcp_widgets as mw",
                f"""
try:
    await mw.connect("http://127.0.0.1:{port}/mcp", name="guarded")
except Exception as exc:
    print("connect raised:", type(exc).__name__)
""",
            ),
            tmp_path,
        )
    line = (
        "mcp-widgets: signing in to 'guarded' needs a click on its card, and marimo delivers no click to a "
        "running cell: the sign-in was refused"
    )
    assert page.count(line) == 1, page.count(line)
    assert "connect raised: SignInError" in page
