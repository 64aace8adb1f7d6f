"""Parsing a select: `enum`, `oneOf` / `anyOf` options with titles, and multi-selects (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .spec import MISSING, Choice, FieldSpec, kind_of


class ChoiceParsing:
    """The select part of the schema parser (`schema._Parser`): its `warn`, `error` and `check_default`."""

    if TYPE_CHECKING:  # what the parser that mixes this in provides (checked against it by mypy)

        def warn(self, rule: str, message: str, prop: str | None = None) -> None: ...
        def count(self, prop: Mapping[str, Any], key: str, name: str) -> int | None: ...
        def check_default(self, spec: FieldSpec) -> FieldSpec: ...

    def choice(self, name: str, prop: Mapping[str, Any], base: dict[str, Any]) -> FieldSpec:
        if "oneOf" in prop:
            if "enum" in prop:
                self.warn("choices-conflict", 'both "enum" and "oneOf": "oneOf" is used', name)
            choices = self.titled(prop.get("oneOf"), "oneOf", name)
        else:
            choices = self.enum(prop, name)
        default = prop.get("default", MISSING)
        if default is not MISSING and not (
            isinstance(default, str) and default in {c.value for c in choices}
        ):
            # A dropdown cannot show a value it does not offer, so the default is dropped.
            self.warn("default-invalid", '"default" is not one of the choices: ignored', name)
            default = MISSING
        return FieldSpec(kind="choice", default=default, choices=choices, **base)

    def multi(
        self, name: str, prop: Mapping[str, Any], items: Mapping[str, Any], base: dict[str, Any]
    ) -> FieldSpec:
        if "anyOf" in items:
            choices = self.titled(items.get("anyOf"), "items.anyOf", name)
        elif "oneOf" in items:
            # Not the spec's shape, but its meaning is clear (a titled option list); accepted with a warning.
            self.warn(
                "items-oneof", 'options under "items.oneOf": the spec uses "items.anyOf"; accepted', name
            )
            choices = self.titled(items.get("oneOf"), "items.oneOf", name)
        else:
            choices = self.enum(items, name, where="items.")
        min_items = self.count(prop, "minItems", name)
        max_items = self.count(prop, "maxItems", name)
        if min_items is not None and max_items is not None and min_items > max_items:
            self.warn("constraint-contradictory", '"minItems" is greater than "maxItems": both ignored', name)
            min_items = max_items = None
        if min_items is not None and choices and min_items > len(choices):
            self.warn(
                "constraint-contradictory", '"minItems" is more than the number of choices: ignored', name
            )
            min_items = None
        default = prop.get("default", MISSING)
        if default is not MISSING:
            values = {c.value for c in choices}
            if not isinstance(default, (list, tuple)) or not all(isinstance(v, str) for v in default):
                self.warn(
                    "default-invalid",
                    f'"default" must be a list of strings, not {kind_of(default)}: ignored',
                    name,
                )
                default = MISSING
            elif not set(default) <= values:
                # A multi-select cannot show values it does not offer; dropping part of the default would
                # send something the server never proposed, so all of it is dropped.
                self.warn(
                    "default-invalid", '"default" has values that are not among the choices: ignored', name
                )
                default = MISSING
            else:
                default = list(dict.fromkeys(default))
        spec = FieldSpec(
            kind="multi", default=default, choices=choices, min_items=min_items, max_items=max_items, **base
        )
        return self.check_default(spec)

    def enum(self, holder: Mapping[str, Any], name: str, where: str = "") -> tuple[Choice, ...]:
        enum = holder.get("enum")
        if not isinstance(enum, (list, tuple)):
            self.warn("choice-invalid", f'"{where}enum" must be a list of strings, not {kind_of(enum)}', name)
            self.warn("choices-empty", "no usable choices", name)
            return ()
        titles: list[Any] | None = None
        names = holder.get("enumNames", MISSING)
        if names is not MISSING:
            if (
                isinstance(names, (list, tuple))
                and len(names) == len(enum)
                and all(isinstance(t, str) for t in names)
            ):
                titles = list(names)
            else:
                self.warn(
                    "enum-names-mismatch",
                    f'"{where}enumNames" must be a list of strings as long as "{where}enum": ignored',
                    name,
                )
        entries = []
        for i, value in enumerate(enum):
            # Content for a select is a string on the wire; other members cannot round-trip, so they go.
            if not isinstance(value, str):
                self.warn(
                    "choice-invalid",
                    f'"{where}enum" has a member that is not a string ({kind_of(value)}): skipped',
                    name,
                )
                continue
            entries.append((value, titles[i] if titles else value))
        return self.unique(entries, name)

    def titled(self, options: object, where: str, name: str) -> tuple[Choice, ...]:
        if not isinstance(options, (list, tuple)):
            self.warn(
                "choice-invalid",
                f'"{where}" must be a list of {{const, title}}, not {kind_of(options)}',
                name,
            )
            self.warn("choices-empty", "no usable choices", name)
            return ()
        entries = []
        for option in options:
            const = option.get("const") if isinstance(option, Mapping) else None
            if not isinstance(const, str):
                self.warn("choice-invalid", f'an entry of "{where}" has no string "const": skipped', name)
                continue
            title = option.get("title", const)
            if not isinstance(title, str):
                self.warn(
                    "choice-invalid",
                    f'an entry of "{where}" has a "title" that is not a string: the value is shown instead',
                    name,
                )
                title = const
            entries.append((const, title or const))
        return self.unique(entries, name)

    def unique(self, entries: list[tuple[str, str]], name: str) -> tuple[Choice, ...]:
        seen: dict[str, Choice] = {}
        for value, title in entries:
            if value in seen:
                self.warn("choice-duplicate", "the same choice value appears twice: later ones skipped", name)
                continue
            seen[value] = Choice(value, title)
        if not seen:
            # Rendered as a select with nothing to pick: a required one can only be declined or cancelled.
            self.warn("choices-empty", "no usable choices", name)
        return tuple(seen.values())
