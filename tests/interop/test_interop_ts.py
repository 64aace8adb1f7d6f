"""Interop with a server written with the TypeScript SDK (tests/interop/server.mjs), over stdio and HTTP.

The server asks for every field type and all five enum shapes (shapes.json). Its SDK validates accepted
content against the schema (ajv, formats checked) and echoes both the parsed content and the raw JSON-RPC
response as it arrived, so the exact JSON types on the wire are checked (30 and 30.0 are the same number to
JavaScript, not to these tests). The round trips themselves are in roundtrip.py.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from collections.abc import Iterator
from typing import Any

import pytest

from mcp_widgets import handlers
from mcp_widgets import kernel as _bridge
from mcp_widgets.client import Server, connect_sync
from mcp_widgets.core.exceptions import ConnectError
from mcp_widgets.core.outcome import Action, Reason
from mcp_widgets.core.requests import pending_requests
from tests.interop import roundtrip
from tests.interop.nodejs import HERE, SDK, node_or_skip
from tests.servers.launch import serving

SERVER = HERE / "server.mjs"


@pytest.fixture(scope="module", params=["stdio", "http"])
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    node = node_or_skip(SDK)
    if request.param == "stdio":
        connected = connect_sync([node, str(SERVER), "stdio"], name="ts", timeout=60)
        try:
            yield connected
        finally:
            connected.close()
        return
    with serving([node, str(SERVER), "http", "0"], "the TypeScript server") as (port, _proc):
        url = f"http://127.0.0.1:{port}/mcp"
        with connect_sync(url, name="ts", timeout=60, transport="http") as connected:
            yield connected


def test_negotiates_2025_11_25(server: Server) -> None:
    # The TypeScript SDK speaks 2025-11-25 at most: the auto mode falls back to it.
    assert server.protocol_version == "2025-11-25"
    assert server.declared_name == "ts-interop-server"
    assert [t.name for t in server.tools] == ["elicit", "elicit_url"]


test_every_field_type_round_trips = roundtrip.test_every_field_type_round_trips
test_defaults_are_sent_as_prefilled = roundtrip.test_defaults_are_sent_as_prefilled
test_optional_fields_left_empty_are_omitted = roundtrip.test_optional_fields_left_empty_are_omitted
test_numbers = roundtrip.test_numbers
test_enum_shapes_send_values_not_titles = roundtrip.test_enum_shapes_send_values_not_titles
test_decline_and_cancel_round_trip = roundtrip.test_decline_and_cancel_round_trip


def test_server_withdraws_a_pending_form(server: Server) -> None:
    # Nobody answers; the TypeScript SDK's request timeout sends notifications/cancelled, which ends the form.
    cards: list[Any] = []

    async def leave_it_open(card: Any) -> None:
        cards.append(card)
        await card.wait()

    server.handler = leave_it_open
    result = asyncio.run(server.call_tool("elicit", {"shape": "numbers", "timeout_ms": 1000}))
    assert result.is_error
    assert "timed out" in result.content[0].text
    assert cards, "the form was never handed to the handler"
    (card,) = cards
    # Without a kernel, posted callbacks only run inside a wait: give the withdrawal one to land in.
    ended: concurrent.futures.Future[None] = concurrent.futures.Future()
    card.add_done_callback(lambda _card: ended.set_result(None))
    _bridge.wait_sync(ended, timeout=60)
    assert card.outcome.action == Action.CANCEL
    assert card.outcome.reason == Reason.WITHDRAWN
    assert not [r for r in pending_requests() if r.server == server.name]


def test_url_mode_request_is_answered(server: Server) -> None:
    # The client declares URL mode, so the TypeScript SDK sends it; a declining handler answers it.
    server.handler = handlers.decline
    result = server.call_tool_sync("elicit_url", {})
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == {"action": "decline"}


def test_a_node_script_with_a_generic_file_name_is_named_by_the_server() -> None:
    # `node …/server.mjs` (`index.js`, `main.js`, …): the file name says nothing, the server's own name does.
    node = node_or_skip(SDK)
    with connect_sync([node, str(SERVER), "stdio"], timeout=60) as srv:
        assert srv.declared_name == "ts-interop-server"
        assert srv.name == "ts-interop-server"
    with connect_sync([node, str(SERVER), "stdio"], name="mine", timeout=60) as srv:
        assert srv.name == "mine"  # a name given is kept


def test_a_node_server_that_fails_to_start_says_why(tmp_path: Any) -> None:
    """Node prints its stack frames and the error's fields after "Error: Cannot find module": the connect
    error's stderr tail still has that line."""
    node = node_or_skip()
    with pytest.raises(ConnectError) as info:
        connect_sync([node, str(tmp_path / "missing.js")], timeout=30)
    text = str(info.value)
    assert "Cannot find module" in text and "missing.js" in text, text
    assert "    at " not in text  # the frames say where, not why
