"""A prompt's arguments as a JSON schema, so that a prompt form is a tool form's fields and checks (pure).

MCP prompt arguments are all text (`PromptArgument`: name, title, description, required). The schema has a
string property for each, in the prompt's order, the required ones listed as required: the tool form's
parser and checker (`tools.schema`, `tools.args`) then show and check them exactly as a tool's text arguments.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["prompt_schema"]


def prompt_schema(arguments: Iterable[Any] | None) -> dict[str, Any]:
    """A JSON schema for a prompt's `arguments` (objects with `name`, `title`, `description`, `required`).

    An argument without a usable name, or named twice, is left out (the server could not tell them apart).
    """
    properties: dict[str, Any] = {}
    required: list[str] = []
    for argument in arguments or ():
        name = getattr(argument, "name", None)
        if not isinstance(name, str) or not name or name in properties:
            continue
        prop: dict[str, Any] = {"type": "string"}
        title = getattr(argument, "title", None)
        if isinstance(title, str) and title:
            prop["title"] = title
        description = getattr(argument, "description", None)
        if isinstance(description, str) and description:
            prop["description"] = description
        properties[name] = prop
        if getattr(argument, "required", False) is True:
            required.append(name)
    return {"type": "object", "properties": properties, "required": required}
