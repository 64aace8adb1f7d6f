"""What is shown outside any call (a server asking between calls): the newest few stay, the rest close.

Inside a call its panel retires answered forms. Outside one, a form's closing line is shown in the server's
`output=` or the cell that was current, and nothing else would ever close it: a server asking again and
again between calls would pile up widget models. The same goes for an ended URL card no call holds and for
a line about a request that could not be shown. `srv.close()` closes those kept.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

KEEP = 20
"""How many answered out-of-call forms keep their closing line (the newest), as a call's panel does."""


class LooseForms:
    """The answered forms (and ended cards, and notes) of one server that no call holds."""

    def __init__(self, keep: int = KEEP) -> None:
        self._kept: deque[Any] = deque()
        self._keep = keep
        self._lock = threading.Lock()
        self._closed = False

    def keep(self, form: Any) -> None:
        """Hold `form` (answered, shown); close the oldest beyond the bound (all, once the server closed:
        a form withdrawn by the close may finish after it)."""
        with self._lock:
            self._kept.append(form)
            keep = 0 if self._closed else self._keep
            old = [self._kept.popleft() for _ in range(max(0, len(self._kept) - keep))]
        for form_ in old:
            form_.close()

    def close_all(self) -> None:
        with self._lock:
            kept, self._kept = list(self._kept), deque()
            self._closed = True
        for form in kept:
            form.close()

    def reopen(self) -> None:
        """The server connected again: keep forms again."""
        with self._lock:
            self._closed = False
