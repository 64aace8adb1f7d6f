"""Reading parts of a tool's inputSchema: local `$ref`s (to a bounded depth), nullables, kinds, and why a
field falls back to a JSON text box (pure)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

MAX_REF_DEPTH = 16
"""References followed in a row (a $ref to a $ref ...) before the field falls back to JSON."""


class Refused(Exception):
    """A part of the schema the form cannot follow; the message is the reason shown to the person."""


def _pointer(root: Mapping[str, Any], ref: str) -> Any:
    if not ref.startswith("#"):
        raise Refused("refers to another document: edit as JSON")
    fragment = ref[1:]
    if not fragment:
        return root
    if not fragment.startswith("/"):
        raise Refused("refers to a named anchor: edit as JSON")
    node: Any = root
    for raw in fragment[1:].split("/"):
        token = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise Refused("refers to a definition the schema does not have: edit as JSON")
    return node


def deref(root: Mapping[str, Any], schema: Any) -> Any:
    """Follow the `$ref` chain at the top of `schema`: the target, overlaid with the referring keys.

    The target's `title` is dropped: pydantic gives it the name of the type (e.g. the enum class), which is
    not the field's title.
    """
    seen: list[str] = []
    while isinstance(schema, Mapping) and "$ref" in schema:
        ref = schema["$ref"]
        if not isinstance(ref, str):
            raise Refused("has a malformed reference: edit as JSON")
        if ref in seen:
            raise Refused("recursive schema: edit as JSON")
        if len(seen) >= MAX_REF_DEPTH:
            raise Refused("references nested too deeply: edit as JSON")
        seen.append(ref)
        target = _pointer(root, ref)
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        if isinstance(target, bool):
            schema = {} if target else {"not": {}}
        elif not isinstance(target, Mapping):
            raise Refused("refers to something that is not a schema: edit as JSON")
        else:
            schema = {**{k: v for k, v in target.items() if k != "title"}, **siblings}
    return schema


def _is_null(schema: Any) -> bool:
    return isinstance(schema, Mapping) and (
        schema.get("type") == "null" or ("const" in schema and schema["const"] is None)
    )


def unwrap_null(root: Mapping[str, Any], prop: Mapping[str, Any]) -> tuple[Mapping[str, Any], bool]:
    """`X | None` (anyOf/oneOf with a null branch, or a type list with "null") -> (X, True)."""
    nullable = False
    for key in ("anyOf", "oneOf"):
        branches = prop.get(key)
        if not isinstance(branches, list) or not any(_is_null(b) for b in branches):
            continue
        others = [b for b in branches if not _is_null(b)]
        if len(others) != 1:
            return prop, False  # several types besides null: the caller falls back to JSON
        inner = deref(root, others[0])
        if not isinstance(inner, Mapping):
            return prop, False
        outer = {k: v for k, v in prop.items() if k != key}
        prop, nullable = {**inner, **outer}, True
        break
    type_ = prop.get("type")
    if isinstance(type_, list) and "null" in type_:
        rest = [t for t in type_ if t != "null"]
        prop = {**prop, "type": rest[0] if len(rest) == 1 else rest}
        nullable = True
    enum = prop.get("enum")
    if isinstance(enum, list) and None in enum:
        prop = {**prop, "enum": [m for m in enum if m is not None]}
        nullable = True
    return prop, nullable


COMBINATORS = ("anyOf", "oneOf", "allOf", "not", "if")
IGNORED_KEYS = ("$defs", "definitions", "$schema", "$id", "$anchor", "$comment", "examples")


def _kind_word(schema: Mapping[str, Any]) -> str:
    type_ = schema.get("type")
    if type_ in ("number", "integer"):
        return "numbers"
    if type_ == "object" or "properties" in schema:
        return "objects"
    if type_ == "array" or "items" in schema:
        return "lists"
    if type_ == "boolean":
        return "true/false values"
    if type_ == "string":
        return "text items"
    return "values"


def fallback_reason(root: Mapping[str, Any], prop: Mapping[str, Any]) -> str:
    """Why a property is edited as JSON, for the person ("nested object: edit as JSON")."""
    for key in ("anyOf", "oneOf"):
        if key in prop:
            return "one of several types: edit as JSON"
    if "allOf" in prop:
        return "a combination of schemas: edit as JSON"
    if "not" in prop or "if" in prop:
        return "a conditional schema: edit as JSON"
    type_ = prop.get("type")
    if isinstance(type_, list):
        return "one of several types: edit as JSON"
    if type_ == "object" or "properties" in prop or "additionalProperties" in prop:
        if isinstance(prop.get("properties"), Mapping) and prop["properties"]:
            return "nested object: edit as JSON"
        if isinstance(prop.get("additionalProperties"), Mapping):
            return "a map of keys to values: edit as JSON"
        return "an object: edit as JSON"
    if type_ == "array" or "items" in prop or "prefixItems" in prop:
        items = prop.get("items")
        if "prefixItems" in prop or isinstance(items, list):
            return "a fixed-length list: edit as JSON"
        try:
            items = deref(root, items) if items is not None else {}
        except Refused:
            items = {}
        return f"a list of {_kind_word(items) if isinstance(items, Mapping) else 'values'}: edit as JSON"
    if type_ == "null":
        return "always null: edit as JSON"
    if type_ is None:
        return "any JSON value: edit as JSON"
    return "a type the form does not know: edit as JSON"


def json_text(value: Any) -> str | None:
    """A default as the text a JSON box starts with (None when it cannot be written as JSON)."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        if len(text) > 60:
            text = json.dumps(value, ensure_ascii=False, allow_nan=False, indent=2)
    except (TypeError, ValueError):
        return None
    return text


def placeholder_of(prop: Mapping[str, Any]) -> str:
    type_ = prop.get("type")
    if type_ == "object" or "properties" in prop:
        names = list(prop.get("properties") or {})[:2] if isinstance(prop.get("properties"), Mapping) else []
        inner = ", ".join(f'"{n}": …' for n in names if isinstance(n, str))
        return f"JSON, e.g. {{{inner}}}" if inner else "JSON object, e.g. {}"
    if type_ == "array" or "items" in prop:
        return "JSON list, e.g. [ … ]"
    return "JSON"
