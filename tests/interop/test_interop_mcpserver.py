"""Interop with the Python SDK's `MCPServer` (tests/interop/mcpserver.py) on both protocol generations.

2026-07-28: the server answers with input-required rounds and the client calls again with the answer.
2025-11-25 (mode="legacy"): the server sends elicitation/create mid-call. Same forms and round trips as the
TypeScript server (roundtrip.py), plus a question asked through a `Resolve` dependency.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from mcp_widgets import handlers
from mcp_widgets.client import Server, ServerError, connect_sync
from tests.interop import roundtrip
from tests.interop.mcpserver import build_server

GENERATIONS = {"2026-07-28": "auto", "2025-11-25": "legacy"}


@pytest.fixture(scope="module", params=list(GENERATIONS))
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    connected = connect_sync(build_server(), name="py", mode=GENERATIONS[request.param], timeout=60)
    try:
        assert connected.protocol_version == request.param
        yield connected
    finally:
        connected.close()


test_every_field_type_round_trips = roundtrip.test_every_field_type_round_trips
test_defaults_are_sent_as_prefilled = roundtrip.test_defaults_are_sent_as_prefilled
test_optional_fields_left_empty_are_omitted = roundtrip.test_optional_fields_left_empty_are_omitted
test_numbers = roundtrip.test_numbers
test_enum_shapes_send_values_not_titles = roundtrip.test_enum_shapes_send_values_not_titles
test_decline_and_cancel_round_trip = roundtrip.test_decline_and_cancel_round_trip


def test_resolve_dependency_gets_the_form_values(server: Server) -> None:
    server.handler = handlers.scripted([{"name": "Ada", "age": 41, "color": "blue"}])
    result = server.call_tool_sync("profile", {})
    assert not result.is_error, result.content
    profile = json.loads(result.content[0].text)
    assert profile == {"name": "Ada", "age": 41, "ratio": 0.5, "color": "blue", "subscribe": False}


def test_resolve_dependency_declined(server: Server) -> None:
    server.handler = handlers.scripted(["decline"])
    try:
        result = server.call_tool_sync("profile", {})
    except ServerError as exc:  # how a server reports a declined resolver is its choice
        assert "decline" in str(exc)
        return
    assert result.is_error
    assert "decline" in result.content[0].text
