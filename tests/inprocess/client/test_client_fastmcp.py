"""The fastmcp adapter: driven directly with the SDK's request parameters (which carry the fields fastmcp
passes), and once through fastmcp's own Client against a fastmcp server (fastmcp is in the test extra).
"""

from __future__ import annotations

import asyncio
import builtins
import json
from typing import Any

import mcp_types
import pytest

from mcp_widgets import handlers
from mcp_widgets.client import console
from mcp_widgets.core.exceptions import SchemaError
from mcp_widgets.fastmcp import elicitation_handler
from tests.servers.demo import BAD_SCHEMA, NAME_SCHEMA


def params(schema: dict[str, Any]) -> mcp_types.ElicitRequestFormParams:
    return mcp_types.ElicitRequestFormParams(message="Name?", requested_schema=schema)


def call(handle: Any, schema: dict[str, Any]) -> Any:
    return asyncio.run(handle("Name?", dict, params(schema), None))


def test_accept_returns_the_content() -> None:
    handle = elicitation_handler(server="weather", handler=handlers.scripted([{"name": "Ada"}]))
    assert call(handle, NAME_SCHEMA) == {"name": "Ada"}


@pytest.mark.parametrize("answer", ["decline", "cancel"])
def test_decline_and_cancel(answer: str) -> None:
    handle = elicitation_handler(server="weather", handler=handlers.scripted([answer]))
    result = call(handle, NAME_SCHEMA)
    assert (result.action, result.content) == (answer, None)


def test_headless_without_handler_declines() -> None:
    assert call(elicitation_handler(server="weather"), NAME_SCHEMA).action == "decline"


def test_on_a_terminal_the_person_answers_on_the_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """The adapter answers on the client's one path: without a notebook, a terminal asks, field by field."""
    lines = iter(["", "Eve"])
    monkeypatch.delenv("MCP_WIDGETS_HANDLER", raising=False)
    monkeypatch.setattr(console, "available", lambda: True)
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(lines))
    monkeypatch.setattr(builtins, "print", lambda *a, **k: None)
    assert call(elicitation_handler(server="weather"), NAME_SCHEMA) == {"name": "Eve"}


def test_url_requests_are_declined() -> None:
    url = mcp_types.ElicitRequestURLParams(message="Sign in", url="https://example.com", elicitation_id="1")
    assert asyncio.run(elicitation_handler(server="w")("Sign in", None, url, None)).action == "decline"


def test_invalid_schema_raises() -> None:
    with pytest.raises(SchemaError):
        call(elicitation_handler(server="w", handler=handlers.decline), BAD_SCHEMA)


def test_a_real_fastmcp_client_answers_through_our_form() -> None:
    """fastmcp's own Client, in-process against a fastmcp server that asks with `ctx.elicit` (2025-11-25)."""
    fastmcp = pytest.importorskip("fastmcp")
    from tests.interop.fastmcp_server import build_server

    seen: list[Any] = []

    async def person(card: Any) -> None:
        seen.append(card)
        card.fill(name="Ada", age=36, height=1.7)
        card.accept()

    handle = elicitation_handler(server="fastmcp-interop", handler=person)

    async def scenario() -> str:
        async with fastmcp.Client(build_server(), elicitation_handler=handle, mode="legacy") as client:
            result = await client.call_tool("person", {})
            return str(result.content[0].text)

    answer = json.loads(asyncio.run(scenario()))
    (form,) = seen
    assert form.server == "fastmcp-interop" and form.outcome.action == "accept"
    assert answer["action"] == "accept"
    assert answer["data"] == {
        "name": "Ada",
        "age": 36,
        "height": 1.7,
        "member": False,
        "color": "green",
        "nickname": "Ada",
    }
