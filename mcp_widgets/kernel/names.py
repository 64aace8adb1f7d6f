"""The name a notebook binds an object to: what a form's "Copy as code" calls the server (`srv`, `github`).

Read from IPython's user namespace (a kernel or a terminal IPython), running no code of the namespace's: only
exact `str` keys and identity are compared. The name must be one a person wrote: an identifier, no keyword,
not private (`_`), not IPython's own (`_3`, `Out`, the names it hides). marimo has no such namespace here:
None, as in plain Python.
"""

from __future__ import annotations

import keyword
import sys
from typing import Any

__all__ = ["bound_name"]


def bound_name(obj: Any) -> str | None:
    """The first name the notebook's namespace binds to `obj` itself, or None."""
    shells = sys.modules.get("IPython.core.interactiveshell")
    if shells is None or not shells.InteractiveShell.initialized():
        return None
    shell = shells.InteractiveShell.instance()
    namespace = getattr(shell, "user_ns", None)
    hidden = getattr(shell, "user_ns_hidden", None) or {}
    if not isinstance(namespace, dict):
        return None
    for key, value in list(dict.items(namespace)):
        if value is not obj or type(key) is not str:
            continue
        written = key.isidentifier() and not keyword.iskeyword(key) and not key.startswith("_")
        if written and not any(type(k) is str and k == key for k in dict.keys(hidden)):
            return key
    return None
