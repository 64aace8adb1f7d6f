"""A tool's `inputSchema` -> fields the form engine renders, and a check of the arguments (pure).

Imports only the standard library, jsonschema and regex (through `schema` / `validation`).

Tool schemas are richer than elicitation schemas (pydantic writes them). What becomes a normal field:

- string / number / integer / boolean, with the engine's formats (email, uri, date, date-time), bounds,
  lengths, patterns and defaults;
- `enum` / `const` (of any JSON scalars) -> a choice; an array of string `enum` items -> a multi-select;
- an array of plain strings -> a text box with one item per line;
- local `$ref` / `$defs` (pydantic's enums and models), followed to a bounded depth, cycles refused;
- `anyOf` / `oneOf` of one type and `{"type": "null"}` (pydantic's `X | None`), and `"type": [X, "null"]`:
  an optional field of type X.

Everything else (objects, arrays of objects or numbers, unions of several types, tuples, maps, recursive or
external references, schemas without a type) is a JSON text box, and the field says why ("nested object:
edit as JSON"). Those are the "json" field kind; "lines" is the one-per-line kind. Neither kind ever comes
out of `schema.parse_schema`: elicitation requests keep their own, stricter rules.

Empty fields: an optional field left empty is left out of the arguments; a nullable one is sent as null
when the tool requires the key or declares a default (the person cleared what the form pre-filled, so the
tool must not fall back to that default). `tool_args.check_arguments` converts what the form holds, then
checks the arguments against the tool's real `inputSchema` (with server patterns bounded in time, as for
elicitation). Messages name fields and rules, never values.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from ..schema import parse_schema
from ..spec import MISSING, Choice, FieldKind, FieldSpec, Problem
from .parts import (
    COMBINATORS,
    IGNORED_KEYS,
    Refused,
    deref,
    fallback_reason,
    json_text,
    placeholder_of,
    unwrap_null,
)
from .validator import make_validator

__all__ = [
    "ARGUMENTS",
    "ArgumentCheck",
    "ToolField",
    "ToolFormSpec",
    "parse_tool_schema",
]

JSON: FieldKind = cast("FieldKind", "json")
"""A JSON text box (the fallback kind)."""
LINES: FieldKind = cast("FieldKind", "lines")
"""A text box holding a list of strings, one per line."""

ARGUMENTS = ""
"""The key of `ArgumentCheck.errors` for a problem with the arguments as a whole (not one field's)."""


MAX_FIELDS = 100
"""More properties than this are not shown (the form says so)."""
MAX_JSON_TEXT = 1_000_000
"""Longer JSON text is refused rather than parsed."""

_SCALARS = (str, int, float, bool)


@dataclass(frozen=True)
class ToolField:
    """One tool argument as the form shows it."""

    spec: FieldSpec
    """What the form engine renders (its kind may also be "json" or "lines"; see the module docstring)."""
    required: bool = False
    """The tool requires the key (for a nullable field, empty is sent as null)."""
    nullable: bool = False
    """The tool accepts null for it (`X | None`)."""
    default: Any = MISSING
    """The schema's default as the tool declares it (None for a null default), or MISSING."""
    reason: str = ""
    """Why this argument is edited as JSON ("nested object: edit as JSON"); empty for other fields."""
    hint: str = ""
    """Shown under the control: the reason, or how to fill it ("one item per line")."""
    placeholder: str = ""
    mapping: tuple[tuple[str, Any], ...] = field(default=(), repr=False)
    """For a choice whose values are not all strings: choice value -> the argument value it stands for."""

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def kind(self) -> str:
        return self.spec.kind


@dataclass(frozen=True)
class ToolFormSpec:
    """A parsed tool input schema: fields in the schema's order, notes for a person, engine problems."""

    fields: tuple[ToolField, ...]
    notes: tuple[str, ...] = ()
    """What the form cannot show or only checks (a top-level anyOf, properties left out, ...)."""
    problems: tuple[Problem, ...] = ()
    """Warnings the form engine found in the schema's fields (for server authors)."""
    schema: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """The tool's real inputSchema (arguments are checked against it)."""
    validator: Any = field(default=None, repr=False, compare=False)
    """A jsonschema validator for `schema` (None when the schema cannot be used to check)."""

    @functools.cached_property
    def names(self) -> frozenset[str]:
        """The fields' names, made once (a check looks every reported name up in them)."""
        return frozenset(f.name for f in self.fields)

    @functools.cached_property
    def _by_name(self) -> dict[str, ToolField]:
        return {f.name: f for f in self.fields}

    def field(self, name: str) -> ToolField:
        found = self._by_name.get(name)
        if found is None:
            raise KeyError(name)
        return found


@dataclass(frozen=True)
class ArgumentCheck:
    """Per-field messages (key `ARGUMENTS` for the whole), and the arguments to send when there are none."""

    errors: Mapping[str, str] = field(default_factory=dict)
    arguments: dict[str, Any] | None = field(default=None, repr=False)
    warnings: tuple[str, ...] = ()
    """E.g. the schema could not be used to check the arguments (the server checks them anyway)."""

    @property
    def ok(self) -> bool:
        return not self.errors


# --------------------------------------------------------------------------------------------------
# Parsing


class _ToolParser:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.problems: list[Problem] = []

    def parse(self) -> ToolFormSpec:
        notes: list[str] = []
        try:  # some generators put the arguments' model itself behind a top-level $ref
            root = deref(self.root, self.root)
        except Refused as refused:
            root = self.root
            why = str(refused).split(":")[0]
            notes.append(
                f"the input schema's top-level $ref cannot be followed ({why}): arguments are checked anyway"
            )
        if not isinstance(root, Mapping):
            root = {}
        if root.get("type", "object") != "object":
            notes.append('the input schema\'s top-level "type" is not "object": arguments are checked anyway')
        for key in COMBINATORS:
            if key in root and root[key] not in (None, [], {}):
                notes.append(
                    f'the input schema has a top-level "{key}": the form shows the declared arguments '
                    "and checks the rest before running"
                )
        properties = root.get("properties")
        if not isinstance(properties, Mapping):
            properties = {}
        required_list = root.get("required")
        required = (
            {r for r in required_list if isinstance(r, str)} if isinstance(required_list, list) else set()
        )
        names = [n for n in properties if isinstance(n, str)]
        if len(names) > MAX_FIELDS:
            notes.append(f"the tool takes {len(names)} arguments: only the first {MAX_FIELDS} are shown")
            names = names[:MAX_FIELDS]
        fields = tuple(self.property(name, properties[name], name in required) for name in names)
        return ToolFormSpec(
            fields=fields,
            notes=tuple(notes),
            problems=tuple(self.problems),
            schema=self.root,
            validator=make_validator(self.root),
        )

    def property(self, name: str, raw: Any, required: bool) -> ToolField:
        if raw is True or raw == {}:
            return self.json(name, {}, required, False, "any JSON value: edit as JSON")
        if not isinstance(raw, Mapping):
            return self.json(name, {}, required, False, "a schema the form cannot read: edit as JSON")
        # Annotations of the property itself (pydantic puts them beside a $ref or an anyOf).
        title = raw.get("title") if isinstance(raw.get("title"), str) else None
        try:
            prop = deref(self.root, raw)
            prop, nullable = unwrap_null(self.root, prop)
        except Refused as refused:
            return self.json(name, raw, required, False, str(refused), title=title)
        prop = {k: v for k, v in prop.items() if k not in IGNORED_KEYS}
        try:
            made = self.shaped(name, prop, required, nullable)
        except Refused as refused:
            return self.json(name, prop, required, nullable, str(refused))
        if made is not None:
            return made
        return self.json(name, prop, required, nullable, fallback_reason(self.root, prop))

    # -- shapes the engine renders ---------------------------------------------------------------------------
    def shaped(self, name: str, prop: dict[str, Any], required: bool, nullable: bool) -> ToolField | None:
        if any(k in prop for k in COMBINATORS):
            return None
        if "const" in prop and "enum" not in prop:
            prop = {**prop, "enum": [prop["const"]]}
        if "enum" in prop:
            return self.choice(name, prop, required, nullable)
        type_ = prop.get("type")
        if isinstance(type_, list):
            return None
        if type_ == "boolean" and nullable:
            return self.choice(name, {**prop, "enum": [True, False]}, required, nullable)
        if type_ in ("string", "number", "integer", "boolean"):
            return self.engine(name, prop, required, nullable)
        if type_ == "array":
            return self.array(name, prop, required, nullable)
        return None

    def engine(
        self, name: str, prop: Mapping[str, Any], required: bool, nullable: bool, **extra: Any
    ) -> ToolField | None:
        """Let the elicitation engine parse one property (same rules, same messages)."""
        cleaned = dict(prop)
        default = cleaned.get("default", MISSING)
        if default is None:
            del cleaned["default"]  # pydantic's `= None`: the field starts empty
        person_required = required and not nullable
        form = parse_schema(
            {"type": "object", "properties": {name: cleaned}, "required": [name] if person_required else []}
        )
        if not form.fields or form.errors:
            return None
        self.problems.extend(form.problems)
        return ToolField(spec=form.fields[0], required=required, nullable=nullable, default=default, **extra)

    def choice(self, name: str, prop: Mapping[str, Any], required: bool, nullable: bool) -> ToolField | None:
        enum = prop.get("enum")
        if not isinstance(enum, list) or not enum or not all(isinstance(m, _SCALARS) for m in enum):
            return None
        if all(isinstance(m, str) for m in enum):
            return self.engine(name, {**prop, "type": "string", "enum": enum}, required, nullable)
        # Values that are not strings (Literal[1, 2], booleans): the choice holds their JSON text.
        keys: dict[str, Any] = {}
        for member in enum:
            if isinstance(member, float) and not math.isfinite(member):
                continue
            keys.setdefault(json.dumps(member), member)
        if not keys:
            return None
        choices = tuple(Choice(k, v if isinstance(v, str) else k) for k, v in keys.items())
        default = prop.get("default", MISSING)
        key_default = MISSING
        if default is not MISSING and default is not None and isinstance(default, _SCALARS):
            key = json.dumps(default)
            key_default = key if key in keys else MISSING
        spec = FieldSpec(
            name=name,
            kind="choice",
            title=title if isinstance(title := prop.get("title"), str) else name,
            description=text if isinstance(text := prop.get("description"), str) else "",
            required=required and not nullable,
            default=key_default,
            choices=choices,
            schema=prop,
        )
        return ToolField(
            spec=spec,
            required=required,
            nullable=nullable,
            default=default,
            mapping=tuple(keys.items()),
        )

    def array(self, name: str, prop: Mapping[str, Any], required: bool, nullable: bool) -> ToolField | None:
        items = prop.get("items")
        if "prefixItems" in prop or not isinstance(items, Mapping):
            return None
        items = deref(self.root, items)
        if not isinstance(items, Mapping) or any(k in items for k in COMBINATORS):
            return None
        enum = items.get("enum")
        if isinstance(enum, list) and enum and all(isinstance(m, str) for m in enum):
            clean_items = {"type": "string", "enum": enum}
            return self.engine(name, {**prop, "items": clean_items}, required, nullable)
        if items.get("type") == "string" and "enum" not in items and "const" not in items:
            return self.lines(name, prop, required, nullable)
        return None

    # -- text boxes of our own -------------------------------------------------------------------------------
    def lines(self, name: str, prop: Mapping[str, Any], required: bool, nullable: bool) -> ToolField | None:
        default = prop.get("default", MISSING)
        text: Any = MISSING
        if isinstance(default, list):
            if not all(isinstance(v, str) and v.strip() and "\n" not in v and "\r" not in v for v in default):
                return None  # it could not be written one per line: JSON shows it exactly
            text = "\n".join(default)
        spec = self.text_spec(name, prop, LINES, required and not nullable, text)
        return ToolField(
            spec=spec,
            required=required,
            nullable=nullable,
            default=default,
            hint="One item per line.",
            placeholder="one item per line",
        )

    def json(
        self,
        name: str,
        prop: Mapping[str, Any],
        required: bool,
        nullable: bool,
        reason: str,
        *,
        title: str | None = None,
    ) -> ToolField:
        default = prop.get("default", MISSING) if isinstance(prop, Mapping) else MISSING
        text: Any = MISSING
        if default is not MISSING and default is not None:  # `= None`: the box starts empty
            text = json_text(default)
            if text is None:
                text = MISSING
        if title is not None:
            prop = {**prop, "title": title}
        spec = self.text_spec(name, prop, JSON, required and not nullable, text)
        return ToolField(
            spec=spec,
            required=required,
            nullable=nullable,
            default=default,
            reason=reason,
            hint=reason[:1].upper() + reason[1:] + ".",
            placeholder=placeholder_of(prop) if isinstance(prop, Mapping) else "JSON",
        )

    def text_spec(
        self, name: str, prop: Mapping[str, Any], kind: FieldKind, required: bool, default: Any
    ) -> FieldSpec:
        title = prop.get("title")
        description = prop.get("description")
        return FieldSpec(
            name=name,
            kind=kind,
            title=title if isinstance(title, str) and title else name,
            description=description if isinstance(description, str) else "",
            required=required,
            default=default,
            schema=prop,
        )


def parse_tool_schema(schema: object) -> ToolFormSpec:
    """Turn a tool's inputSchema into form fields; never raises (what it cannot render becomes JSON)."""
    if not isinstance(schema, Mapping):
        return ToolFormSpec(fields=(), notes=("the input schema is not a JSON object",), schema={})
    return _ToolParser(schema).parse()
