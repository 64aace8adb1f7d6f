"""How often a task is polled: one rule for both protocol generations (pure).

A task's server names the interval it wants between two `tasks/get` (2025-11-25 `pollInterval`; 2026-07-28
`pollIntervalMilliseconds` and the other spellings servers send; milliseconds in every case). The server is
not trusted to set the client's rate: `poll_interval` keeps the interval between FLOOR and CEILING, and
treats a value that is not a positive finite number (0, a negative, NaN, an infinity, a string, a boolean,
null) as not given: the interval stays what it was (DEFAULT at first). So `pollInterval: 1` costs what 50 ms
costs, and `-1000` what no value costs.

While only the person can move the task on (its question is open), `backed_off` doubles the wait from poll
to poll up to WAITING (or the server's interval, if longer): a cancel or an end still shows within seconds,
and an answer wakes the wait at once (the callers do that).
"""

from __future__ import annotations

import math

__all__ = ["CEILING", "DEFAULT", "FLOOR", "WAITING", "backed_off", "poll_interval"]

FLOOR = 0.05
"""Seconds between two polls, at least (a server asking for less gets this)."""
CEILING = 60.0
"""Seconds between two polls, at most (a task that says "come back in a day" is still followed)."""
DEFAULT = 1.0
"""Seconds between two polls when the server never gave a usable interval."""
WAITING = 5.0
"""Seconds between two polls, at most after backing off, while only the person can move the task on."""
_MAX_CALM = 16


def poll_interval(sent_ms: object, previous: float = DEFAULT) -> float:
    """The seconds to wait between polls, given what the server sent (milliseconds, as sent).

    Args:
        sent_ms: The server's value, untouched: anything that is not a positive finite number (a bool
            included) counts as not given.
        previous: The interval in force (returned when `sent_ms` is not usable).
    """
    if isinstance(sent_ms, bool) or not isinstance(sent_ms, int | float):
        return previous
    try:
        seconds = float(sent_ms) / 1000
    except OverflowError:  # an int too large for a float: huge, so the ceiling
        return CEILING if sent_ms > 0 else previous
    if not math.isfinite(seconds) or seconds <= 0:
        return previous
    return min(max(seconds, FLOOR), CEILING)


def backed_off(interval: float, calm: int) -> float:
    """The wait after `calm` polls in a row that found the task still waiting on the person.

    Doubles from `interval` (calm 0) up to WAITING, never below `interval` (a server asking for a longer
    interval gets it).
    """
    grown: float = interval * 2 ** min(max(calm, 0), _MAX_CALM)
    return min(grown, max(interval, WAITING))
