"""2026-07-28 rounds that expire, in plain python, against a real server over stdio
(`tests/servers/expiring.py`: the SDK's own request-state sealing with a lifetime of a second).

A late answer ends the call with `AnswerExpired` (one line, nothing chained), the history says "expired"
(not "accepted"), and calling again asks the same question with what was typed already in the form.
"""

from __future__ import annotations

import concurrent.futures
import json
import sys
import threading
from collections.abc import Generator
from typing import Any

import pytest

from mcp_widgets import ServerError, connect_sync
from mcp_widgets.core.exceptions import AnswerExpired
from mcp_widgets.core.history import default_history
from tests.servers import SERVERS

SERVER = SERVERS / "expiring.py"


class _Later:
    """What a handler may await inside a blocking call: a plain future, set after `seconds`."""

    def __init__(self, seconds: float) -> None:
        self.future: concurrent.futures.Future[None] = concurrent.futures.Future()
        timer = threading.Timer(seconds, self.future.set_result, [None])
        timer.daemon = True
        timer.start()

    def __await__(self) -> Generator[Any, None, None]:
        yield self.future


def _history(server: str) -> list[dict[str, Any]]:
    return sorted((r for r in default_history().records() if r["server"] == server), key=lambda r: r["id"])


def test_a_late_answer_expires_and_asking_again_keeps_what_was_typed() -> None:
    secret = "Ada-7f3k"
    seen: list[str] = []

    async def person(card: Any) -> None:
        seen.append(card.message)
        if len(seen) == 1:  # types, then answers after the server stopped keeping the question
            card.fill(name=secret, guests=3)
            await _Later(1.6)
        card.accept()  # the second time: as the form shows it, nothing typed again

    with connect_sync([sys.executable, str(SERVER), "1"], name="expiring", handler=person) as srv:
        assert srv.protocol_version == "2026-07-28"
        with pytest.raises(AnswerExpired) as caught:
            srv.call_tool_sync("book")
        error = caught.value
        assert isinstance(error, ServerError) and error.code == -32602
        text = str(error)
        assert text.startswith("tool 'book' on 'expiring' ended: its question expired before the answer came")
        assert "Call it again to be asked again" in text and secret not in text
        assert error.__cause__ is None and error.__context__ is None
        (line,) = error._render_traceback_()  # type: ignore[attr-defined]
        assert "AnswerExpired" in line and "\n" not in line
        # The history: expired, not accepted; who answered and when, never what.
        (entry,) = _history("expiring")
        assert entry["outcome"]["reason"] == "expired" and entry["answered_by"] == "person"
        assert secret not in json.dumps(entry) and secret not in repr(srv.history)
        assert srv._rounds.limit() < 3  # what the server kept, at most, from now on

        result = srv.call_tool_sync("book")  # asked again: the same question, filled in as typed
        assert json.loads(result.content[0].text) == {"name": secret, "guests": 3}
        assert seen == ["Who is the table for?", "Who is the table for?"]
        first, second = _history("expiring")
        assert first["outcome"]["reason"] == "expired" and second["outcome"]["action"] == "accept"


def test_an_answer_in_time_is_used_and_nothing_is_kept() -> None:
    async def person(card: Any) -> None:
        card.fill(name="Bo")
        card.accept()

    import ipywidgets as w

    out = w.Output()
    with connect_sync([sys.executable, str(SERVER), "30"], name="expiring-ok", handler=person) as srv:
        result = srv.call_tool_sync("book", output=out)
        assert json.loads(result.content[0].text) == {"name": "Bo", "guests": 2}
        closing = "\n".join(str((o.get("data") or {}).get("text/plain", "")) for o in out.outputs)
        assert "accepted by handler 'person'" in closing
        assert "Answer within" not in closing  # answered: the time it had is no longer news
        assert not srv._rounds._answered
        (entry,) = _history("expiring-ok")
        assert entry["outcome"]["action"] == "accept" and entry["outcome"]["reason"] == "handler"
