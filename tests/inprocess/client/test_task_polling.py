"""A task's server cannot set the client's polling rate (issue 32): both generations follow `core.polling`.

2025-11-25 over stdio against `tests/servers/rawtasks.py`, a raw server whose task reports any
`pollInterval` (0, 1, negative, NaN, a string, huge); 2026-07-28 through the task's own reading of what a
poll says. Each test checks what the server saw (the gaps between its `tasks/get`), never a duration of ours.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import pytest

from mcp_widgets import connect_sync
from mcp_widgets.client.tasks.extension import _Task2026
from mcp_widgets.core.polling import CEILING, DEFAULT, FLOOR
from tests.servers import SERVERS

RAWTASKS = [sys.executable, str(SERVERS / "rawtasks.py")]
SLACK = 0.8  # a gap may come a little early (the server stamps on arrival); never by 20 %

# pollInterval as the server writes it (JSON text) -> the interval the client must keep (seconds).
NOT_GIVEN = ["0", "-1000", "-1", "NaN", "Infinity", '"500"', '"soon"', "true", "null", "[]"]
FLOORED = ["1", "0.5", "49"]


@pytest.mark.timeout(60)
def test_hostile_2025_poll_intervals_are_floored_or_ignored() -> None:
    polls = 3
    with connect_sync(RAWTASKS, name="rawtasks", mode="legacy", timeout=20) as srv:
        calls = {poll: srv.call_tool_background("slow", {"poll": poll, "polls": polls}) for poll in NOT_GIVEN}
        calls |= {poll: srv.call_tool_background("slow", {"poll": poll, "polls": polls}) for poll in FLOORED}
        gaps: dict[str, list[float]] = {}
        for poll, call in calls.items():
            result = call.result(timeout=30)
            assert not result.is_error, (poll, result)
            gaps[poll] = json.loads(result.content[0].text)
            assert len(gaps[poll]) == polls - 1, (poll, gaps[poll])
    for poll in NOT_GIVEN:
        assert min(gaps[poll]) >= DEFAULT * SLACK, (poll, gaps[poll])  # the default, as if not sent
    for poll in FLOORED:
        assert min(gaps[poll]) >= FLOOR * SLACK, (poll, gaps[poll])


@pytest.mark.timeout(60)
def test_a_huge_2025_poll_interval_waits_the_ceiling_and_the_call_stays_cancellable() -> None:
    with connect_sync(RAWTASKS, name="rawtasks", mode="legacy", timeout=20) as srv:
        huge = [srv.call_tool_background("slow", {"poll": poll}) for poll in ("1e300", str(10**30))]
        time.sleep(2 * DEFAULT)  # long enough for a default poll or two: none may come
        assert srv.call_tool_sync("seen").content[0].text == "0"
        assert not any(call.done() for call in huge)  # still followed (not failed on the value)
        for call in huge:
            assert call.cancel()


def _reading(state: dict[str, Any], before: float | None = None) -> float:
    task: Any = _Task2026.__new__(_Task2026)  # only what a poll says is read: no server needed
    task.poll, task.started, task.ttl, task.deadline = (before or DEFAULT), time.monotonic(), None, None
    task.seen(state)
    return float(task.poll)


@pytest.mark.parametrize("key", ["pollIntervalMs", "pollIntervalMilliseconds", "pollInterval"])
def test_2026_poll_intervals_follow_the_same_rule(key: str) -> None:
    for sent in (0, -1000, float("nan"), float("inf"), "500", True, None):
        assert _reading({key: sent}) == DEFAULT, sent
        assert _reading({key: sent}, before=0.3) == 0.3, sent  # not given: the interval in force stays
    assert _reading({key: 1}) == FLOOR
    assert _reading({key: 1e300}) == CEILING
    assert _reading({key: 250}) == pytest.approx(0.25)
    assert _reading({"pollIntervalMs": "x", "pollInterval": 250}) == pytest.approx(0.25)  # a usable spelling
