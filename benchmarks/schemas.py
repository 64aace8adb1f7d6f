"""The requested schemas the benchmarks build forms for."""

from __future__ import annotations

from typing import Any

__all__ = ["COMPARABLE", "EVERY_KIND", "NAME", "comparable_n", "every_kind_n"]

NAME: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string", "title": "Name", "minLength": 1}},
    "required": ["name"],
}
"""One required text field: the elicitation benchmarks' question."""

# Fields ipywidgets-jsonschema can build too (it fails on titled oneOf and on date-time).
_COMPARABLE_FIELDS: list[tuple[str, dict[str, Any]]] = [
    ("name", {"type": "string", "title": "Name", "minLength": 1, "maxLength": 40}),
    ("email", {"type": "string", "title": "Email", "format": "email"}),
    ("age", {"type": "integer", "title": "Age", "minimum": 0, "maximum": 150}),
    ("budget", {"type": "number", "title": "Budget", "minimum": 0}),
    ("subscribe", {"type": "boolean", "title": "Subscribe", "default": False}),
    ("colour", {"type": "string", "title": "Colour", "enum": ["red", "green", "blue"]}),
    ("day", {"type": "string", "title": "Day", "format": "date"}),
    (
        "tags",
        {
            "type": "array",
            "title": "Tags",
            "uniqueItems": True,
            "items": {"type": "string", "enum": ["alpha", "beta", "gamma"]},
        },
    ),
]

_EVERY_KIND_FIELDS: list[tuple[str, dict[str, Any]]] = [
    (
        "username",
        {
            "type": "string",
            "title": "User name",
            "minLength": 3,
            "maxLength": 20,
            "pattern": "^[a-z][a-z0-9_]*$",
        },
    ),
    ("email", {"type": "string", "title": "Email", "format": "email"}),
    ("homepage", {"type": "string", "title": "Homepage", "format": "uri", "description": "Optional."}),
    ("bio", {"type": "string", "title": "About you", "maxLength": 280, "default": ""}),
    ("seats", {"type": "integer", "title": "Seats", "minimum": 1, "maximum": 10, "default": 1}),
    ("budget", {"type": "number", "title": "Budget", "minimum": 0, "maximum": 5000, "default": 249.5}),
    ("newsletter", {"type": "boolean", "title": "Newsletter", "default": False}),
    ("birthday", {"type": "string", "title": "Birthday", "format": "date"}),
    ("first_session", {"type": "string", "title": "First session", "format": "date-time"}),
    (
        "size",
        {
            "type": "string",
            "title": "Size",
            "oneOf": [{"const": "s", "title": "Small"}, {"const": "m", "title": "Medium"}],
            "default": "m",
        },
    ),
    (
        "country",
        {"type": "string", "title": "Country", "enum": ["at", "be", "ch", "de", "dk", "es", "fr", "it"]},
    ),
    (
        "toppings",
        {
            "type": "array",
            "title": "Toppings",
            "items": {"type": "string", "enum": ["nuts", "cherries", "wafer"]},
        },
    ),
]


def _schema(fields: list[tuple[str, dict[str, Any]]], n: int) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for i in range(n):
        name, prop = fields[i % len(fields)]
        key = name if i < len(fields) else f"{name}_{i}"
        title = prop["title"] if i < len(fields) else f"{prop['title']} {i}"
        props[key] = {**prop, "title": title}
    required = [k for k in props if k.startswith(("name", "email", "username"))]
    return {"type": "object", "properties": props, "required": required}


def comparable_n(n: int) -> dict[str, Any]:
    """`n` fields of the kinds both libraries build."""
    return _schema(_COMPARABLE_FIELDS, n)


def every_kind_n(n: int) -> dict[str, Any]:
    """`n` fields cycling through every field kind."""
    return _schema(_EVERY_KIND_FIELDS, n)


COMPARABLE = comparable_n(len(_COMPARABLE_FIELDS))
"""8 fields, every kind ipywidgets-jsonschema supports."""
EVERY_KIND = every_kind_n(len(_EVERY_KIND_FIELDS))
"""12 fields, every field kind: text, email, uri, integer, number, boolean, date, date-time, single-select
(titled radio buttons, untitled dropdown), multi-select."""
