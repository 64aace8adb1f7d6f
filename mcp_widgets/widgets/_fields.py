"""One stock control per field kind, plus the shared Layout/Style models of a form.

Fields are plain Python adapters around stock ipywidgets (no front-end code of our own): each owns a control
(whose `description` is the field's title, with " *" when it is required) and one Label for its description,
hint and error (in an elicitation form, made only once it has something to say: every model costs a comm
message).
Values follow the conventions of `mcp_widgets._validation`: str for text and numbers (so an optional number
can stay empty and bad input is reported, not clamped), `date` / aware `datetime` or None, bool, a choice
value or None, and a tuple of values for multi-select.
"""

from __future__ import annotations

import datetime as dt
import functools
import threading
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, TypeVar

import ipywidgets as w

from ..core.spec import MISSING, FieldSpec
from ._lean import lean

__all__ = ["Field", "Kit", "known_keys", "make_field", "shared_models", "title_width"]

Validator = Callable[[FieldSpec, Any], "str | None"]
"""Checks a field's value: the error message, or None."""

W = TypeVar("W", bound=w.Widget)

FIRST_CLASS = "mcp-widgets-first"
LAST_CLASS = "mcp-widgets-last"
WRAP_CLASS = "mcp-widgets-wrap"
FORM_CLASS = "mcp-widgets-form"

TITLE_EM: tuple[float, float] = (4.0, 15.0)
"""The title column of a form is between these widths (em): a longer title wraps inside it."""
TITLE_GAP = "8px"
"""Between the title column and the controls (the form's CSS sets it as the titles' `margin-right`)."""


_SHARED: dict[tuple[type, tuple[tuple[str, Any], ...]], w.Widget] = {}
_SHARED_LOCK = threading.Lock()


def shared_models() -> tuple[w.Widget, ...]:
    """The process-wide Layout and Style models every `Kit` shares, those open now.

    One per purpose, style class and title width: a fixed few per process however many forms are built.
    """
    with _SHARED_LOCK:
        return tuple(m for m in _SHARED.values() if m.comm is not None)


def _shared(cls: type[W], traits: tuple[tuple[str, Any], ...]) -> W:
    """The shared model of `cls` with these traits, made the first time it is needed."""
    key = (cls, traits)
    model = _SHARED.get(key)
    if model is not None and model.comm is not None:
        return model  # type: ignore[return-value]
    with _SHARED_LOCK:
        model = _SHARED.get(key)
        if model is None or model.comm is None:  # new, or closed from outside (e.g. Widget.close_all())
            model = _SHARED[key] = cls(**dict(traits))
        return model  # type: ignore[return-value]


@functools.cache
def _layout_traits(purpose: str, width: str) -> tuple[tuple[str, Any], ...]:
    if purpose == "hidden":
        return (("display", "none"),)
    if purpose == "note" and width != "initial":
        # The stock widget margin on three sides; on the left, the title column and its gap.
        margin = (
            "var(--jp-widgets-margin) var(--jp-widgets-margin) var(--jp-widgets-margin) "
            f"calc(var(--jp-widgets-margin) + {width} + {TITLE_GAP})"
        )
        return (("margin", margin),)
    return ()  # "default", and a note without a title column


@functools.cache
def _style_traits(widget_cls: type[w.Widget], variant: str, width: str) -> tuple[tuple[str, Any], ...]:
    style_cls = _style_class(widget_cls)
    assert style_cls is not None
    traits: list[tuple[str, Any]] = []
    # A Label shows no title, so its Style needs no title width (and serves every form).
    if "description_width" in style_cls.class_traits() and not issubclass(widget_cls, w.Label):
        traits.append(("description_width", width))
    if variant == "bold":
        traits.append(("font_weight", "bold"))
    return tuple(traits)


@functools.cache
def _sync_keys(widget_cls: type[w.Widget]) -> tuple[str, ...] | None:
    """The names of a widget class's synced traits, or None when instances add traits of their own (an
    anywidget whose `_esm` is not declared)."""
    names = tuple(widget_cls.class_traits(sync=True))
    return None if hasattr(widget_cls, "_esm") and "_esm" not in names else names


def known_keys(widget_cls: type[w.Widget]) -> dict[str, Any]:
    """`keys=` for a new widget: its synced traits, found once per class (each widget looks again, slowly)."""
    names = _sync_keys(widget_cls)
    return {} if names is None else {"keys": list(names)}


@functools.cache
def _style_class(widget_cls: type[w.Widget]) -> type[w.Widget] | None:
    """The Style class of a widget class, or None (looking it up in the class traits is slow)."""
    trait = widget_cls.class_traits().get("style")
    return None if trait is None else trait.klass


class Kit:
    """Creates and closes every widget model of one form; its Layout and Style models are shared.

    Every model is a message to the browser. Layouts and Styles hold presentation only (display, margins, the
    title width, bold), never anything typed, so every Kit in the process shares one per purpose and style
    class (and title width): created the first time they are needed, never closed by a Kit.

    Args:
        description_width: The width of every control's title (a CSS length, see `title_width`), so the
            controls of a form line up; "initial" (the default) lets each title take its natural width.
    """

    def __init__(self, description_width: str = "initial") -> None:
        self.models: list[w.Widget] = []
        self.description_width = description_width

    def layout(self, purpose: str = "default") -> w.Layout:
        """The shared Layout for "default", "hidden" (display none: takes no space) or "note".

        A "note" (the line under a control) starts where the controls start, under the title column.
        """
        return _shared(w.Layout, _layout_traits(purpose, self.description_width))

    def style(self, widget_cls: type[w.Widget], variant: str = "") -> w.Widget:
        """The shared Style of a widget class (every title as wide as `description_width`)."""
        style_cls = _style_class(widget_cls)
        if style_cls is None:
            raise TypeError(f"{widget_cls.__name__} has no style")
        return _shared(style_cls, _style_traits(widget_cls, variant, self.description_width))

    def make(self, cls: type[W], *, layout: str = "default", variant: str = "", **traits: Any) -> W:
        """Create a tracked widget that uses the shared Layout (and Style, when the class has one)."""
        if _style_class(cls) is not None:
            traits["style"] = self.style(cls, variant)
        return self.track(lean(cls)(layout=self.layout(layout), **known_keys(cls), **traits))

    def track(self, widget: W) -> W:
        self.models.append(widget)
        return widget

    def close(self, *, keep: Iterable[w.Widget] = ()) -> None:
        """Close every model it made except `keep`, and forget them (the shared ones stay open)."""
        kept = {id(k) for k in keep}
        for model in self.models:
            if id(model) not in kept:
                model.close()
        self.models = [m for m in self.models if id(m) in kept]


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or value == ()


class Field:
    """A field of a form: the control a person edits and the note line under it.

    With `lazy_note`, the note Label is only made once there is something to say (a description, a
    hint or an error): until then `note` is None and `views()` is just the control.
    """

    control_cls: ClassVar[type[w.Widget]] = w.Text

    def __init__(
        self,
        spec: FieldSpec,
        kit: Kit,
        *,
        classes: tuple[str, ...] = (),
        validate: Validator | None = None,
        lazy_note: bool = False,
    ) -> None:
        self.spec = spec
        self.touched = False
        """Whether the value changed since the form was built (errors show once touched or non-empty)."""
        # An explicit tooltip: unset, some stock views (radio buttons, date pickers) show the word "null".
        # Traits left at the class default are not passed: each one passed costs a validation round.
        traits = self._traits()
        if classes:
            traits["_dom_classes"] = classes
        title = display_title(spec)
        self.control: w.Widget = kit.make(
            self._control_class(), description=title, tooltip=spec.description or spec.title, **traits
        )
        self._kit = kit
        # The note is built as it first shows (with `validate`), not updated right after: one message less.
        self.error = None if validate is None else validate(spec, self.value)
        """The value's error when last checked (`validate`, `show`), or None; the note shows it once due."""
        text = self._note_text(self.error)
        self.note: w.Label | None = None if lazy_note and not text else self._make_note(text)
        """The line under the control (None while a lazy note has had nothing to say)."""

    def _control_class(self) -> type[w.Widget]:
        return self.control_cls

    def views(self) -> tuple[w.Widget, ...]:
        """What the field shows in its form, in order: the control, and its note once it exists."""
        return (self.control,) if self.note is None else (self.control, self.note)

    def _make_note(self, text: str) -> w.Label:
        return self._kit.make(
            w.Label, layout="note" if text else "hidden", value=text, _dom_classes=(WRAP_CLASS,)
        )

    # -- per kind --------------------------------------------------------------------------------------------
    def _traits(self) -> dict[str, Any]:
        """Traits of the control: the initial value (the default, if any) and hints; not class defaults."""
        return {} if self.spec.default is MISSING else {"value": str(self.spec.default)}

    def _hint(self) -> str:
        """Extra help shown in the note, e.g. how to select several."""
        return ""

    @property
    def value(self) -> Any:
        """The current value, in the convention `validate_field` and `build_content` expect."""
        return self.control.value

    def state_for(self, value: Any) -> dict[str, Any]:
        """The JSON state a browser sends when a person enters `value` (`fill` replays it via set_state)."""
        if not isinstance(value, str):
            raise TypeError(f"field {self.spec.name!r} takes a str")
        return {"value": value}

    # -- shared ----------------------------------------------------------------------------------------------
    def show(self, error: str | None) -> bool:
        """Update the note: description, hint, and the error once it should be visible.

        Returns whether a (lazy) note was made just now: then the form must place it under the control.
        """
        self.error = error
        text = self._note_text(error)
        note = self.note
        if note is None:
            if not text:
                return False
            self.note = self._make_note(text)
            return True
        layout = self._kit.layout("note" if text else "hidden")
        if note.value != text or note.layout is not layout:
            with note.hold_sync():  # one message for both
                note.value = text
                note.layout = layout
        return False

    def _note_text(self, error: str | None) -> str:
        visible_error = error if error and (self.touched or not _is_empty(self.value)) else None
        # A required field is marked by the " *" after its title: a note only for that would cost a model.
        parts = []
        hint = self._hint()
        description = self.spec.description
        if description:
            # A hint follows as its own sentence, so a description without a full stop does not run into it.
            ends_sentence = description.rstrip()[-1:] in ".!?:;…"
            parts.append(description if not hint or ends_sentence else description.rstrip() + ".")
        if hint:
            parts.append(hint)
        text = " ".join(parts)
        if visible_error:
            text = f"{text} — ⚠ Error: {visible_error}" if text else f"⚠ Error: {visible_error}"
        return text


class TextField(Field):
    """text, email and uri: a Text box with a hint of what is expected."""

    _PLACEHOLDER: ClassVar[dict[str, str]] = {"email": "name@example.com", "uri": "https://…"}

    def _traits(self) -> dict[str, Any]:
        s = self.spec
        placeholder = self._PLACEHOLDER.get(s.kind, "")
        if not placeholder and (s.min_length is not None or s.max_length is not None):
            placeholder = _range_text(s.min_length, s.max_length, "characters")
        return {**super()._traits(), "placeholder": placeholder}  # continuous_update: True by default


class NumberField(Field):
    """number and integer: a Text box, so empty stays empty and bad input is reported, not clamped."""

    def _traits(self) -> dict[str, Any]:
        s = self.spec
        noun = "whole number" if s.kind == "integer" else "number"
        if s.exclusive_minimum is None and s.exclusive_maximum is None:
            bounds = _range_text(s.minimum, s.maximum, "")
        else:
            low = [f"at least {_number_text(s.minimum)}"] if s.minimum is not None else []
            low += (
                [f"more than {_number_text(s.exclusive_minimum)}"] if s.exclusive_minimum is not None else []
            )
            high = [f"at most {_number_text(s.maximum)}"] if s.maximum is not None else []
            high += (
                [f"less than {_number_text(s.exclusive_maximum)}"] if s.exclusive_maximum is not None else []
            )
            bounds = ", ".join(low + high)
        traits = {"placeholder": f"{noun}, {bounds}" if bounds else noun}  # continuous_update: True already
        if s.default is not MISSING:
            traits["value"] = _number_text(s.default)
        return traits

    def state_for(self, value: Any) -> dict[str, Any]:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = _number_text(value)
        return super().state_for(value)


class BooleanField(Field):
    """boolean: a Checkbox, indented by the title column (its title is beside the box) so it lines up."""

    control_cls = w.Checkbox

    def _traits(self) -> dict[str, Any]:
        # Unchecked and indented by default.
        return {"value": True} if self.spec.default is not MISSING and bool(self.spec.default) else {}

    def state_for(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, bool):
            raise TypeError(f"field {self.spec.name!r} takes a bool")
        return {"value": value}


class DateField(Field):
    """date: a DatePicker (value: datetime.date or None)."""

    control_cls = w.DatePicker

    def _traits(self) -> dict[str, Any]:
        value = _parse_date(self.spec.default)
        return {} if value is None else {"value": value}  # None: the class default

    def state_for(self, value: Any) -> dict[str, Any]:
        if isinstance(value, str):
            value = _parse_date(value)
            if value is None:
                raise ValueError(f"field {self.spec.name!r} takes an ISO date (YYYY-MM-DD)")
        if isinstance(value, dt.datetime) or not (value is None or isinstance(value, dt.date)):
            raise TypeError(f"field {self.spec.name!r} takes a datetime.date, an ISO date string or None")
        # As the browser sends it: months counted from 0.
        return {
            "value": None
            if value is None
            else {"year": value.year, "month": value.month - 1, "date": value.day}
        }


class DateTimeField(Field):
    """date-time: a DatetimePicker (value: aware datetime or None).

    The person picks in their browser's time zone; ipywidgets hands the kernel that moment in the kernel's
    time zone, so the server gets the right instant with the kernel's offset (with a remote kernel, not the
    person's own offset). An untouched default is sent as the server's own string.
    """

    control_cls = w.DatetimePicker

    def _traits(self) -> dict[str, Any]:
        value = _parse_datetime(self.spec.default)
        return {} if value is None else {"value": value}  # None: the class default

    def state_for(self, value: Any) -> dict[str, Any]:
        if isinstance(value, str):
            value = _parse_datetime(value)
            if value is None:
                raise ValueError(f"field {self.spec.name!r} takes an ISO date-time")
        if not (value is None or isinstance(value, dt.datetime)):
            raise TypeError(f"field {self.spec.name!r} takes a datetime, an ISO date-time string or None")
        if value is None:
            return {"value": None}
        # A naive time is read as the kernel's local time, as a browser reads what a person types.
        utc = (value if value.tzinfo else value.astimezone()).astimezone(dt.timezone.utc)
        return {
            "value": {
                "year": utc.year,
                "month": utc.month - 1,
                "date": utc.day,
                "hours": utc.hour,
                "minutes": utc.minute,
                "seconds": utc.second,
                "milliseconds": utc.microsecond // 1000,
            }
        }


class ChoiceField(Field):
    """Single-select: RadioButtons for up to five choices, else a Dropdown; options show titles, send values.

    An optional field gets a leading "(no answer)" option, so an answer can be taken back.
    """

    MAX_RADIO: ClassVar[int] = 5
    NO_ANSWER: ClassVar[str] = "(no answer)"

    def _control_class(self) -> type[w.Widget]:
        return w.RadioButtons if len(self.spec.choices) <= self.MAX_RADIO else w.Dropdown

    def _options(self) -> list[tuple[str, Any]]:
        options: list[tuple[str, Any]] = [(c.title, c.value) for c in self.spec.choices]
        return options if self.spec.required else [(self.NO_ANSWER, None), *options]

    def _traits(self) -> dict[str, Any]:
        values = [v for _, v in self._options()]
        default = None if self.spec.default is MISSING else self.spec.default
        index = values.index(default) if default in values else None
        return {"options": self._options(), "index": index}

    def state_for(self, value: Any) -> dict[str, Any]:
        values = [v for _, v in self._options()]
        if value is None and None not in values:
            return {"index": None}
        if value not in values:
            raise ValueError(f"field {self.spec.name!r} has no such choice")
        return {"index": values.index(value)}


class MultiField(Field):
    """Multi-select: a SelectMultiple showing titles and sending the `const` values (value: a tuple)."""

    control_cls = w.SelectMultiple

    def _traits(self) -> dict[str, Any]:
        options = [(c.title, c.value) for c in self.spec.choices]
        values = [v for _, v in options]
        default = () if self.spec.default is MISSING else tuple(self.spec.default)
        return {
            "options": options,
            "index": tuple(values.index(v) for v in default if v in values),
            "rows": min(max(len(options), 2), 6),
        }

    def _hint(self) -> str:
        return "Ctrl/⌘-click to choose several."

    def state_for(self, value: Any) -> dict[str, Any]:
        if isinstance(value, str) or not isinstance(value, Iterable):
            raise TypeError(f"field {self.spec.name!r} takes a list of choices")
        values = [c.value for c in self.spec.choices]
        chosen = list(value)
        if any(v not in values for v in chosen):
            raise ValueError(f"field {self.spec.name!r} has no such choice")
        return {"index": [values.index(v) for v in chosen]}


_BY_KIND: dict[str, type[Field]] = {
    "text": TextField,
    "email": TextField,
    "uri": TextField,
    "number": NumberField,
    "integer": NumberField,
    "boolean": BooleanField,
    "date": DateField,
    "date-time": DateTimeField,
    "choice": ChoiceField,
    "multi": MultiField,
}


def make_field(
    spec: FieldSpec,
    kit: Kit,
    *,
    classes: tuple[str, ...] = (),
    validate: Validator | None = None,
    lazy_note: bool = False,
) -> Field:
    """The field adapter for a FieldSpec (unknown kinds are shown as text).

    `classes` go on its control; with `validate`, the note shows the first check's result from the start;
    with `lazy_note`, the note is made only once it has something to show (see `Field`).
    """
    return _BY_KIND.get(spec.kind, TextField)(
        spec, kit, classes=classes, validate=validate, lazy_note=lazy_note
    )


def display_title(spec: FieldSpec) -> str:
    """The title a control shows: the field's title, and " *" when it is required."""
    return spec.title + (" *" if spec.required else "")


def title_width(specs: Sequence[FieldSpec]) -> str:
    """One title-column width for a whole form (CSS em), so every control starts at the same place.

    Estimated from the longest title a control shows in that column (checkboxes show theirs beside the box):
    about 0.6 em a character, 1 em for wide (East Asian) ones; clamped to `TITLE_EM`, a longer title wraps.
    """
    longest = 0.0
    for spec in specs:
        if spec.kind == "boolean":
            continue
        text = display_title(spec)
        longest = max(longest, sum(1.0 if _is_wide(c) else 0.6 for c in text))
    low, high = TITLE_EM
    em = min(max(longest + 0.5, low), high)  # + 0.5: room for rounding, and never a tight fit
    return f"{em:.1f}em"


def _is_wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


# -- helpers -------------------------------------------------------------------------------------------------
def _number_text(number: Any) -> str:
    if isinstance(number, float) and number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return str(number)


def _range_text(low: float | None, high: float | None, unit: str) -> str:
    lo = None if low is None else _number_text(low)
    hi = None if high is None else _number_text(high)
    unit = f" {unit}" if unit else ""
    if lo is not None and hi is not None:
        return f"{lo}–{hi}{unit}"
    if lo is not None:
        return f"at least {lo}{unit}"
    if hi is not None:
        return f"at most {hi}{unit}"
    return ""


def _parse_date(text: Any) -> dt.date | None:
    if isinstance(text, dt.date) and not isinstance(text, dt.datetime):
        return text
    if not isinstance(text, str):
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def _parse_datetime(text: Any) -> dt.datetime | None:
    if isinstance(text, dt.datetime):
        parsed = text
    elif isinstance(text, str):
        try:  # Python 3.10 does not read a trailing "Z"
            parsed = dt.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
        except ValueError:
            return None
    else:
        return None
    # A date-time without an offset is not valid JSON Schema; read it as UTC rather than drop the default.
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.timezone.utc)


# -- tool forms (mcp_widgets.core.tool_schema): fields elicitation never has ---------------------------------
class JsonField(Field):
    """The "json" and "lines" kinds (tool forms only): a Textarea of JSON text, or of strings one per line.

    Its value is the text as typed; `core.tool_args.check_arguments` parses it. `hint` says why the argument
    is edited as text ("nested object: edit as JSON") and shows in the note line.
    """

    control_cls = w.Textarea

    def __init__(self, spec: FieldSpec, kit: Kit, *, hint: str = "", placeholder: str = "") -> None:
        self._hint_text = hint
        self._placeholder = placeholder
        super().__init__(spec, kit)

    def _traits(self) -> dict[str, Any]:
        value = self.spec.default if isinstance(self.spec.default, str) else ""
        rows = min(max(value.count("\n") + 1, 2), 8)
        return {"value": value, "placeholder": self._placeholder, "rows": rows, "continuous_update": True}

    def _hint(self) -> str:
        return self._hint_text


class SecretField(TextField):
    """A string the tool marks secret (`"format": "password"` or `writeOnly`, pydantic's SecretStr): masked.

    Tool forms only. The value is still in the control's state (and a notebook saved with widget state)
    until the form is closed.
    """

    control_cls = w.Password
