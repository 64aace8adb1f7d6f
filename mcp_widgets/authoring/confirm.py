"""`confirm(message)`: a yes/no gate for a destructive action, as a resolver for the SDK's `Resolve`.

    @server.tool()
    async def delete(path: str, ok: Annotated[bool, Resolve(confirm("Delete {path}?"))]) -> str:
        if not ok:
            return "kept"
        ...

`ok` is True only when the person accepts. Decline, cancel, and a client that cannot elicit (the SDK's
-32021 case, checked first so the call goes on) give False. The question is the SDK's `Elicit` with an empty
model (`{"type": "object", "properties": {}}`), so on 2026-07-28 it is asked in a round before the tool body
runs, and the body runs once, with the answer.
"""

from __future__ import annotations

import contextlib
import inspect
import string
import typing
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, get_args, get_origin

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resolve import Elicit, Resolve
from pydantic import BaseModel, ConfigDict

__all__ = ["Confirmation", "confirm"]


def _no_title(schema: dict[str, Any]) -> None:
    schema.pop("title", None)


class Confirmation(BaseModel):
    # No fields and no docstring (it would become the description): the bare
    # `{"type": "object", "properties": {}}`, so a client shows the message and the three buttons.
    model_config = ConfigDict(json_schema_extra=_no_title)


class _Nothing:
    """What the asking resolver gives when it asks nothing (no message, or a client that cannot elicit)."""


def _can_elicit_forms(ctx: Context[Any, Any]) -> bool:
    # The SDK's own gate: a bare `elicitation: {}` counts as form support, url-only does not.
    caps = ctx.client_capabilities
    elicitation = caps.elicitation if caps is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def _is_context(hint: Any) -> bool:
    return isinstance(hint, type) and issubclass(hint, Context)


def _is_resolve(hint: Any) -> bool:
    return get_origin(hint) is Annotated and any(isinstance(m, Resolve) for m in get_args(hint)[1:])


def _names(template: str) -> list[str]:
    names: list[str] = []
    for _, field, _, _ in string.Formatter().parse(template):
        if field is None:
            continue
        name = field.split(".")[0].split("[")[0]
        if not name.isidentifier():
            raise ValueError(f"confirm(): {{{field}}} must name a tool argument")
        if name not in names:
            names.append(name)
    return names


def confirm(message: str | Callable[..., str | None]) -> Callable[..., Awaitable[bool]]:
    """A resolver for `Annotated[bool, Resolve(confirm(...))]`: True only on an explicit accept.

    Args:
        message: The question. A str may name tool arguments as `{name}` (filled with their values). A
            callable (sync or async) takes tool arguments by name, a `Context` if it declares one, and
            earlier answers as `Annotated[..., Resolve(fn)]` parameters (so the confirmation comes after
            them), and returns the question, or None to ask nothing (then the gate is False).

    A name that is not an argument of the tool fails when the tool is registered (the SDK's check). On
    2026-07-28 the answer is pinned to the exact question: if the message changes between rounds (the
    files to delete changed), the person is asked again.
    """
    hints: dict[str, Any] = {}
    if callable(message):
        make = message
        params = list(inspect.signature(make).parameters.values())
        with contextlib.suppress(Exception):  # unresolvable hints: then every parameter is a tool argument
            hints = typing.get_type_hints(make, include_extras=True)
    elif isinstance(message, str):
        template = message

        def make(**args: Any) -> str:
            return template.format(**args)

        params = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY) for n in _names(template)]
    else:
        raise TypeError("confirm() takes the question as a str or a callable returning one")
    wants_ctx = [p.name for p in params if _is_context(hints.get(p.name))]
    # Kept: the callable's own `Resolve(...)` dependencies (earlier answers); the rest are tool arguments.
    kept = {p.name: hints[p.name] for p in params if p.name in hints and _is_resolve(hints[p.name])}
    args = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=kept.get(p.name, inspect.Parameter.empty))
        for p in params
        if p.name not in wants_ctx
    ]
    # A name no tool argument or callable parameter takes.
    ctx_param = inspect.Parameter("mcp_widgets_ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)

    async def ask(mcp_widgets_ctx: Context[Any, Any], **kwargs: Any) -> Elicit[Confirmation] | _Nothing:
        ctx = mcp_widgets_ctx
        question = make(**kwargs, **dict.fromkeys(wants_ctx, ctx))
        if inspect.isawaitable(question):
            question = await question
        if question is None or not _can_elicit_forms(ctx):
            return _Nothing()
        return Elicit(str(question), Confirmation)

    # The SDK reads a resolver's parameters from its signature: the tool arguments it names, by name.
    ask.__signature__ = inspect.Signature([ctx_param, *args])  # type: ignore[attr-defined]
    ask.__annotations__ = {"mcp_widgets_ctx": Context, **kept, "return": Elicit[Confirmation] | _Nothing}

    async def gate(answer: ElicitationResult[Confirmation]) -> bool:
        return isinstance(answer, AcceptedElicitation) and isinstance(answer.data, Confirmation)

    # Real objects, not strings: `ask` is local, so the SDK could not evaluate a string annotation.
    gate.__annotations__ = {
        "answer": Annotated[ElicitationResult[Confirmation], Resolve(ask)],
        "return": bool,
    }
    label = message if isinstance(message, str) else getattr(message, "__qualname__", "question")
    gate.__qualname__ = ask.__qualname__ = f"confirm({label!r})"
    return gate
