"""`connect(max_questions=...)`: how many questions a call may ask, and how many may be open at once."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .record import CallRecord

MAX_QUESTIONS = (100, 20)
"""Default `max_questions`: per call, and open at once (one 2026-07-28 round; 2025-11-25 unanswered)."""
_ROUND = MAX_QUESTIONS[1]


def question_bounds(value: int | tuple[int, int]) -> tuple[int, int]:
    """`max_questions=` as (per call, open at once): an int n is (n, min(n, 20))."""
    if isinstance(value, int) and not isinstance(value, bool):
        bounds = (value, min(value, _ROUND))
    elif isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, int) for v in value):
        bounds = (value[0], value[1])
    else:
        raise ValueError(f"max_questions must be an int or a pair of ints, not {value!r}")
    if min(bounds) < 1:
        raise ValueError(f"max_questions must be at least 1, not {value!r}")
    return bounds


def over_bound(record: CallRecord, bounds: tuple[int, int]) -> str | None:
    """What a new question of `record` would exceed (client thread), or None."""
    per_call, at_once = bounds
    if record.asked >= per_call:
        return f"more than {per_call} questions in one call"
    if len(record.pending) >= at_once:
        return f"more than {at_once} questions open at once"
    return None
