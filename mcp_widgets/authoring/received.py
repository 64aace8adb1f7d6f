"""What a tool receives for an answer: the SDK's own validation of the content, shown as the tool sees it.

The SDK validates accepted content with `Model.model_validate(content)` (both generations); a parameter
annotated `Annotated[Model, Resolve(fn)]` gets the instance and fails the call on decline or cancel, one
annotated `Annotated[ElicitationResult[Model], Resolve(fn)]` gets the outcome and branches on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp.server.elicitation import AcceptedElicitation, CancelledElicitation, DeclinedElicitation
from pydantic import BaseModel, ValidationError

from .models import as_model

__all__ = ["received", "validated"]


def validated(model: type[Any], content: Mapping[str, Any]) -> BaseModel | str:
    """The instance the SDK builds from accepted `content`, or why it refuses it (fields and rules only)."""
    try:
        return as_model(model).model_validate(dict(content))
    except ValidationError as exc:
        errors = exc.errors(include_input=False)
        why = "; ".join(".".join(map(str, e["loc"])) + ": " + e["msg"] for e in errors)
        return f"the SDK refuses the answer ({why})"


def received(model: type[Any], action: str, content: Mapping[str, Any] | None = None) -> str:
    """One line: what the tool receives for `action` (accept: the validated instance's repr)."""
    if action == "accept":
        value = validated(model, content or {})
        if isinstance(value, str):
            return value + ": the call fails with a ToolError"
        return f"{value!r} (an ElicitationResult[...] parameter: {AcceptedElicitation.__name__}(data=…))"
    outcome = DeclinedElicitation() if action == "decline" else CancelledElicitation()
    return (
        f"{outcome!r} (a plain Annotated[{as_model(model).__name__}, Resolve(...)] parameter: the call fails,"
        f" ToolError: elicitation was {action})"
    )
