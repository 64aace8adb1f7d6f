"""Tab in a code cell offers a server's completions inside a prompt's or template's argument string.

`complete_in_code(kind, ask)` adds one IPython matcher (matcher API v2, `IPCompleter.custom_matchers`) to the
running shell, once: for `srv.get_prompt("greet", {"name": "Al|` (see `core.completion_code`), it looks the
name `srv` up in the shell's namespace, and each attribute of a dotted path (`team.srv`) statically (nothing
is evaluated: no property, `__getattr__` or `__class__` of the objects runs) and, when the object is a
`kind`, returns `ask(obj, code)`'s values as the string's new content (the text from after the opening
quote to the cursor), in the server's order, suppressing the other matchers (file names, Jedi) where it has
any (IPython 8.6 and newer; on older releases, such as Google Colab's 7.34, nothing is added). `ask`
bounds its own wait (the client asks on its own thread);
whatever goes wrong gives no matches, never an exception: IPython would print its traceback, and what is
typed must appear nowhere.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..core.completion_code import CodeArgument, code_argument, literal_content

__all__ = ["MATCHER_ID", "CodeAsk", "complete_in_code", "name_in"]

MATCHER_ID = "mcp_widgets.server_values"
"""The matcher's identifier (`IPCompleter.disable_matchers = ["mcp_widgets.server_values"]` turns it off)."""

CodeAsk = Callable[[Any, CodeArgument], Sequence[str]]
"""Asks the object bound to `code.receiver` for `code`'s values (bounded in time; [] when it cannot)."""

_asks: dict[type, CodeAsk] = {}


def complete_in_code(kind: type, ask: CodeAsk) -> None:
    """Offer `ask`'s values for calls on names bound to a `kind` (idempotent; without IPython's shell:
    nothing but remembering `ask`)."""
    _asks[kind] = ask
    shells = sys.modules.get("IPython.core.interactiveshell")
    if shells is None or not shells.InteractiveShell.initialized():
        return
    shell = shells.InteractiveShell.instance()
    completer = getattr(shell, "Completer", None)
    matchers = getattr(completer, "custom_matchers", None)
    if not isinstance(matchers, list):
        return
    if any(getattr(m, "matcher_identifier", None) == MATCHER_ID for m in matchers):
        return
    api = sys.modules.get("IPython.core.completer")
    if not all(hasattr(api, name) for name in ("context_matcher", "SimpleCompletion")):
        return  # IPython before 8.6 (Google Colab's 7.34) has no matcher API v2: no Tab completion, silently
    matchers.append(_matcher(shell))


def _matcher(shell: Any) -> Callable[[Any], dict[str, Any]]:
    from IPython.core.completer import SimpleCompletion, context_matcher  # IPython is loaded: this is cheap

    def server_values(context: Any) -> dict[str, Any]:
        try:
            code = code_argument(*_around_cursor(context))
            values = _values(shell, code) if code is not None else []
        except Exception:
            values, code = [], None
        if code is None or not values:
            return {"completions": []}
        texts = [t for t in (literal_content(v, code) for v in values) if t is not None]
        return {
            "completions": [SimpleCompletion(t, type="mcp") for t in texts],
            "matched_fragment": code.fragment,
            "suppress": bool(texts),
            "ordered": True,
        }

    matcher: Callable[[Any], dict[str, Any]] = context_matcher(identifier=MATCHER_ID)(server_values)
    return matcher


def _around_cursor(context: Any) -> tuple[str, str]:
    """The cell's text before the cursor and after it (all its lines: a dict may span several)."""
    text = str(context.full_text)
    lines = text.split("\n")
    line = int(context.cursor_line)
    at = sum(len(earlier) + 1 for earlier in lines[:line]) + int(context.cursor_position)
    return text[:at], text[at:]


def _values(shell: Any, code: CodeArgument) -> list[str]:
    namespace = getattr(shell, "user_ns", None)
    if not isinstance(namespace, dict):
        return []
    bound = _bound(namespace, code.receiver)
    kind = type(bound)  # not isinstance: it could read the object's `__class__`
    for cls, ask in list(_asks.items()):
        if issubclass(kind, cls):
            return [v for v in ask(bound, code) if isinstance(v, str)]
    return []


def _bound(namespace: dict[str, Any], path: str) -> Any:
    """The object a name or dotted path (`team.srv`) is bound to, found without running any code of the
    namespace's: the name among the namespace's `str` keys (`name_in`), then `inspect.getattr_static` for
    each attribute (no property, `__getattr__` or descriptor runs: a property is found as itself, which is no
    server)."""
    first, *rest = path.split(".")
    bound = name_in(namespace, first)
    for name in rest:
        kind = type(bound)
        if issubclass(kind, type) and kind is not type:
            return None  # a class with a metaclass of its own: reading its dict could run that metaclass
        bound = inspect.getattr_static(bound, name, None)
    return bound


def name_in(namespace: dict[str, Any], name: str) -> Any:
    """The value bound to `name` in `namespace`, or None, running no code of the namespace's: only exact
    `str` keys are compared (a hashed lookup would call `__eq__` of a key object whose hash collides)."""
    for key, value in dict.items(namespace):
        if type(key) is str and key == name:
            return value
    return None
