"""Explorer: a server in one view — who it is, then its tools, prompts, resources, apps, wire and history.

The header (name, version, protocol, capabilities, instructions) is a few literal Labels; long instructions
fold after three lines, a button showing them all (`show_instructions`); a line says when the connection
has ended (`show_connection`, told by the client). Under it a row of
section buttons (one `ToggleButtons` model); a section's widgets are built the first time it is opened and
kept while the explorer lives, so a section never opened costs nothing (a server of 200 tools costs the same
as one of two until Tools is opened). A listing is one `Select` (one model whatever its length: arrows move
in it) at the explorer's width, each row's whole text its tooltip (`tips`), and a button that opens the chosen
item's form (or reads the chosen resource) under it. The section buttons are one Tab stop (the open section's,
arrows within the row); the open one and the focus ring stand out at least 3:1 in light and dark themes.

The widgets room knows no client: the client room passes `ExplorerParts`, plain data and narrow callbacks
(a tool's form, a prompt's form, a template's form, reading a resource into an `Output`, the wire's view,
the history panel). Every server string goes through `Kit.make` (literal: no HTML, no MathJax) or
`plain_text` (no terminal escapes). An invisible helper (`ExplorerKeys`, `assets/explorer.js`) keeps the
notebook's keys off the explorer's controls (one model for the process): arrows move between the section
buttons and in a list, Enter on a list opens its item, Enter on a button presses it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as w
import traitlets as t

from ..core.text import shorten
from ._keys import DeclaredAnyWidget, shared_helper
from ._keys_assets import FLUSH_JS, asset
from ._kit import WRAP_CLASS, Kit, click, shared_models
from ._plain import PlainInMarimo
from ._tool_result import plain_text

__all__ = ["Explorer", "ExplorerKeys", "ExplorerParts", "Listing", "Row"]

EXPLORER_CLASS = "mcp-widgets-explorer"
NAV_CLASS = "mcp-widgets-explorer-nav"
LIST_CLASS = "mcp-widgets-explorer-list"
OPEN_CLASS = "mcp-widgets-explorer-open"
ID_CLASS = "mcp-widgets-explorer-id-"
"""The start of the class naming an explorer's model id on its box (for the shared keys' views)."""
SECTION_CLASS = "mcp-widgets-explorer-section-"
"""The start of the class naming a list's section (its rows' tooltips are `Explorer.tips[section]`)."""
INSTRUCTIONS_SHOWN = 4000
"""Characters of the server's instructions shown (the rest: `srv.info.instructions`)."""
INSTRUCTIONS_FOLDED = (3, 300)
"""Lines and characters of the instructions shown until "Show all" (35 lines pushed the sections off the
first screen)."""
LIST_ROWS = 12
ROW_SHOWN = 300
"""Characters of a listing's row shown (a 1 MB name or description is cut; the Open button takes it whole)."""
FACT_SHOWN = 2_000
"""Characters of a fact shown (the server's description, its title; `srv.info` has them whole)."""


@dataclass(frozen=True)
class Row:
    """One item of a listing: the key passed to `Listing.open`, its row's text, and its tooltip."""

    key: str
    label: str
    """What the row shows (a line: a long one is cut in the list)."""
    tip: str = ""
    """The item's whole text, every line (shown when the pointer rests on the row)."""


@dataclass(frozen=True)
class Listing:
    """One listing section: its items (`Row`s), and what opening one does."""

    items: Callable[[], Sequence[Row]]
    """The items, read when the section is first opened."""
    open: Callable[[str, w.Output], w.Widget | None]
    """Opens the item `key`: a widget to show (a form), or None when it wrote into the `Output` itself."""
    button: str = "Open"
    """The open button's label."""
    noun: str = "item"
    count: Callable[[], int] | None = None
    """How many items there are, for the section's button (None: the length of `items()`)."""


@dataclass(frozen=True)
class ExplorerParts:
    """What an explorer shows, from the client room: facts as text, sections as callbacks (called only
    when their section is opened)."""

    title: str
    """The first line: our name for the server (and what it calls itself)."""
    facts: Sequence[tuple[str, str]]
    """(label, text) lines under it: version, protocol, capabilities."""
    instructions: str | None = None
    listings: dict[str, Listing] = field(default_factory=dict)
    """Listing sections by their name ("Tools", "Prompts", "Resources", "Templates", "Apps")."""
    views: dict[str, Callable[[], w.Widget]] = field(default_factory=dict)
    """Sections that are one widget ("Wire", "History"), made when first opened."""


class ExplorerKeys(DeclaredAnyWidget):
    """Invisible: the explorer's keys (arrows between section buttons and in lists, Enter opens).

    One model for the process (`shared_keys`), so its code and CSS reach the browser once: each explorer's box
    renders its own view, which sends on the explorer's own model (named by a class of its box).
    """

    _esm = t.Unicode(
        FLUSH_JS + asset("explorer.js"), help="The explorer's keyboard (assets/explorer.js, after flush.js)."
    ).tag(sync=True)
    _css = t.Unicode(asset("explorer.css"), help="The explorer's look, light and dark.").tag(sync=True)
    _anywidget_id = t.Unicode(f"{__name__}.ExplorerKeys", help="anywidget's name for this class.").tag(
        sync=True
    )

    def __repr__(self) -> str:
        return "<ExplorerKeys>"


def shared_keys() -> ExplorerKeys:
    """The process-wide `ExplorerKeys` (see `shared_helper`)."""
    return shared_helper(ExplorerKeys)


class Explorer(PlainInMarimo, w.VBox):
    """A connected server in one view: its facts, then sections built when first opened.

    Args:
        parts: What to show (`ExplorerParts`, made by the client room: `srv.explore()`).
    """

    section = t.Unicode("", help="The section shown now ('' before any is opened).")
    built = t.List(t.Unicode(), help="The sections built so far, in the order they were first opened.")
    tips = t.Dict(
        help="Each built listing's rows' tooltips by section (the items' whole text, shown literally)."
    ).tag(sync=True)

    def __init__(self, parts: ExplorerParts) -> None:
        self.parts = parts
        self._kit = kit = Kit()
        self._sections: dict[str, w.Widget] = {}
        self._lists: dict[str, tuple[w.Select, w.Button, w.Box, w.Output]] = {}
        self._opened: dict[str, w.Widget] = {}
        self._keys: dict[str, str] = {}  # the item last opened from each listing
        self._closed = False
        self.ended: str | None = None
        """Why the connection ended (None while it lives): `show_connection`."""
        self._ended_line: w.Label | None = None
        head: list[w.Widget] = [kit.wrapped_label(parts.title, bold=True)]
        head += [kit.wrapped_label(shorten(f"{label}: {text}", FACT_SHOWN)) for label, text in parts.facts]
        self._instructions: tuple[str, str] | None = None  # folded, whole
        self._said: w.Label | None = None  # the instructions' line
        self._whole = False  # the instructions shown whole
        if parts.instructions:
            head += self._instructions_lines(parts.instructions)
        names = [*parts.listings, *parts.views]
        self._nav = kit.make(
            w.ToggleButtons,
            options=[(self._label(n), n) for n in names],
            index=None,
            tooltips=[f"Show the {n.lower()}" for n in names],
            _dom_classes=(NAV_CLASS,),
        )
        self._nav.observe(self._chosen, names="value")
        self._body = kit.make(w.VBox)
        model_id = uuid.uuid4().hex  # chosen now: the keys' view finds this model by its box's class
        super().__init__(
            children=(*head, self._nav, self._body, shared_keys()),
            layout=kit.layout(),
            _dom_classes=(EXPLORER_CLASS, ID_CLASS + model_id),
            model_id=model_id,
        )
        self.on_msg(self._on_keys)

    def _label(self, name: str) -> str:
        listing = self.parts.listings.get(name)
        if listing is None:
            return name
        return f"{name} ({listing.count() if listing.count is not None else len(listing.items())})"

    # -- as a person drives it (also for tests) ----------------------------------------------------------
    @property
    def sections(self) -> tuple[str, ...]:
        """The sections offered, in order."""
        return (*self.parts.listings, *self.parts.views)

    def show(self, name: str) -> w.Widget:
        """Open the section `name` as a click on its button does; returns its widget.

        Raises:
            KeyError: No such section.
        """
        if name not in self.sections:
            raise KeyError(f"no section {name!r} (sections: {', '.join(self.sections)})")
        self._nav.set_state({"index": self.sections.index(name)})  # the front end's path
        return self._sections[name]

    def items(self, name: str) -> list[str]:
        """The items the listing section `name` shows (opening it first)."""
        self.show(name)
        made = self._lists.get(name)
        return [] if made is None else [label for label, _ in made[0].options]

    def open_item(self, name: str, key: str) -> w.Widget | None:
        """Choose `key` in the listing `name` and press its open button; returns what it shows (a form), or
        None when it wrote into the section's output (a resource read)."""
        if name not in self._lists:
            self.show(name)
        select, button, _, _ = self._lists[name]
        select.set_state({"index": [value for _, value in select.options].index(key)})
        click(button)
        return self._opened.get(name)

    # -- internals -----------------------------------------------------------------------------------------
    def _instructions_lines(self, instructions: str) -> list[w.Widget]:
        """The instructions, folded after a few lines with a button that shows them all (and folds again)."""
        whole = instructions
        if len(whole) > INSTRUCTIONS_SHOWN:
            whole = whole[:INSTRUCTIONS_SHOWN] + f"… ({len(instructions):,} characters)"
        lines, chars = INSTRUCTIONS_FOLDED
        folded = "\n".join(whole.splitlines()[:lines])[:chars]
        kit = self._kit
        label = self._said = kit.make(w.Label, value="Instructions: " + whole, _dom_classes=(WRAP_CLASS,))
        if folded == whole.rstrip():
            return [label]
        self._instructions = ("Instructions: " + folded.rstrip() + " …", "Instructions: " + whole)  # as given
        count = len(instructions.splitlines())
        self._fold = kit.make(w.Button, layout="fit", tooltip="Show the server's whole instructions")
        self._fold.on_click(lambda _b: self.show_instructions(not self._whole))
        self._fold_text = "Show all instructions" + (f" ({count:,} lines)" if count > lines else "")
        self.show_instructions(False)
        return [label, self._fold]

    def show_connection(self, ended: str | None) -> None:
        """The server's connection ended (`ended` says why; main thread): a line under the title says so and
        the listings' open buttons are disabled (what no longer reaches the server); None: it is connected
        again, and the explorer is live again. The wire and the history stay readable."""
        if self._closed:
            return
        self.ended = ended
        line = self._ended_line
        if ended is not None:
            reach = "Its forms and reads cannot reach it; reconnect() connects again."
            text = f"⚠ Not connected: {ended}. {reach}"
            if line is None:
                line = self._ended_line = self._kit.make(w.Label, _dom_classes=(WRAP_CLASS,))
            line.value = text
        if line is not None:
            rest = [c for c in tuple(getattr(self, "children", ())) if c is not line]
            self.children = (*rest[:1], *([line] if ended is not None else []), *rest[1:])
        for _, button, _, _ in self._lists.values():
            button.disabled = ended is not None

    def show_instructions(self, whole: bool = True) -> None:
        """Show the server's whole instructions, or fold them after a few lines again."""
        if self._instructions is None or self._said is None:
            return
        self._whole = whole
        self._said.value = self._instructions[1 if whole else 0]  # shown literally by the Label itself
        self._fold.description = "Show fewer" if whole else self._fold_text

    @property
    def instructions(self) -> str:
        """The instructions line as shown now ("" when the server gave none)."""
        return self._said.value if self._said is not None else ""

    def _chosen(self, change: dict[str, Any]) -> None:
        name = change["new"]
        if self._closed or not name:
            return
        widget = self._sections.get(name)
        if widget is None:
            widget = self._sections[name] = self._build(name)
            self.built = [*self.built, name]
        elif name in self._lists and name in self._keys:
            # the list shows the item opened from it again (a keyboard choice the stock view had not yet
            # recorded went back to the first item when the section came back)
            select = self._lists[name][0]
            keys = [value for _, value in select.options]
            if self._keys[name] in keys:
                select.index = keys.index(self._keys[name])
                select.send_state("index")  # even where the kernel had it already
        self.section = name
        self._body.children = (widget,)

    def _build(self, name: str) -> w.Widget:
        view = self.parts.views.get(name)
        if view is not None:
            return view()
        listing = self.parts.listings[name]
        kit = self._kit
        items = list(listing.items())
        if not items:
            return kit.make(w.Label, value=f"No {listing.noun}s.")
        select = kit.make(
            w.Select,
            options=[(plain_text(shorten(row.label, ROW_SHOWN)), row.key) for row in items],
            rows=min(LIST_ROWS, len(items)),
            _dom_classes=(LIST_CLASS, SECTION_CLASS + name),
        )
        self.tips = {**self.tips, name: [plain_text(row.tip or row.label) for row in items]}
        button = kit.make(
            w.Button,
            description=listing.button,
            tooltip=f"{listing.button} the chosen {listing.noun}",
            _dom_classes=(OPEN_CLASS,),
        )
        place = kit.make(w.VBox)
        out = kit.make(w.Output)
        self._lists[name] = (select, button, place, out)
        button.disabled = self.ended is not None
        button.on_click(lambda _b: self._open_item(name))
        row = kit.make(w.HBox, children=(select, button))
        return kit.make(w.VBox, children=(row, place, out))

    def _on_keys(self, _: Any, content: Any, buffers: Any) -> None:
        """The browser opens the item its list shows chosen now (`{"open": index}`: see explorer.js)."""
        index = content.get("open") if isinstance(content, dict) else None
        if (
            self._closed
            or not isinstance(index, int)
            or isinstance(index, bool)
            or self.section not in self._lists
        ):
            return
        select = self._lists[self.section][0]
        if 0 <= index < len(select.options):
            # not written back to the list: its own update (the browser's choice) is on its way, and a
            # kernel-side write crossing it left the list showing another item when the section came back
            self._open_item(self.section, select.options[index][1])

    def _open_item(self, name: str, key: str | None = None) -> None:
        if self._closed:
            return
        select, _, place, out = self._lists[name]
        key = select.value if key is None else key
        if key is None:
            return
        self._keys[name] = key
        old = self._opened.pop(name, None)
        if old is not None:
            old.close()
        out.outputs = ()
        try:
            made = self.parts.listings[name].open(key, out)
        except Exception as exc:  # no longer listed, not connected: said in the section, the rest goes on
            out.append_stdout(plain_text(f"⚠ {exc}") + "\n")
            made = None
        if made is not None:
            self._opened[name] = made
        place.children = (made,) if made is not None else ()

    def close(self) -> None:
        """Close every model the explorer made, the forms it opened and the sections it built."""
        if getattr(self, "_closed", True):
            super().close()
            return
        self._closed = True
        for made in self._opened.values():
            made.close()
        shared = {id(m) for m in shared_models()}
        for name, widget in self._sections.items():
            if name in self.parts.views:
                layout = getattr(widget, "layout", None)
                widget.close()
                if isinstance(layout, w.Layout) and id(layout) not in shared:
                    layout.close()  # an anywidget's own (the wire's view)
        self._opened = {}
        self._kit.close()
        super().close()

    def __repr__(self) -> str:
        return f"<Explorer {self.parts.title!r} sections={len(self.sections)} built={len(self.built)}>"
