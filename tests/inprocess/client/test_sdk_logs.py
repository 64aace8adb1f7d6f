"""What the SDK logs of a server's input quotes nothing typed (#40): a careless server prints the answer on
stdout, or sends it as a notification's params; the SDK logs each failure to parse it (its traceback quotes
the line), and in a kernel that record lands in the cell's stderr. Its loggers redact what was typed in
every open server's calls in flight and its last ended ones, as ours do.

The answer is typed into the form by a handler acting as the person (`card.fill`, `card.accept`), against
tests/servers/careless.py over stdio (raw JSON-RPC) and over streamable HTTP (the SDK's server).
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import pytest

from mcp_widgets import connect_sync
from mcp_widgets.core.redaction import REDACTED
from tests.servers import SERVERS
from tests.servers.launch import serving

CARELESS = SERVERS / "careless.py"
CANARY = "Zoé-canary-4711"

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(120)]

SDK_SAYS = {
    "print": "Failed to parse JSONRPC message from server",
    "params": "Failed to parse JSONRPC message from server",
    "progress": "Failed to validate notification",
}


async def person(card: Any) -> None:
    """Types the canary into the form and accepts it, as a person would."""
    card.fill(name=CANARY)
    card.accept()


def _everything(records: list[logging.LogRecord]) -> str:
    """Every record as a handler writes it (message, traceback, stack)."""
    return "\n".join(logging.Formatter("%(name)s %(message)s").format(r) for r in records)


def _leaks(text: str) -> bool:
    low = text.lower()
    return any(v.lower() in low for v in (CANARY, CANARY.encode("unicode_escape").decode(), "canary-4711"))


@pytest.mark.parametrize("how", list(SDK_SAYS))
def test_the_sdks_record_of_a_line_it_could_not_parse_quotes_nothing_typed(
    how: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, ours at DEBUG too
    with connect_sync([sys.executable, str(CARELESS)], name="careless", handler=person, mode="legacy") as srv:
        assert srv.call_tool_sync("ask", {"how": how}).content[0].text == "ok"
        srv.call_tool_sync("ask", {"how": "none"})  # the line before was read: the server answers in order
    text = _everything(caplog.records)
    assert SDK_SAYS[how] in text  # the SDK did log it: this test looks where the leak was
    assert REDACTED in text
    assert not _leaks(text), text[-3000:]


def test_over_streamable_http_the_sdks_record_quotes_nothing_typed(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with serving([sys.executable, str(CARELESS), "http"], "the careless HTTP server") as (port, _):
        url = f"http://127.0.0.1:{port}/mcp"
        with connect_sync(url, name="careless", handler=person, mode="legacy") as srv:
            assert srv.call_tool_sync("ask", {"how": "progress"}).content[0].text == "ok"
            srv.call_tool_sync("ask", {"how": "none"})
    text = _everything(caplog.records)
    assert SDK_SAYS["progress"] in text
    assert "Sending client message" in text  # at DEBUG the SDK logs the answer it sends: redacted too
    assert not _leaks(text), text[-3000:]
