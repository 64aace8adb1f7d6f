"""`srv.fn` in a real kernel (#31): completion and `?` through the kernel's own complete_request and
inspect_request, and `await` / `.sync` in cells."""

from __future__ import annotations

import json
import re

import pytest

from .harness import KernelFrontend

pytestmark = [pytest.mark.kernel, pytest.mark.one_per_mechanism]

SETUP = """
import mcp_widgets as mw
from mcp_widgets.demo import create_server
srv = mw.connect_sync(create_server())
"""


def test_completion_inspection_and_calls(frontend: KernelFrontend) -> None:
    cell = frontend.run(SETUP, timeout=180)
    assert cell.status == "ok", cell.evalue

    code = "srv.fn.search_f"
    completion = frontend.complete(code, len(code))
    reply = frontend.wait_reply(completion)
    assert reply["status"] == "ok"
    assert any(m.endswith("search_files") for m in reply["matches"]), reply["matches"]

    code = "srv.fn."
    reply = frontend.wait_reply(frontend.complete(code, len(code)))
    assert {"search_files", "weather", "register"} <= {m.rsplit(".", 1)[-1] for m in reply["matches"]}

    code = "srv.fn.search_files"
    asked = frontend.client.inspect(code, len(code), detail_level=0)
    reply = frontend.wait_reply(asked)
    assert reply["status"] == "ok" and reply["found"]
    text = re.sub(r"\x1b\[[0-9;]*m", "", reply["data"]["text/plain"])  # IPython colours it
    assert "search_files(" in text and "query: str" in text and "limit: int = 10" in text
    assert "A glob or part of a name" in text and "Search the simulated files" in text

    cell = frontend.run('found = await srv.fn.search_files("*.tmp", limit=1)\nprint(len(found["matches"]))')
    assert cell.status == "ok" and cell.stdout == "1\n", (cell.evalue, cell.stdout)
    cell = frontend.run('print(srv.fn.search_files.sync("*.tmp", limit=2)["total"] >= 1)')
    assert cell.status == "ok" and cell.stdout == "True\n", cell.evalue
    cell = frontend.run('srv.fn.search_files.sync("x", limit=0)')
    assert cell.ename == "ValueError" and "argument 'limit': must be at least 1" in (cell.evalue or "")
    frontend.run("srv.close()")


AWKWARD = """
import mcp_widgets as mw
from tests.servers.awkward_names import build_server
srv = mw.connect_sync(build_server())
"""

RAW = ("\x1b", "\x9b", "\x9d", "\u202e", "\u202c")
"""An escape (ESC, CSI, OSC) or a bidi control: none may reach the pager."""


def test_awkward_names_display_and_help_in_a_kernel(frontend: KernelFrontend) -> None:
    """A cell ending in `srv.fn` shows the listing (a tool named `_ipython_display_` once made it show
    nothing and warn of a coroutine never awaited), and `?` shows server text literally (#40, #41)."""
    cell = frontend.run(AWKWARD, timeout=60)
    assert cell.status == "ok", cell.evalue

    cell = frontend.run("import gc\nsrv.fn")
    assert cell.status == "ok", (cell.evalue, cell.traceback)
    shown = cell.results[-1]["text/plain"]
    assert shown.startswith("<tools of 'awkward-names' as functions:\n  _by_tool() -> str\n")
    assert "tool_ipython_display_() -> str  # tool '_ipython_display_'" in shown
    assert cell.stderr == "", cell.stderr
    cell = frontend.run(
        "gc.collect()\nprint(hasattr(srv.fn, '_ipython_display_'), len(srv.fn), srv.fn._server.sync())"
    )
    assert cell.status == "ok" and cell.stderr == "", (cell.evalue, cell.stderr)  # nothing left unawaited
    assert cell.stdout == 'False 17 {"arguments": {}, "tool": "_server"}\n', cell.stdout

    # `?` through the kernel's inspect_request, colours off so that any ESC left would be the server's
    assert frontend.run("%colors nocolor").status == "ok"
    code = "srv.fn.hostile"
    reply = frontend.wait_reply(frontend.client.inspect(code, len(code), detail_level=0))
    assert reply["status"] == "ok" and reply["found"]
    for mime, text in reply["data"].items():
        assert not any(c in text for c in RAW), (mime, text)
    text = reply["data"]["text/plain"]
    assert r"\x1b]8;;https://evil.example/\x1b\the docs" in text and r"\x1b[8mhidden" in text
    assert r"\x1b[2J" in text and "U+202EesreverU+202C." in text
    assert r"when: A time \x1b[31mred\x1b[0m U+202Eworb. Optional." in text
    assert r"colour: Literal['\x1b[31mred', '\u202eblue'] = '\x1b[31mred'" in text  # the signature too

    # `fn["<Tab>` completes the tools' own names (IPython evaluates a name, not a property, to complete)
    assert frontend.run("fn = srv.fn").status == "ok"
    code = 'fn["get-w'
    reply = frontend.wait_reply(frontend.complete(code, len(code)))
    assert reply["status"] == "ok" and any("get-weather" in m for m in reply["matches"]), reply["matches"]

    # and the pager's payload, as `srv.fn.hostile?` in a cell makes it
    cell = frontend.run(
        "import json\n"
        "ip = get_ipython()\n"
        "ip.payload_manager.clear_payload()\n"
        "ip.run_line_magic('pinfo', 'srv.fn.hostile')\n"
        "paged = ip.payload_manager.read_payload()\n"
        "ip.payload_manager.clear_payload()\n"
        "print(json.dumps(paged))"
    )
    assert cell.status == "ok", cell.evalue
    paged = json.loads(cell.stdout)
    assert paged and paged[0]["source"] == "page", paged
    for mime, text in paged[0]["data"].items():
        assert not any(c in text for c in RAW), (mime, text)
        if mime == "text/plain":
            assert "U+202EesreverU+202C." in text and r"\x1b[2J" in text
    frontend.run("srv.close()")
