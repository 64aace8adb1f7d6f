"""The requested schemas the demo tools send, as plain dicts: copy them into the schema playground.

(The tools that ask with a model send what `mw.check_model(Model)` shows; CONFIRM_BOOLEAN stays here too.)

Each one stays inside the spec's subset: a flat object whose properties are strings, numbers, integers,
booleans, single-selects or multi-selects of strings.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CHOOSE",
    "CONFIRM",
    "CONFIRM_BOOLEAN",
    "REGISTER",
    "TRIP_BEACH",
    "TRIP_CITY",
    "TRIP_DATES",
    "TRIP_KIND",
    "TRIP_MOUNTAINS",
    "TRIP_SKIING",
]

CONFIRM: dict[str, Any] = {"type": "object", "properties": {}}
"""A pure confirmation: no fields, only Accept / Decline / Cancel."""

CONFIRM_BOOLEAN: dict[str, Any] = {
    "type": "object",
    "properties": {
        "confirm": {
            "type": "boolean",
            "title": "Yes, delete them for good",
            "description": "Accepting with this unticked changes nothing.",
            "default": False,
        }
    },
    "required": ["confirm"],
}
"""A confirmation as one boolean: Accept alone is not a yes; the box must be ticked too.

empty_trash asks it with a model (`EmptyTrash`, through the SDK's `Elicit`), which renders the same field
without `required` (a checkbox is always sent).
"""

REGISTER: dict[str, Any] = {
    "type": "object",
    "title": "Workshop registration",
    "properties": {
        "username": {
            "type": "string",
            "title": "User name",
            "description": "3 to 20 characters: lower-case letters, digits and _, starting with a letter.",
            "minLength": 3,
            "maxLength": 20,
            "pattern": "^[a-z][a-z0-9_]*$",
        },
        "email": {"type": "string", "title": "Email", "format": "email"},
        "homepage": {
            "type": "string",
            "title": "Homepage",
            "description": "Optional. A full URL, e.g. https://example.org/me",
            "format": "uri",
        },
        "birthday": {"type": "string", "title": "Birthday", "description": "Optional.", "format": "date"},
        "first_session": {
            "type": "string",
            "title": "First session",
            "description": "Date and time, in UTC unless you give an offset.",
            "format": "date-time",
            "default": "2027-01-15T09:00:00Z",
        },
        "seats": {"type": "integer", "title": "Seats", "minimum": 1, "maximum": 10, "default": 1},
        "budget": {
            "type": "number",
            "title": "Budget per seat (EUR)",
            "minimum": 0,
            "maximum": 5000,
            "default": 249.5,
        },
        "newsletter": {"type": "boolean", "title": "Send me the newsletter", "default": False},
        "bio": {
            "type": "string",
            "title": "About you",
            "description": "Optional, at most 280 characters.",
            "maxLength": 280,
            "default": "",
        },
    },
    "required": ["username", "email", "seats"],
}
"""Every primitive type, format and constraint the spec allows, and defaults on several fields."""

CHOOSE: dict[str, Any] = {
    "type": "object",
    "title": "Ice cream order",
    "properties": {
        "flavour": {
            "type": "string",
            "title": "Flavour",
            "description": "An untitled enum: the values are shown as they are.",
            "enum": ["vanilla", "chocolate", "strawberry", "pistachio"],
            "default": "vanilla",
        },
        "size": {
            "type": "string",
            "title": "Size",
            "description": "A titled single-select (oneOf with const and title).",
            "oneOf": [
                {"const": "s", "title": "Small (1 scoop)"},
                {"const": "m", "title": "Medium (2 scoops)"},
                {"const": "l", "title": "Large (3 scoops)"},
            ],
            "default": "m",
        },
        "holder": {
            "type": "string",
            "title": "Served in",
            "description": "The legacy shape: enum plus enumNames.",
            "enum": ["cup", "cone", "waffle"],
            "enumNames": ["Paper cup", "Sugar cone", "Waffle cone"],
            "default": "cone",
        },
        "toppings": {
            "type": "array",
            "title": "Toppings",
            "description": "An untitled multi-select (items.enum) with a maximum (maxItems).",
            "items": {"type": "string", "enum": ["sprinkles", "nuts", "cherries", "wafer", "marshmallows"]},
            "maxItems": 3,
            "default": ["sprinkles"],
        },
        "sauces": {
            "type": "array",
            "title": "Sauces",
            "description": "A titled multi-select (items.anyOf) with a minimum and a maximum.",
            "items": {
                "anyOf": [
                    {"const": "choc", "title": "Hot chocolate"},
                    {"const": "caramel", "title": "Salted caramel"},
                    {"const": "berry", "title": "Berry coulis"},
                ]
            },
            "minItems": 1,
            "maxItems": 2,
            "default": ["choc"],
        },
    },
    "required": ["flavour", "size", "holder", "sauces"],
}
"""Each single-select and multi-select shape, with and without titles; every field has a default."""

TRIP_KIND: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {
            "type": "string",
            "title": "Kind of trip",
            "oneOf": [
                {"const": "city", "title": "City break"},
                {"const": "beach", "title": "Beach"},
                {"const": "mountains", "title": "Mountains"},
            ],
            "default": "city",
        },
        "travellers": {"type": "integer", "title": "Travellers", "minimum": 1, "maximum": 8, "default": 2},
    },
    "required": ["kind", "travellers"],
}
TRIP_CITY: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {
            "type": "string",
            "title": "City",
            "enum": ["Lisbon", "Vienna", "Kyoto", "Montreal"],
            "default": "Lisbon",
        },
        "interests": {
            "type": "array",
            "title": "Interests",
            "items": {"type": "string", "enum": ["museums", "food", "architecture", "music"]},
            "default": ["food"],
        },
    },
    "required": ["city"],
}
TRIP_BEACH: dict[str, Any] = {
    "type": "object",
    "properties": {
        "coast": {
            "type": "string",
            "title": "Coast",
            "enum": ["Algarve", "Crete", "Bali"],
            "default": "Crete",
        },
        "surfing": {"type": "boolean", "title": "Surfing lessons", "default": False},
    },
    "required": ["coast"],
}
TRIP_MOUNTAINS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "activity": {
            "type": "string",
            "title": "Activity",
            "oneOf": [{"const": "hiking", "title": "Hiking"}, {"const": "skiing", "title": "Skiing"}],
            "default": "hiking",
        }
    },
    "required": ["activity"],
}
TRIP_SKIING: dict[str, Any] = {
    "type": "object",
    "properties": {
        "rental": {"type": "boolean", "title": "Rent skis and boots", "default": True},
        "lessons": {"type": "integer", "title": "Lessons", "minimum": 0, "maximum": 10},
    },
}
TRIP_DATES: dict[str, Any] = {
    "type": "object",
    "properties": {
        "start": {"type": "string", "title": "First day", "format": "date", "default": "2027-05-01"},
        "nights": {"type": "integer", "title": "Nights", "minimum": 1, "maximum": 21, "default": 3},
    },
    "required": ["start", "nights"],
}
