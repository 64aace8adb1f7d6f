"""Completions (`completion/complete`) against a fastmcp server (tests/interop/fastmcp_server.py, its single
`@server.completion` handler) over stdio and streamable HTTP, on both protocol generations: the prompt
`team-greeting` and the template `team://{department}/{name}`, whose `name` narrows by the `department` the
client sends as context. Checked through `srv.complete(...)` and the prompt and template forms' suggestions.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator

import pytest

from mcp_widgets.client import Server, connect_sync
from mcp_widgets.core.completion import Completion
from tests.interop import team_completions as team
from tests.interop.nodejs import HERE
from tests.servers.launch import serving

pytest.importorskip("fastmcp", reason="fastmcp is not installed (pip install -e '.[test]')")

SERVER = HERE / "fastmcp_server.py"
GENERATION = {"auto": "2026-07-28", "legacy": "2025-11-25"}
pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(90)]


@pytest.fixture(scope="module", params=["stdio-auto", "stdio-legacy", "http-auto", "http-legacy"])
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    transport, mode = request.param.split("-")
    if transport == "stdio":
        with connect_sync([sys.executable, str(SERVER), "stdio"], mode=mode, timeout=60) as connected:
            assert connected.protocol_version == GENERATION[mode]
            yield connected
        return
    with serving([sys.executable, str(SERVER), "http"], "the fastmcp server") as (port, _proc):
        url = f"http://127.0.0.1:{port}/mcp"
        with connect_sync(url, mode=mode, timeout=60, transport="http") as connected:
            assert connected.protocol_version == GENERATION[mode]
            yield connected


def test_a_prompt_argument_completes(server: Server) -> None:
    got = asyncio.run(server.complete(prompt="team-greeting", argument="department", value="S"))
    assert got.values == ["Sales", "Support"]
    assert len(server.complete_sync(prompt="team-greeting", argument="name", value="").values) == 7


def test_the_other_arguments_narrow_as_context(server: Server) -> None:
    got = server.complete_sync(
        prompt="team-greeting", argument="name", value="", context={"department": "Engineering"}
    )
    assert got == Completion(values=["Alice", "Bob", "Charlie"], total=None, has_more=False)


def test_a_template_variable_completes_narrowed_by_the_other(server: Server) -> None:
    team.template_variables_narrow(server)


def test_the_prompt_form_offers_departments_then_names_in_one(server: Server) -> None:
    team.prompt_form_offers_departments_then_names(server)


def test_the_template_form_offers_names_of_the_department(server: Server) -> None:
    team.template_form_offers_names_of_the_department(server)
