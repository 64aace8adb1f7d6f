"""Completions (`completion/complete`) against a server written with the TypeScript SDK's high-level
`McpServer` (tests/interop/complete_server.mjs), over stdio and streamable HTTP. The SDK speaks 2025-11-25
at most, so that is the generation these run on. Its prompt's arguments use `completable()` and its resource
template's variables have completers; the second of each (`name`) narrows by the first (`department`), which
the client sends as `context.arguments`. Checked through `srv.complete(...)` and the prompt and template
forms' suggestions."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from mcp_widgets.client import Server, connect_sync
from mcp_widgets.core.completion import Completion
from tests.interop import team_completions as team
from tests.interop.nodejs import HERE, SDK, node_or_skip
from tests.servers.launch import serving

SERVER = HERE / "complete_server.mjs"
pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(90)]


@pytest.fixture(scope="module", params=["stdio", "http"])
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    node = node_or_skip(SDK)
    if request.param == "stdio":
        with connect_sync([node, str(SERVER), "stdio"], name="ts", timeout=60) as connected:
            yield connected
        return
    with serving([node, str(SERVER), "http", "0"], "the TypeScript server") as (port, _proc):
        url = f"http://127.0.0.1:{port}/mcp"
        with connect_sync(url, name="ts", timeout=60, transport="http") as connected:
            yield connected


def test_speaks_2025_11_25(server: Server) -> None:
    assert server.protocol_version == "2025-11-25"
    assert server.declared_name == "ts-complete-server"


def test_a_completable_prompt_argument_completes(server: Server) -> None:
    got = asyncio.run(server.complete(prompt="team-greeting", argument="department", value="S"))
    assert got.values == ["Sales", "Support"]
    everyone = server.complete_sync(prompt="team-greeting", argument="name", value="")
    assert len(everyone.values) == 7


def test_the_other_arguments_narrow_as_context(server: Server) -> None:
    got = server.complete_sync(
        prompt="team-greeting", argument="name", value="", context={"department": "Engineering"}
    )
    assert got == Completion(values=["Alice", "Bob", "Charlie"], total=3, has_more=False)


def test_a_template_variable_completes_narrowed_by_the_other(server: Server) -> None:
    team.template_variables_narrow(server)


def test_the_prompt_form_offers_departments_then_names_in_one(server: Server) -> None:
    team.prompt_form_offers_departments_then_names(server)


def test_the_template_form_offers_names_of_the_department(server: Server) -> None:
    team.template_form_offers_names_of_the_department(server)
