"""Defects the fuzzer found, each as its smallest reproduction (named after what must hold)."""

from __future__ import annotations

import pytest

from mcp_widgets import ServerError, connect_sync, handlers
from tests.servers.hostile import build_server
from tests.test_secrets import everything_in, leaks

pytestmark = pytest.mark.usefixtures("clean_client")

OK = {"end": {"kind": "return", "text": "still here"}}
CANARY = "Cnry-long-71c2"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_servers_own_error_with_code_32000_leaves_the_connection_usable(mode: str) -> None:
    """-32000 opens JSON-RPC's server-error range; only the SDK's own "Connection closed" means gone.

    Found by test_fuzz_inproc: `{"end": {"kind": "error", "code": -32000}}` made the client report "the
    server disconnected" and refuse every later call, with the server alive.
    """
    with connect_sync(build_server(), name=f"e32000-{mode}", mode=mode) as srv:
        with pytest.raises(ServerError) as info:
            srv.call_tool_sync("play", {"script": {"end": {"kind": "error", "code": -32000, "text": "busy"}}})
        assert "busy (code -32000)" in str(info.value)
        assert srv.connected
        assert srv.call_tool_sync("play", {"script": OK}).content[0].text == "still here"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_an_answer_quoted_past_the_shortened_error_message_is_not_chained(mode: str) -> None:
    """The error we raise shows a server's message cut at 2000 characters; an answer quoted after the cut
    was not redacted (nothing to redact in what we show) and the server's own error, quoting it, was chained.

    Found by test_fuzz_inproc: `"<script>…" * 2000` followed by the typed name.
    """
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    end = {"kind": "error", "text": "x" * 3000, "echo": "plain"}
    script = {"asks": [{"message": "Name?", "schema": schema}], "end": end}
    answers = handlers.scripted([{"a": CANARY}])
    srv = connect_sync(build_server(), name=f"long-{mode}", handler=answers, mode=mode)
    with srv, pytest.raises(ServerError) as info:
        srv.call_tool_sync("play", {"script": script})
    assert "xxxx" in str(info.value)  # the server's message, shortened
    assert leaks(everything_in(info.value), [CANARY]) == []
