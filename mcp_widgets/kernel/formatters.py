"""Display formatters for objects we do not own (the SDK results): registered with IPython, not patched."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

_registered: set[type] = set()


def show_types_with(
    types: tuple[type, ...],
    bundles: Callable[[Any], list[dict[str, str]]],
    text: Callable[[Any], str],
) -> None:
    """Show objects of `types` as the display `bundles(obj)` gives, and as `text(obj)` where only text goes.

    Registered once per type with the running IPython shell (a notebook, or terminal IPython), if any.
    """
    shells = sys.modules.get("IPython.core.interactiveshell")
    if shells is None or not shells.InteractiveShell.initialized():
        return
    shell = shells.InteractiveShell.instance()
    formatter = shell.display_formatter
    from IPython.display import display  # IPython is loaded: this costs nothing

    def show(obj: Any) -> bool:
        for bundle in bundles(obj):
            display(bundle, raw=True)
        return True

    def plain(obj: Any, printer: Any, cycle: bool) -> None:
        printer.text(text(obj))

    for kind in types:
        if kind in _registered:
            continue
        _registered.add(kind)
        formatter.formatters["text/plain"].for_type(kind, plain)
        if getattr(shell, "kernel", None) is not None:  # a notebook: media too
            formatter.ipython_display_formatter.for_type(kind, show)
