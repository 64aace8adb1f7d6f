"""`client.unparsed.answered_id`: the id a raw stdio line answers, read from its head or tail only, and never
taken from a request, a notification or a string inside the message (a line it cannot tell is parsed)."""

from __future__ import annotations

import json

import pytest

from mcp_widgets.client.unparsed import answered_id

BIG = {"completion": {"values": ['x", "id": 9}'] * 3}}


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"jsonrpc": "2.0", "id": 7, "result": BIG}, 7),
        ({"id": 7, "jsonrpc": "2.0", "result": BIG}, 7),
        ({"jsonrpc": "2.0", "id": 8, "error": {"code": 1, "message": "no"}}, 8),
        ({"result": BIG, "jsonrpc": "2.0", "id": 12}, 12),  # the TypeScript SDK's order
        ({"result": {"a": {"id": 3}}, "jsonrpc": "2.0", "id": 12}, 12),
        ({"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": BIG}, None),  # a request
        ({"method": "x", "params": {"result": 1}, "jsonrpc": "2.0", "id": 4}, None),
        ({"result": {"tail": '", "id": 5}'}, "jsonrpc": "2.0", "id": "s1"}, None),  # a string id: not ours
        ({"result": {"id": 5}}, None),  # the id inside the result is no answer's id
        ({"jsonrpc": "2.0", "result": BIG, "id": 6}, None),  # not found in the head or tail: parsed
    ],
)
def test_the_id_a_line_answers(body: dict[str, object], expected: int | None) -> None:
    for line in (json.dumps(body), json.dumps(body, separators=(",", ":"))):
        assert answered_id(line) == expected, line
