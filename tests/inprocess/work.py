"""Work counted, not timed: the Python and C function calls a piece of code makes on this thread.

A quadratic path at 10,000 would run for minutes: past its budget the count stops the code at once (`Over`),
so such a test fails in seconds.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

__all__ = ["Over", "calls", "linear"]

LINEAR = 12
"""How much more work ten times the items may take (10 for linear work, 100 for quadratic)."""


class Over(AssertionError):
    """The code made more calls than its budget allowed."""


def calls(run: Callable[[], object], budget: int | None = None) -> int:
    """The function calls `run()` makes on this thread (sys.setprofile), stopped past `budget`."""
    made = 0

    def count(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal made
        if event in ("call", "c_call"):
            made += 1
            if budget is not None and made > budget:
                raise Over(f"more than {budget:,} calls")

    previous = sys.getprofile()
    sys.setprofile(count)
    try:
        run()
    finally:
        sys.setprofile(previous)
    return made


def linear(run: Callable[[int], object], small: int = 1_000, large: int = 10_000) -> tuple[int, int]:
    """The calls of `run(small)` and `run(large)`; fails (`Over`) when the large one takes more than
    `large / small * 1.2` times the small one's calls (quadratic work would take `(large / small) ** 2`)."""
    run(small)  # once first: what is made once a process (imports, shared models) is not counted
    few = calls(lambda: run(small))
    limit = few * LINEAR * large // (10 * small)
    many = calls(lambda: run(large), budget=limit)
    return few, many
