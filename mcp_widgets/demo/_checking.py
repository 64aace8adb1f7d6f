"""Check accepted content against the requested schema, on the server side.

A server never trusts what a client sends back: the SDK does not check an accepted answer against a raw-dict
schema on either side. `jsonschema` would do, but it can take seconds to import; this covers the spec's flat
subset in a page. Problems name the field and the rule, never the value.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any
from urllib.parse import urlsplit

__all__ = ["problems"]

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def problems(content: object, schema: dict[str, Any]) -> list[str]:
    """Every broken rule, as "field: rule"; empty when the content fits."""
    if not isinstance(content, dict):
        return ["form: type"]
    found = [f"{name}: required" for name in schema.get("required", []) if name not in content]
    for name, prop in schema.get("properties", {}).items():
        if name in content:
            found.extend(f"{name}: {rule}" for rule in _check(content[name], prop))
    return found


def _check(value: object, prop: dict[str, Any]) -> list[str]:
    kind = prop.get("type")
    if kind == "string":
        return _check_string(value, prop)
    if kind in ("number", "integer"):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if not ok or (kind == "integer" and not float(value).is_integer()):  # type: ignore[arg-type]
            return ["type"]
        return _limits(value, prop, "minimum", "maximum")  # type: ignore[arg-type]
    if kind == "boolean":
        return [] if isinstance(value, bool) else ["type"]
    if kind == "array":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return ["type"]
        items = prop.get("items", {})
        allowed = items.get("enum") or [c.get("const") for c in items.get("anyOf", [])]
        found = ["items"] if any(v not in allowed for v in value) else []
        return found + _limits(len(value), prop, "minItems", "maxItems")
    return []


def _check_string(value: object, prop: dict[str, Any]) -> list[str]:
    if not isinstance(value, str):
        return ["type"]
    found = _limits(len(value), prop, "minLength", "maxLength")
    if "pattern" in prop and not re.search(prop["pattern"], value):
        found.append("pattern")
    choices = prop.get("enum") or [c.get("const") for c in prop.get("oneOf", [])]
    if choices and value not in choices:
        found.append("enum")
    fmt = prop.get("format")
    if fmt and value and not _FORMATS.get(fmt, lambda _: True)(value):
        found.append("format")
    return found


def _limits(size: float, prop: dict[str, Any], low: str, high: str) -> list[str]:
    found = []
    if low in prop and size < prop[low]:
        found.append(low)
    if high in prop and size > prop[high]:
        found.append(high)
    return found


def _is_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return len(text) == 10


def _is_date_time(text: str) -> bool:
    try:
        parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return False
    return "T" in text.upper() and parsed.tzinfo is not None


def _is_uri(text: str) -> bool:
    parts = urlsplit(text)
    return bool(parts.scheme) and bool(parts.netloc or parts.path)


_FORMATS = {
    "email": lambda text: bool(_EMAIL.match(text)),
    "uri": _is_uri,
    "date": _is_date,
    "date-time": _is_date_time,
}
