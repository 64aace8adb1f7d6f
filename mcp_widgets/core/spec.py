"""What a parsed elicitation schema is made of: fields, choices, problems, a field's starting value (pure).

Imports only the standard library and `regex` (for server-sent patterns).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import regex

from .formats import parse_date, parse_date_time
from .text import number_text

__all__ = [
    "MAX_PATTERN_LENGTH",
    "MISSING",
    "STRING_KINDS",
    "Choice",
    "FieldKind",
    "FieldSpec",
    "FormSpec",
    "Problem",
    "Severity",
    "compile_pattern",
    "initial_value",
]


Severity = Literal["error", "warning"]
FieldKind = Literal[
    "text", "email", "uri", "date", "date-time", "number", "integer", "boolean", "choice", "multi"
]

STRING_KINDS = frozenset({"text", "email", "uri", "date", "date-time"})
"""Kinds whose content is a string (length and pattern constraints apply)."""

MAX_PATTERN_LENGTH = 1000
"""Longer server patterns are refused (warning) rather than compiled."""
_MAX_PATTERN_COST = 10_000
# The `regex` package expands counted repeats when compiling: `(a{1000}){1000}` takes seconds and
# `x{4294967294}` exhausts memory. We estimate the expanded size first and refuse costly patterns.


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()
"""Stands for "the schema gives no default" (None can't: it is not a valid default either)."""


@dataclass(frozen=True)
class Problem:
    """One broken rule in a requested schema."""

    severity: Severity
    rule: str
    """A short stable identifier, e.g. "top-level-type", "property-type", "pattern-invalid"."""
    message: str
    """What is wrong, for a server author."""
    property: str | None = None
    """The property it concerns, or None for the schema as a whole."""

    def __str__(self) -> str:
        where = f"property {self.property!r}" if self.property is not None else "schema"
        return f"{self.severity} [{self.rule}] {where}: {self.message}"


@dataclass(frozen=True)
class Choice:
    """One option of a single- or multi-select: the value sent, and the title shown."""

    value: str
    title: str


@dataclass(frozen=True)
class FieldSpec:
    """One property of the requested schema, as the form needs it."""

    name: str
    kind: FieldKind
    title: str
    """The schema's title, else the property name."""
    description: str = ""
    required: bool = False
    default: Any = MISSING
    """Already converted to the field's kind (a str for dates, a list of str for multi), or MISSING."""
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    """A server-sent pattern that compiled; None when absent or unusable (then a warning says so)."""
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Choice, ...] = ()
    min_items: int | None = None
    max_items: int | None = None
    schema: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """The raw property schema as the server sent it."""
    exclusive_minimum: float | None = None
    """A strict lower bound (`exclusiveMinimum`), when the server sent one."""
    exclusive_maximum: float | None = None
    """A strict upper bound (`exclusiveMaximum`), when the server sent one."""

    def __hash__(self) -> int:
        # The generated hash would fail on a multi-select's list default; equal specs share these three.
        return hash((self.name, self.kind, self.title))


@dataclass(frozen=True)
class FormSpec:
    """A parsed requested schema: fields in the server's order, plus every problem found."""

    fields: tuple[FieldSpec, ...]
    problems: tuple[Problem, ...] = ()
    title: str = ""
    description: str = ""
    schema: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity == "error")

    @property
    def warnings(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity == "warning")

    @property
    def ok(self) -> bool:
        return not self.errors

    def field(self, name: str) -> FieldSpec:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)


# --------------------------------------------------------------------------------------------------
# Server patterns


_COUNTED = regex.compile(r"\{\s*(\d*)\s*(?:,\s*(\d*)\s*)?\}")


def _pattern_cost(pattern: str) -> int:
    """A rough upper bound of how far `regex` expands counted repeats when compiling `pattern`."""
    stack: list[int] = [0]  # cost of the sequence being built at each group depth
    last = 0  # cost of the previous atom, which a quantifier multiplies
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            last = 1
            stack[-1] += 1
            continue
        if c == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
            last = 1
            stack[-1] += 1
            continue
        if c == "(":
            stack.append(0)
            i += 1
            last = 0
            continue
        if c == ")":
            inner = stack.pop() if len(stack) > 1 else 0
            last = max(inner, 1)
            stack[-1] += last
            i += 1
            continue
        if c == "{":
            m = _COUNTED.match(pattern, i)
            if m and (m.group(1) or m.group(2)):
                high = max(int(m.group(1) or 0), int(m.group(2) or 0))
                if high > 1_000_000:
                    return high
                stack[-1] += last * (high - 1)
                last *= high
                i = m.end()
                continue
        last = 1
        stack[-1] += 1
        i += 1
    return sum(stack)


@functools.lru_cache(maxsize=512)
def compile_pattern(pattern: str) -> regex.Pattern[str] | str:
    """Compile a server pattern once; a str return is the reason it is refused (no value ever appears)."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"is longer than {MAX_PATTERN_LENGTH} characters"
    if _pattern_cost(pattern) > _MAX_PATTERN_COST:
        return "repeats too much to compile safely"
    try:
        return regex.compile(pattern)
    except (regex.error, ValueError, TypeError, OverflowError, MemoryError, RecursionError) as exc:
        return f"does not compile ({type(exc).__name__})"


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def truthy(value: object) -> bool:
    try:
        return bool(value)
    except Exception:
        return True


def kind_of(value: object) -> str:
    """The JSON kind of a value, for messages (never the value itself)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return f"a {type(value).__name__}"


def keyword_shown(value: object) -> str:
    """A server-sent keyword value for a message: short strings quoted, anything else by its kind."""
    if isinstance(value, str) and len(value) <= 40:
        return repr(value)
    return kind_of(value)


def initial_value(spec: FieldSpec) -> Any:
    """The value a widget starts with: the schema's default, converted to what the widget holds.

    text/email/uri -> str ("" without default); number/integer -> str (text boxes, so an optional number
    can be empty); boolean -> bool (False without default); date -> datetime.date or None; date-time -> an
    aware datetime.datetime or None; choice -> the choice value (str) or None; multi -> tuple of str.
    Every one of these is accepted by `validate_field`/`build_content`.
    """
    default = spec.default
    kind = spec.kind
    if kind == "boolean":
        return bool(default) if default is not MISSING else False
    if kind == "multi":
        return tuple(default) if default is not MISSING else ()
    if kind == "choice":
        return default if default is not MISSING else None
    if default is MISSING:
        return None if kind in ("date", "date-time") else ""
    if kind in ("number", "integer"):
        return number_text(default) if kind == "integer" or isinstance(default, float) else str(default)
    if kind == "date":
        return parse_date(default)
    if kind == "date-time":
        return parse_date_time(default)
    return default
