"""A server that never stops asking is stopped (`max_questions`), on both generations and over stdio.

Public API only (these tests also run against older checkouts, where they must fail).
"""

from __future__ import annotations

import sys
import time

import pytest

from mcp_widgets import ConnectionClosedError, MCPWidgetsError, connect_sync, handlers
from tests.servers import SERVERS
from tests.servers.runaway import build_server

RUNAWAY = SERVERS / "runaway.py"
MODES = ["auto", "legacy"]


def _stopped(error: BaseException) -> None:
    """A TooManyQuestions of ours, naming the bound and the setting."""
    assert type(error).__name__ == "TooManyQuestions"
    assert isinstance(error, MCPWidgetsError)
    assert "max_questions" in str(error)


@pytest.mark.parametrize("mode", MODES)
def test_a_server_asking_forever_is_stopped_at_the_call_bound(mode: str) -> None:
    with connect_sync(build_server(), handler=handlers.accept_defaults, mode=mode) as srv:
        with pytest.raises(MCPWidgetsError) as caught:
            srv.call_tool_sync("ask")
        _stopped(caught.value)
        assert "100" in str(caught.value)
        # The connection survives: a fair call afterwards works.
        assert srv.call_tool_sync("ask", {"count": 3}).content[0].text == "asked 3"


@pytest.mark.parametrize("mode", MODES)
def test_the_call_bound_is_a_setting(mode: str) -> None:
    with connect_sync(build_server(), handler=handlers.accept_defaults, mode=mode, max_questions=5) as srv:
        assert srv.call_tool_sync("ask", {"count": 5}).content[0].text == "asked 5"
        with pytest.raises(MCPWidgetsError) as caught:
            srv.call_tool_sync("ask", {"count": 6})
        _stopped(caught.value)
        assert "5" in str(caught.value)


@pytest.mark.parametrize("mode", MODES)
def test_too_many_questions_at_once_are_refused(mode: str) -> None:
    with connect_sync(build_server(), handler=handlers.accept_defaults, mode=mode) as srv:
        assert srv.call_tool_sync("ask_at_once", {"count": 20}).content[0].text == "asked 20"
        with pytest.raises(MCPWidgetsError) as caught:
            srv.call_tool_sync("ask_at_once", {"count": 10_000})
        _stopped(caught.value)
        assert "20" in str(caught.value)


def test_the_pair_sets_both_bounds() -> None:
    with connect_sync(build_server(), handler=handlers.accept_defaults, max_questions=(50, 3)) as srv:
        assert srv.call_tool_sync("ask_at_once", {"count": 3}).content[0].text == "asked 3"
        with pytest.raises(MCPWidgetsError) as caught:
            srv.call_tool_sync("ask_at_once", {"count": 4})
        _stopped(caught.value)
        with pytest.raises(ValueError):
            connect_sync(build_server(), max_questions=0)


def test_input_required_forever_raises_ours_naming_the_setting() -> None:
    with connect_sync(build_server(), handler=handlers.accept_defaults, max_questions=4) as srv:
        with pytest.raises(MCPWidgetsError) as caught:
            srv.call_tool_sync("stall")
        _stopped(caught.value)
        assert "input-required" in str(caught.value)
        assert "input_required_max_rounds" not in str(caught.value)  # not a setting connect() offers


@pytest.mark.parametrize("mode", MODES)
def test_over_stdio(mode: str) -> None:
    target = [sys.executable, str(RUNAWAY)]
    with connect_sync(target, handler=handlers.accept_defaults, mode=mode, max_questions=10) as srv:
        with pytest.raises(MCPWidgetsError) as caught:
            srv.call_tool_sync("ask")
        _stopped(caught.value)
        assert srv.call_tool_sync("ask", {"count": 2}).content[0].text == "asked 2"


@pytest.mark.parametrize("mode", MODES)
def test_close_ends_a_call_in_flight(mode: str) -> None:
    srv = connect_sync(build_server(), mode=mode)
    call = srv.call_tool_background("sleep", {"seconds": 20})
    time.sleep(0.3)  # the call reached the server
    srv.close()
    with pytest.raises(ConnectionClosedError):
        call.result(timeout=30)  # an upper bound only: a call outliving close would return "slept"
