"""The fastmcp adapter, called the way a fastmcp Client calls its elicitation handler.

fastmcp itself is not installed here (it is an optional extra): the handler is driven directly with the
SDK's own request parameters, which carry the same fields.
"""

from __future__ import annotations

import asyncio
from typing import Any

import mcp_types
import pytest

from mcp_widgets import handlers
from mcp_widgets._exceptions import SchemaError
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


def test_url_requests_are_declined() -> None:
    url = mcp_types.ElicitRequestURLParams(message="Sign in", url="https://example.com", elicitation_id="1")
    assert asyncio.run(elicitation_handler(server="w")("Sign in", None, url, None)).action == "decline"


def test_invalid_schema_raises() -> None:
    with pytest.raises(SchemaError):
        call(elicitation_handler(server="w", handler=handlers.decline), BAD_SCHEMA)
