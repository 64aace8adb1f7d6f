"""A server's options checked: by `connect` before anything is made, and by the server when one is set later
(`srv.max_questions = 5`, `client.context.Setting`), with the same functions, so a wrong value is a one-line
error at once (the old value kept) and never reaches the client thread, where it would fail a question.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from .display import LOG_LEVELS
from .questions.bounds import question_bounds
from .signin.tokens import check_scopes, check_store

__all__ = [
    "CHECKS",
    "check_handler",
    "check_log_level",
    "check_mode",
    "check_name",
    "check_output",
    "check_seconds",
    "check_wire",
    "checked",
    "own_name",
    "question_bounds",
]


def check_mode(mode: Any) -> str:
    if not isinstance(mode, str) or (mode not in ("auto", "legacy") and not mode.startswith("20")):
        raise ValueError(f'mode must be "auto", "legacy" or a protocol version, not {mode!r}')
    return mode


def check_log_level(level: Any) -> str | None:
    """The level as sent: "INFO" (as Python's logging spells it) is "info"."""
    if isinstance(level, str):
        level = level.lower()
    if level is not None and level not in LOG_LEVELS:
        raise ValueError(f"log_level must be None or one of {', '.join(LOG_LEVELS)}, not {level!r}")
    return level  # type: ignore[no-any-return]


def check_seconds(what: str) -> Callable[[Any], float | None]:
    """A check of `timeout=` / `answer_timeout=`: None (no limit) or a number of seconds above 0."""

    def check(value: Any) -> float | None:
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if value is not None and not (number and value > 0 and not math.isnan(value)):
            raise ValueError(f"{what} must be None or a number of seconds above 0, not {value!r}")
        return value  # type: ignore[no-any-return]

    return check


def check_handler(handler: Any) -> Any:
    if handler is not None and not callable(handler):
        raise TypeError(
            f"handler must be None or an async function of a card (see mcp_widgets.handlers), not {handler!r}"
        )
    return handler


def check_output(output: Any) -> Any:
    if output is None:
        return None
    import ipywidgets  # only once an output is given: the check needs the class

    if not isinstance(output, ipywidgets.Output):
        raise TypeError(f"output must be None or an ipywidgets.Output, not {type(output).__name__}")
    return output


def check_wire(wire: Any) -> int:
    if isinstance(wire, bool) or not isinstance(wire, int) or wire < 0:
        raise ValueError(f"wire must be a number of messages to keep (0: none), not {wire!r}")
    return wire


CHECKS: dict[str, Callable[[Any], Any]] = {
    "handler": check_handler,
    "mode": check_mode,
    "timeout": check_seconds("timeout"),
    "answer_timeout": check_seconds("answer_timeout"),
    "output": check_output,
    "log_level": check_log_level,
    "max_questions": question_bounds,
    "wire": check_wire,
}
"""Each option a server keeps in its `Settings` (but its name: `own_name`): its value checked, as kept."""


def checked(options: dict[str, Any], token_store: Any, scopes: Any) -> dict[str, Any]:
    """`connect`'s options checked before anything is made, each as `Settings` keeps it (the log level as
    sent, `max_questions` as a pair); the sign-in ones are only checked."""
    kept = {key: CHECKS[key](value) for key, value in options.items()}
    # Checked on every transport, not only where a sign-in may use them: a typo must not pass on stdio.
    check_store(token_store)
    check_scopes(scopes)
    return kept


def check_name(name: Any, held: Iterable[str]) -> str:
    """A name asked for (`name=`, `srv.name = ...`): a non-empty str no other open server has."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"name must be a non-empty str, not {name!r}")
    if name in held:
        raise ValueError(
            f"a server named {name!r} is already connected: close it first (srv.close()) or give this "
            "one another name= (its pending questions and history go by the name)"
        )
    return name


def own_name(asked: Any, default: str, used: Iterable[str]) -> str:
    """The server's name: its pending list, history and forms go by it, so two open servers never share one.

    `used`: the names of the open servers (connecting or connected). A name asked for that one of them has
    is refused (a lost server frees its name: running the connect cell again after a server died must
    work); a default name (the command's, the URL's host) gets " (2)", " (3)"...
    """
    held = set(used)
    if asked is not None:
        return check_name(asked, held)
    name, n = default, 1
    while name in held:
        n += 1
        name = f"{default} ({n})"
    return name
