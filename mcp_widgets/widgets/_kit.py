"""A form's kit: the Layout/Style models shared process-wide (they hold no user data) and the CSS classes."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterable
from typing import Any, TypeVar, cast

import ipywidgets as w

from ._lean import class_cache, lean
from ._literal import literal

W = TypeVar("W", bound=w.Widget)


FIRST_CLASS = "mcp-widgets-first"
LAST_CLASS = "mcp-widgets-last"
WRAP_CLASS = "mcp-widgets-wrap"
FORM_CLASS = "mcp-widgets-form"
ERROR_CLASS = "mcp-widgets-error"
"""A field's error line (its own Label: coloured, bold, with an icon)."""
INVALID_CLASS = "mcp-widgets-invalid"
HINT_CLASS = "mcp-widgets-hint"
"""A form's keyboard hint under its buttons (small, muted; the "press Escape again" warning in its place)."""
OPEN_CLASS = "mcp-widgets-open"
"""A URL card's "Open page" button: the keyboard helper's view opens the page in its click (keys.js)."""
"""On a control whose error shows: a visible border, and aria-invalid on its inputs (`assets/flush.js`)."""

TITLE_EM: tuple[float, float] = (4.0, 15.0)
"""The title column of a form is between these widths (em): a longer title wraps inside it."""
TITLE_GAP = "8px"
"""Between the title column and the controls (the form's CSS sets it as the titles' `margin-right`)."""


SHARED: dict[tuple[type, tuple[tuple[str, Any], ...]], w.Widget] = {}
SHARED_LOCK = threading.Lock()


def shared_models() -> tuple[w.Widget, ...]:
    """The process-wide Layout and Style models every `Kit` shares, those open now.

    One per purpose, style class and title width: a fixed few per process however many forms are built.
    """
    with SHARED_LOCK:
        return tuple(m for m in SHARED.values() if m.comm is not None)


def _shared(cls: type[W], traits: tuple[tuple[str, Any], ...]) -> W:
    """The shared model of `cls` with these traits, made the first time it is needed."""
    key = (cls, traits)
    model = SHARED.get(key)
    if model is not None and model.comm is not None:
        return cast(W, model)  # keyed by its class
    with SHARED_LOCK:
        model = SHARED.get(key)
        if model is None or model.comm is None:  # new, or closed from outside (e.g. Widget.close_all())
            model = SHARED[key] = cls(**dict(traits))
        return cast(W, model)


@functools.cache
def _layout_traits(purpose: str, width: str) -> tuple[tuple[str, Any], ...]:
    if purpose == "hidden":
        return (("display", "none"),)
    if purpose == "fit":
        return (("width", "auto"), ("align_self", "flex-start"))
    if purpose == "note" and width != "initial":
        # The stock widget margin on three sides; on the left, the title column and its gap.
        margin = (
            "var(--jp-widgets-margin) var(--jp-widgets-margin) var(--jp-widgets-margin) "
            f"calc(var(--jp-widgets-margin) + {width} + {TITLE_GAP})"
        )
        return (("margin", margin),)
    if purpose == "title" and width != "initial":
        return (("width", width), ("flex", "0 0 auto"))
    return ()  # "default", and a note or title without a title column


@class_cache
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


@class_cache
def _sync_keys(widget_cls: type[w.Widget]) -> tuple[str, ...] | None:
    """The names of a widget class's synced traits, or None when instances add traits of their own (an
    anywidget whose `_esm` is not declared)."""
    names = tuple(widget_cls.class_traits(sync=True))
    return None if hasattr(widget_cls, "_esm") and "_esm" not in names else names


def known_keys(widget_cls: type[w.Widget]) -> dict[str, Any]:
    """`keys=` for a new widget: its synced traits, found once per class (each widget looks again, slowly)."""
    names = _sync_keys(widget_cls)
    return {} if names is None else {"keys": list(names)}


@class_cache
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
        """The shared Layout for "default", "hidden" (display none: takes no space), "note", "title" or "fit"
        (as wide as its content: a button with a longer label).

        A "note" (the line under a control) starts where the controls start, under the title column; a
        "title" (a Label as a control's title) is as wide as that column.
        """
        return _shared(w.Layout, _layout_traits(purpose, self.description_width))

    def style(self, widget_cls: type[w.Widget], variant: str = "") -> w.Widget:
        """The shared Style of a widget class (every title as wide as `description_width`)."""
        style_cls = _style_class(widget_cls)
        if style_cls is None:
            raise TypeError(f"{widget_cls.__name__} has no style")
        return _shared(style_cls, _style_traits(widget_cls, variant, self.description_width))

    def make(self, cls: type[W], *, layout: str = "default", variant: str = "", **traits: Any) -> W:
        """Create a tracked widget that uses the shared Layout (and Style, when the class has one); its text
        shows literally (`literal`: every Label is a literal one)."""
        cls, traits = literal(cls, traits)
        if _style_class(cls) is not None:
            traits["style"] = self.style(cls, variant)
        widget: W = lean(cls)(layout=self.layout(layout), **known_keys(cls), **traits)
        return self.track(widget)

    def wrapped_label(self, text: str, *, bold: bool = False) -> w.Label:
        """A line of (server) text that wraps, its full text also in the tooltip."""
        variant = "bold" if bold else ""
        return self.make(w.Label, value=text, tooltip=text, variant=variant, _dom_classes=(WRAP_CLASS,))

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


def asker(server: str, declared_name: str | None) -> str:
    """Who asks: our name for the server and, when it differs, what the server calls itself.

    "demo (calls itself “x”)"; after a name that already ends in parentheses ("demo (2025-11-25)"), a
    second pair would read as a list: ", which calls itself “x”" then.
    """
    if not declared_name or declared_name == server:
        return server
    if server.rstrip().endswith(")"):
        return f"{server}, which calls itself “{declared_name}”"
    return f"{server} (calls itself “{declared_name}”)"


def click(button: w.Button) -> None:
    """Click `button` through the path a browser's click takes (its "click" message)."""
    button._handle_custom_msg({"event": "click"}, [])


def press(button: w.Button) -> bool:
    """`click` unless the button is disabled; whether it was clicked."""
    if button.disabled:
        return False
    click(button)
    return True
