"""Resource templates (RFC 6570 URI templates): their variables, a form's schema, and expansion (pure).

Expansion is the `uri-template` library's (pure Python): it percent-encodes each operator's values as the RFC
says (`{var}` encodes `/`, `{+var}` and `{#var}` keep reserved characters but still encode a space, `é` or
`{`; `{/var*}` and `{?x,y}` encode each item), where `uritemplate` leaves a space and non-ASCII text raw in
`{+var}` and `std-uritemplate` leaves `{ } < > "` raw in it.

Which variables a person must give: those in the query and fragment (`{?x}`, `{&x}`, `{#x}`) may be left out
(the RFC leaves an undefined variable out of the URI); every other one is required, since leaving it
empty reads another resource (`demo://text/` for `demo://text/{id}`). An exploded variable (`{/path*}`)
takes a list, entered one item per line. Messages name variables, never the values given.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import uri_template

from .exceptions import MCPWidgetsError
from .text import quoted, shorten

__all__ = ["TemplateError", "TemplateVariable", "UriTemplate", "expanded", "parse_template"]

OPTIONAL_OPERATORS = frozenset({"?", "&", "#"})
"""Operators whose variables may be left out (see the module docstring)."""

_HOW = {
    "+": "Reserved characters (/ ? # and others) are kept as typed.",
    "#": "The fragment, after #: reserved characters are kept as typed.",
    ".": "A label, after a dot.",
    "/": "A path segment: / is encoded.",
    ";": "A path parameter (;name=value).",
    "?": "A query parameter.",
    "&": "A query parameter.",
}


class TemplateError(MCPWidgetsError, ValueError):
    """A URI template that cannot be parsed, or variables it cannot be expanded with (names, never values):
    one line in a notebook, as every error of ours."""


@dataclass(frozen=True)
class TemplateVariable:
    """One variable of a URI template."""

    name: str
    operator: str
    """"" (simple), "+", "#", ".", "/", ";", "?" or "&": how its value is placed and encoded."""
    explode: bool = False
    """`{var*}`: a list, each item placed on its own."""
    max_length: int = 0
    """`{var:3}`: only this many characters are used (0: all)."""

    @property
    def required(self) -> bool:
        return self.operator not in OPTIONAL_OPERATORS

    @property
    def description(self) -> str:
        """How the value is used, for the person filling it in."""
        parts = [_HOW.get(self.operator, "")]
        if self.max_length:
            parts.append(f"Only its first {self.max_length} characters are used.")
        return " ".join(p for p in parts if p)


@dataclass(frozen=True)
class UriTemplate:
    """A parsed URI template (`parse_template`)."""

    text: str
    variables: tuple[TemplateVariable, ...]

    @functools.cached_property
    def names(self) -> tuple[str, ...]:
        """The variables' names, made once (expanding looks up every name given in them)."""
        return tuple(v.name for v in self.variables)

    @functools.cached_property
    def _known(self) -> frozenset[str]:
        return frozenset(self.names)

    @functools.cached_property
    def _parsed(self) -> uri_template.URITemplate:
        return uri_template.URITemplate(self.text)  # parsed once, not again at each keystroke's expansion

    def schema(self) -> dict[str, Any]:
        """A JSON schema of the variables, for a form: strings, lists of strings for exploded ones."""
        properties: dict[str, Any] = {}
        for v in self.variables:
            prop: dict[str, Any] = {"type": "string", "title": v.name}
            if v.explode:
                prop = {"type": "array", "items": {"type": "string"}, "title": v.name}
            if v.description:
                prop["description"] = v.description
            properties[v.name] = prop
        required = [v.name for v in self.variables if v.required]
        return {"type": "object", "properties": properties, "required": required}

    def missing(self, values: Mapping[str, Any]) -> list[str]:
        """The required variables `values` gives no value for (absent, None, empty text or an empty list)."""
        return [v.name for v in self.variables if v.required and _empty(values.get(v.name))]

    def expand(self, values: Mapping[str, Any] | None = None) -> str:
        """The URI for `values` (text, numbers, or lists of text for exploded variables).

        Raises:
            TemplateError: A required variable has no value, `values` names a variable the template does
                not have, or a value is of a type a URI cannot hold (the message names variables only).
        """
        values = dict(values or {})
        known = self._known
        unknown = [name for name in values if name not in known]
        if unknown:
            raise TemplateError(
                f"the template {quoted([self.text])} has no variable {quoted(unknown)} (its variables: "
                f"{quoted(self.names) or 'none'})"
            )
        missing = self.missing(values)
        if missing:
            raise TemplateError(f"the template {quoted([self.text])} needs a value for {quoted(missing)}")
        given: dict[str, Any] = {}
        for v in self.variables:
            value = values.get(v.name)
            if value is None or (not v.required and _empty(value)):
                continue
            given[v.name] = _value(v, value)
        try:
            return str(self._parsed.expand(**given))
        except uri_template.ExpansionFailedError as exc:  # a list given for `{var:3}`
            raise TemplateError(
                f"the template {quoted([self.text])} cannot expand {quoted([exc.variable])} with a list"
            ) from None


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, (str, list, tuple, Mapping)) and len(value) == 0)


def _value(v: TemplateVariable, value: Any) -> Any:
    if isinstance(value, bool):
        raise TemplateError(f"the variable {quoted([v.name])} takes text, not True or False")
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(i, (str, int, float)) for i in value):
        return [str(i) for i in value]
    pairs = value.items() if isinstance(value, Mapping) else None
    if pairs is not None and all(isinstance(k, str) and isinstance(i, str) for k, i in pairs):
        return dict(value)  # `{?keys*}`
    raise TemplateError(
        f"the variable {quoted([v.name])} takes text (or a list of text), not {type(value).__name__}"
    )


def parse_template(text: str) -> UriTemplate:
    """Parse an RFC 6570 URI template.

    Raises:
        TemplateError: `text` is not a URI template (unbalanced braces, an unknown operator, a bad name).
    """
    if not isinstance(text, str):
        raise TemplateError(f"a URI template is text, not {type(text).__name__}")
    try:
        parsed = uri_template.URITemplate(text)
    except (
        uri_template.ExpansionInvalidError,
        uri_template.ExpansionReservedError,
        uri_template.VariableInvalidError,
    ) as exc:
        why = shorten(str(exc), 200)
        raise TemplateError(f"{quoted([text])} is not an RFC 6570 URI template ({why})") from None
    found: dict[str, TemplateVariable] = {}
    for expansion in parsed.expansions:
        operator = str(getattr(expansion, "operator", ""))
        for var in expansion.variables:
            name = str(var.name)
            made = TemplateVariable(name, operator, bool(var.explode), int(var.max_length))
            # `{x}` and `{?x}` both: it must be given
            if name not in found or (made.required and not found[name].required):
                found[name] = made
    return UriTemplate(text, tuple(found.values()))


def expanded(template: Any, variables: Mapping[str, Any] | None) -> tuple[str, dict[str, Any]]:
    """The URI a resource template (its text, or an object with `uri_template`, as the SDK's
    `ResourceTemplate`) names with `variables`, and the variables as given (a call's arguments).

    Raises:
        TemplateError: A required variable is missing, an unknown one given, or it is no template.
    """
    values = dict(variables or {})
    return parse_template(getattr(template, "uri_template", template)).expand(values), values
