"""A value typed in one of a server's last 32 calls (of those in which something was typed) is redacted from
what it sends later; the 33rd-oldest is not (docs/privacy.md, docs/wire.md): measured at the edge, against a
raw JSON-RPC server over stdio that logs every value it was answered, in a later call."""

from __future__ import annotations

import json
import logging
import sys

import pytest

from mcp_widgets import connect_sync, handlers
from mcp_widgets.core.redaction import REDACTED
from tests.servers import SERVERS

RAW = [sys.executable, str(SERVERS / "rawrpc.py")]
KEPT = 32
"""The figure docs/privacy.md gives."""
SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(180)]


def test_the_last_32_calls_values_are_redacted_and_the_33rd_oldest_is_not(
    caplog: pytest.LogCaptureFixture,
) -> None:
    values = [f"zq{i:02d}wx" for i in range(KEPT + 1)]  # none is part of another
    answers = handlers.scripted([{"name": v} for v in values])
    with (
        caplog.at_level(logging.INFO, logger="mcp_widgets"),
        connect_sync(RAW, name="late", handler=answers, mode="legacy") as srv,
    ):
        for i in range(len(values)):
            ops = [
                {"op": "elicit", "id": i, "message": "Name?", "schema": SCHEMA},
                {"op": "await", "id": i},
                {"op": "result", "text": "ok"},
            ]
            srv.call_tool_sync("play", {"ops": ops})
        said = "all I was told: " + " ".join(values)  # a later call, in which nothing is typed
        srv.call_tool_sync("play", {"ops": [{"op": "log", "text": said}, {"op": "result", "text": "ok"}]})
        told = [r for r in srv.wire.records(direction="in") if "all I was told" in json.dumps(r)]
        wire = json.dumps(told)
    (line,) = [r.getMessage() for r in caplog.records if "all I was told" in r.getMessage()]
    oldest, *recent = values
    assert oldest in line  # the 33rd-oldest call's value: no longer remembered
    assert not any(v in line for v in recent) and line.count(REDACTED) == KEPT, line
    assert len(told) == 1 and oldest in wire and not any(v in wire for v in recent), wire  # the same rule
