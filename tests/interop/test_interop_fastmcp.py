"""Interop with a fastmcp server asking with `ctx.elicit` (tests/interop/fastmcp_server.py), stdio and HTTP.

`ctx.elicit` needs the 2025-11-25 generation (mode="legacy"). A scripted handler fills the real form that
fastmcp's schema produced and clicks Accept / Decline / Cancel; the tool echoes what fastmcp handed it after
validating the answer against its own Python type.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from mcp_widgets import handlers
from mcp_widgets.client import Server, connect_sync
from tests.interop.nodejs import HERE
from tests.servers.launch import serving

pytest.importorskip("fastmcp", reason="fastmcp is not installed (pip install -e '.[test]')")

SERVER = HERE / "fastmcp_server.py"


@pytest.fixture(scope="module", params=["stdio", "http"])
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    if request.param == "stdio":
        connected = connect_sync([sys.executable, str(SERVER), "stdio"], mode="legacy", timeout=60)
        try:
            yield connected
        finally:
            connected.close()
        return
    with serving([sys.executable, str(SERVER), "http"], "the fastmcp server") as (port, _proc):
        url = f"http://127.0.0.1:{port}/mcp"
        with connect_sync(url, mode="legacy", timeout=60, transport="http") as connected:
            yield connected


def ask(server: Server, tool: str, answer: dict[str, Any] | str) -> dict[str, Any]:
    script = handlers.scripted([answer])
    server.handler = script
    result = server.call_tool_sync(tool, {})
    assert script.remaining == 0
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


def test_connects_on_2025_11_25(server: Server) -> None:
    assert server.protocol_version == "2025-11-25"
    assert server.declared_name == "fastmcp-interop"


def test_model(server: Server) -> None:
    answer = {"name": "Ada", "age": 36, "height": 1.7, "member": True, "color": "blue"}
    echo = ask(server, "person", answer)
    assert echo == {"action": "accept", "data": {**answer, "nickname": "Ada"}}


def test_model_defaults(server: Server) -> None:
    echo = ask(server, "person", {"name": "Bo", "age": 0, "height": 2})
    assert echo["data"] == {
        "name": "Bo",
        "age": 0,
        "height": 2,
        "member": False,
        "color": "green",
        "nickname": "Ada",
    }


@pytest.mark.parametrize(
    ("tool", "value"),
    [
        ("pick", "green"),
        ("pick_titled", "g"),
        ("pick_many", ["red", "blue"]),
        ("pick_many_titled", ["b"]),
        ("count", 7),
        ("confirm", True),
    ],
)
def test_shorthand_forms(server: Server, tool: str, value: Any) -> None:
    assert ask(server, tool, {"value": value}) == {"action": "accept", "data": value}


@pytest.mark.parametrize("verb", ["decline", "cancel"])
def test_decline_and_cancel(server: Server, verb: str) -> None:
    assert ask(server, "person", verb) == {"action": verb, "data": None}
