"""What a request can be refused for before it is sent: what the server's listing (or MCP) says it needs.

A listed prompt's required arguments, prompt arguments as text, and a resource URI with a template's
variables still in it. Each is a `brief` error: one line naming the server, the call and what is missing,
the names clipped (a prompt of 10,000 arguments, a template of 70 KB).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..core.exceptions import brief
from ..core.text import NAMES_KEEP, quoted, shorten
from .privacy import resource_name

if TYPE_CHECKING:
    from .context import ServerContext

__all__ = ["check_prompt", "check_uri"]

_VARIABLE = r"[A-Za-z0-9_.%]+(?::[0-9]+|\*)?"
_EXPRESSION = re.compile(rf"\{{[+#./;?&=,!@|]?({_VARIABLE}(?:,{_VARIABLE})*)\}}")
"""An RFC 6570 expression (`{id}`, `{+path}`, `{?q,lang}`): a template's variables, never part of a URI."""


def check_prompt(ctx: ServerContext, name: str, arguments: Mapping[str, Any] | None) -> None:
    """Refuse, before sending, an argument that is not text, and a listed prompt without its required
    arguments (a prompt not listed, or listed before it changed, is sent as asked: the server decides)."""
    given = arguments or {}
    wrong = [key for key, value in given.items() if not isinstance(value, str)]
    if wrong:  # MCP's prompt arguments are text (the SDK would call it a malformed answer)
        raise brief(
            TypeError(
                f"prompt {quoted([name])} on {ctx.name!r} was not sent: its arguments are text, and "
                f"{quoted(wrong)} {'is' if len(wrong) == 1 else 'are'} not"
            )
        )
    listed = next((p for p in ctx.learned.prompts or () if p.name == name), None)
    if listed is None:
        return
    wanted = listed.arguments or []
    missing = [a.name for a in wanted if a.required and a.name not in given]
    if missing:
        takes = shorten(", ".join(a.name + ("" if a.required else " (optional)") for a in wanted), NAMES_KEEP)
        raise brief(
            TypeError(
                f"prompt {quoted([name])} on {ctx.name!r} was not sent: it needs "
                f"{'the argument' if len(missing) == 1 else 'the arguments'} "
                f"{quoted(missing)} (it takes {takes})"
            )
        )


def check_uri(ctx: ServerContext, uri: str) -> None:
    """Refuse, before sending, a URI with a template's variables left in it (`file:///{path}`, as
    `srv.resources` lists a template): a URI never has one. A listed resource's own URI passes."""
    listed = ctx.learned.resources or ()
    if any(str(getattr(r, "uri", "")) == uri for r in listed):
        return
    names = [v.rstrip("*").split(":")[0] for e in _EXPRESSION.findall(uri) for v in e.split(",")]
    if names:
        variables = shorten(", ".join(dict.fromkeys(names)), NAMES_KEEP)
        raise brief(
            ValueError(
                f"resource {quoted([resource_name(listed, uri)])} on {ctx.name!r} was not read: its URI "
                f"still has the template's {'variable' if len(names) == 1 else 'variables'} "
                f"{variables}: fill {'it' if len(names) == 1 else 'them'} in "
                "first (srv.resources.templates lists the templates)"
            )
        )
