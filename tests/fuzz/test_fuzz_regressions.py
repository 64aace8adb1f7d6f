"""Defects the fuzzer found, each as its smallest reproduction (named after what must hold)."""

from __future__ import annotations

import pytest

from mcp_widgets import ServerError, connect_sync
from tests.servers.hostile import build_server

pytestmark = pytest.mark.usefixtures("clean_client")

OK = {"end": {"kind": "return", "text": "still here"}}


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
