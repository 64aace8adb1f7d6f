"""marimo's runtime: recognised through marimo's public `running_in_notebook`, and its event loop.

marimo runs a notebook's cells in a process (or thread) of its own, with no IPython kernel: `get_ipython()`
is None there, so without this module marimo looks like plain Python. Its kernel handles one command at a
time, and running cells is one: while any cell runs, no widget message reaches Python, whatever the cell
waits on. So a question can be answered there only after the cell that asked it has returned; what the
page sends then is handled on marimo's event loop, between cells, which is also where work posted for the
main thread must run (`post` schedules it there).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import Any

__all__ = ["in_marimo", "marimo_loop", "marimo_stack", "ui_element"]

_found: list[asyncio.AbstractEventLoop | None] = []  # empty until marimo's runtime is seen


def in_marimo() -> bool:
    """True in a marimo notebook (edit or run mode): marimo is imported and says so for this thread, or
    said so once in this process (its runtime context is per thread; our bridge threads have none)."""
    if _found:
        return True
    marimo = sys.modules.get("marimo")  # never imported just to find out
    if marimo is None:
        return False
    try:
        running = bool(marimo.running_in_notebook())
    except Exception:  # a marimo without the function, or one half imported
        return False
    if running:
        loop = None
        with contextlib.suppress(RuntimeError):
            loop = asyncio.get_running_loop()  # marimo runs every cell inside its control loop
        _found.append(loop)
    return running


def marimo_loop() -> asyncio.AbstractEventLoop | None:
    """marimo's event loop (the one that runs cells, and between cells, widget messages), once seen."""
    if not _found:
        return None
    loop = _found[0]
    return loop if loop is not None and not loop.is_closed() else None


def ui_element(widget: Any) -> Any:
    """`widget` (an anywidget) as a marimo UI element (`mo.ui.anywidget`): bound to a name in a cell, a change
    of its model from the page runs again the cells that read that name."""
    return sys.modules["marimo"].ui.anywidget(widget)


def marimo_stack(*items: Any) -> Any:
    """`items` one under the other in a marimo output (`mo.vstack`): an anywidget among them stays live, a
    string is plain text with its line breaks (`mo.plain_text`: escaped, never HTML)."""
    mo = sys.modules["marimo"]
    return mo.vstack([mo.plain_text(item) if isinstance(item, str) else item for item in items])
