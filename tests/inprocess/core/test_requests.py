"""Pending requests: our own ids, settled exactly once, listed until settled."""

from __future__ import annotations

import mcp_types

from mcp_widgets.core.outcome import Action, Outcome, Reason
from mcp_widgets.core.requests import PendingRequest, pending_requests


def test_settled_once_and_listed_until_then() -> None:
    first = PendingRequest(server="demo", kind="form", message="?", protocol_version="2025-11-25", schema={})
    second = PendingRequest(
        server="demo", kind="url", message="?", protocol_version="2026-07-28", url="https://x"
    )
    assert first.id != second.id
    assert (first.legacy, second.legacy) == (True, False)
    assert pending_requests()[-2:] == [first, second]
    assert "pending" in repr(first)

    outcome = Outcome(Action.DECLINE, Reason.POLICY, by="test")
    assert first.settle(mcp_types.ElicitResult(action="decline"), outcome) is True
    assert first.settle(mcp_types.ElicitResult(action="accept", content={}), None) is False
    assert first.reply.result().action == "decline"
    assert first.outcome is outcome
    assert first not in pending_requests()
    assert "declined by policy 'test'" in repr(first)

    second.reply.cancel()  # withdrawn: nothing can settle it any more
    assert second.settle(mcp_types.ElicitResult(action="cancel")) is False
    assert second not in pending_requests()
