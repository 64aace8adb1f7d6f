"""`srv.fn` in a real kernel (#31): completion and `?` through the kernel's own complete_request and
inspect_request, and `await` / `.sync` in cells."""

from __future__ import annotations

import re

import pytest

from .harness import KernelFrontend

pytestmark = pytest.mark.kernel

SETUP = """
import mcp_widgets as mw
from mcp_widgets.demo import create_server
srv = mw.connect_sync(create_server())
"""


def test_completion_inspection_and_calls(frontend: KernelFrontend) -> None:
    cell = frontend.run(SETUP, timeout=60)
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
