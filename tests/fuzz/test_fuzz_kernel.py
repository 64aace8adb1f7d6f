"""Hostile scripts in a real kernel: afterwards the kernel still runs a cell, and no widget model is left."""

from __future__ import annotations

import json
import sys

import pytest

from tests.inprocess.client.test_secrets import leaks
from tests.kernel.harness import KernelFrontend

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]

CANARY = "Cnry-kernel-3b9d"
TEXT = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
ASK = [{"message": "\x1b[31m$5\u202e<b>" * 500, "schema": TEXT}]
SCRIPTS = [
    {
        "asks": ASK,
        "steps": [{"do": "progress", "text": "p", "echo": "upper"}],
        "end": {"kind": "error", "text": "y" * 3000, "echo": "plain"},
    },
    {
        "asks": ASK,
        "steps": [{"do": "log", "text": "l", "echo": "json", "related": False}],
        "end": {"kind": "return", "text": "r", "echo": "html"},
    },
    {"asks": [{"message": "junk", "schema": {"type": "object", "properties": {"x": {"type": "object"}}}}]},
    {"asks": [{"message": "m", "schema": "not a schema"}], "end": {"kind": "raise", "text": "boom"}},
    {"asks": ASK, "end": {"kind": "error", "code": -32000, "text": "busy", "echo": "url"}},
]
CELL = """
import ipywidgets as w, mcp_widgets
from mcp_widgets import handlers
from tests.servers.hostile import build_server
answers = handlers.scripted([{answer!r}] * 9)
srv = mcp_widgets.connect_sync(build_server(), name="k", mode={mode!r}, handler=answers)
ended = []
for script in {scripts!r}:
    try:
        ended.append(type(srv.call_tool_sync("play", {{"script": script}})).__name__)
    except mcp_widgets.MCPWidgetsError as exc:
        ended.append(type(exc).__name__ + ": " + str(exc)[:80])
srv.close()
print(ended)
"""
COUNT = """
import warnings
warnings.simplefilter("ignore")
shared = ("Layout", "Style")
kinds = [type(m).__name__ for m in w.Widget.widgets.values()]
print("live", sorted(kind for kind in kinds if not kind.endswith(shared)))
print(6 * 7)
"""


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_hostile_scripts_leave_a_usable_kernel_and_no_widget_models(mode: str) -> None:
    """The newest ipykernel only (tests/kernel covers the older ones); the five scripts in one cell."""
    with KernelFrontend(sys.executable) as frontend:
        _check(frontend, mode)


def _check(frontend: KernelFrontend, mode: str) -> None:
    cell = frontend.run(CELL.format(mode=mode, answer={"a": CANARY}, scripts=SCRIPTS), timeout=240)
    assert cell.status == "ok", (cell.evalue, cell.stderr[-2000:])
    shown = json.dumps([cell.stdout, cell.stderr, cell.results], ensure_ascii=False)
    assert leaks(shown, [CANARY]) == [], "the cell's output quotes the answer"
    after = frontend.run(COUNT, timeout=60)
    assert after.status == "ok", after.evalue
    assert "live []" in after.stdout and "42" in after.stdout, after.stdout
