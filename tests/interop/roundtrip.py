"""Round trips of every form shape (shapes.json), shared by the interop tests of each server.

Each test module provides a `server` fixture (a connected `Server` whose `elicit(shape)` tool echoes
{"action", "content", "raw"}) and takes these tests by assignment. A scripted handler fills the real form
and clicks Accept (or Decline / Cancel); "raw" is what our client produced, so JSON types are checked exactly.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from mcp_widgets import handlers
from mcp_widgets.client import Server

SPEC_TYPES = (str, int, float, bool, list)  # what ElicitResult content values may be (lists of strings)


def ask(server: Server, shape: str, answer: dict[str, Any] | str) -> tuple[str, dict[str, Any] | None]:
    """Call the server's `elicit` tool, answering through the form; returns (action, content as sent)."""
    script = handlers.scripted([answer])
    server.handler = script
    result = server.call_tool_sync("elicit", {"shape": shape})
    assert script.remaining == 0
    text = result.content[0].text
    assert not result.is_error, text
    echo = json.loads(text)
    sent = json.loads(echo["raw"])["result"]  # exactly what our client put on the wire
    assert sent["action"] == echo["action"]
    assert sent.get("content") == echo["content"]  # what the server parsed
    for value in (sent.get("content") or {}).values():
        assert isinstance(value, SPEC_TYPES)
        if isinstance(value, list):
            assert all(isinstance(v, str) for v in value)
    return sent["action"], sent.get("content")


def test_every_field_type_round_trips(server: Server) -> None:
    answer = {
        "plain": "hello",
        "email": "ada@example.org",
        "uri": "https://example.org/ada",
        "date": "2026-11-30",
        "datetime": "2026-11-30T12:34:56+00:00",
        "count": 42,
        "ratio": 0.25,
        "agree": True,
        "untitled": "blue",
        "titled": "g",
        "legacy": "green",
        "multi": ["red", "blue"],
        "multi_titled": ["r", "b"],
    }
    action, content = ask(server, "everything", answer)
    assert action == "accept"
    assert content is not None
    moment = content.pop("datetime")
    assert dt.datetime.fromisoformat(moment.replace("Z", "+00:00")) == dt.datetime(
        2026, 11, 30, 12, 34, 56, tzinfo=dt.timezone.utc
    )
    del answer["datetime"]
    assert content == answer
    assert type(content["count"]) is int
    assert type(content["ratio"]) is float
    assert type(content["agree"]) is bool


def test_defaults_are_sent_as_prefilled(server: Server) -> None:
    action, content = ask(server, "defaults", "accept")
    assert action == "accept"
    assert content == {
        "name": "Ada",
        "email": "ada@example.org",
        "date": "2024-02-29",
        "count": 30,
        "ratio": 0.5,
        "agree": True,
        "untitled": "green",
        "titled": "b",
        "legacy": "red",
        "multi": ["red", "blue"],
        "multi_titled": ["g"],
    }
    assert type(content["count"]) is int


def test_optional_fields_left_empty_are_omitted(server: Server) -> None:
    # An empty optional "uri" or "date" sent as "" would break the server's schema (formats are checked).
    action, content = ask(server, "strings", {"plain": "hi", "email": "a@example.org"})
    assert action == "accept"
    assert content == {"plain": "hi", "email": "a@example.org"}


def test_numbers(server: Server) -> None:
    action, content = ask(server, "numbers", {"count": 0, "ratio": 1, "agree": False})
    assert action == "accept"
    assert content is not None
    assert content == {"count": 0, "ratio": 1, "agree": False}
    assert type(content["count"]) is int
    assert type(content["agree"]) is bool


def test_enum_shapes_send_values_not_titles(server: Server) -> None:
    answer = {"untitled": "red", "titled": "b", "legacy": "blue", "multi": ["green"], "multi_titled": []}
    action, content = ask(server, "enums", answer)
    assert action == "accept"
    del answer["multi_titled"]  # an optional multi-select left empty is omitted, like other empty fields
    assert content == answer


@pytest.mark.parametrize("verb", ["decline", "cancel"])
def test_decline_and_cancel_round_trip(server: Server, verb: str) -> None:
    action, content = ask(server, "everything", verb)
    assert action == verb
    assert content is None
