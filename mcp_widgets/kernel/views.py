"""Is anyone looking? Displays by id, view counts, and a look that waits for what frontends already sent."""

from __future__ import annotations

import concurrent.futures
import contextlib
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any

from .flushes import unflushed
from .running_kernel import deliver_comms, get_kernel, post

_SETTLE = 0.1  # lets the kernel's loop run the messages it has read but not dispatched yet


def seen_by_now(widget: Any) -> concurrent.futures.Future[bool]:
    """Whether a frontend has rendered `widget`, judged once what frontends sent so far was handled.

    A view report can wait behind a busy cell, or be read but not yet dispatched when the cell ends;
    asking `is_viewed` at an arbitrary moment can then miss it. This delivers pending widget messages,
    and if the widget still looks unseen, lets the kernel run what it has already read and looks again.
    The future resolves on the kernel's main thread (at once without a kernel). Needs `track_views`.
    """
    fut: concurrent.futures.Future[bool] = concurrent.futures.Future()

    def second() -> None:
        deliver_comms()
        fut.set_result(is_viewed(widget))

    def first() -> None:
        deliver_comms()
        kernel = get_kernel()
        if is_viewed(widget) or kernel is None or kernel.loop is None:
            fut.set_result(is_viewed(widget))
        else:
            # Not the kernel loop's call_later: a blocking wait keeps that loop from running (the look
            # would never come); `post` reaches the main thread whether it idles or blocks.
            timer = threading.Timer(_SETTLE, post, (second,))
            timer.daemon = True
            timer.start()

    if get_kernel() is None:
        fut.set_result(is_viewed(widget))
    else:
        post(first)
    return fut


def display(obj: Any) -> None:
    """Show `obj` in the output of the current cell (IPython's display; a repr without a frontend)."""
    from IPython.display import display as ipython_display

    with unflushed():
        ipython_display(obj)


def say(line: str) -> None:
    """One line in the output of the cell running now, as its stderr (a kernel's stream, marimo's console)."""
    sys.stderr.write(line + "\n")


def display_as(bundle: dict[str, Any], display_id: str, *, update: bool = False) -> None:
    """Show a mimebundle under `display_id`; with `update`, replace every output shown under that id.

    A later cell may send the update: frontends route `update_display_data` by id, not by cell.
    """
    from IPython.display import display as ipython_display

    with unflushed():
        ipython_display(bundle, raw=True, display_id=display_id, update=update)


def with_text(widget: Any, text: str) -> dict[str, Any]:
    """A widget's display bundle whose plain text is `text`: what a saved notebook, GitHub and any place
    where no widget renders show."""
    data = bundle_of(widget)
    data["text/plain"] = text
    return data


def bundle_of(widget: Any) -> dict[str, Any]:
    """What shows `widget`: its class's `_repr_mimebundle_`, or (ipywidgets 7) `widget_bundle`."""
    own = getattr(type(widget), "_repr_mimebundle_", None)
    bundle = own(widget) if own is not None else widget_bundle(widget)
    return dict((bundle[0] if isinstance(bundle, tuple) else bundle) or {})


def widget_bundle(widget: Any) -> dict[str, Any]:
    """What ipywidgets' own `Widget._repr_mimebundle_` returns, whatever a subclass adds.

    ipywidgets 7 (Google Colab's) has none: it displays a widget from `_ipython_display_`, which sends the
    bundle itself. Here it is made the same way: the clipped repr and the view's model id, the widget's
    `on_displayed` callbacks run.
    """
    import ipywidgets

    base = getattr(ipywidgets.Widget, "_repr_mimebundle_", None)
    if base is not None:
        return dict(base(widget) or {})
    text = repr(widget)
    data: dict[str, Any] = {"text/plain": text if len(text) <= 110 else text[:110] + "…"}
    if widget._view_name is not None:
        data[_VIEW_MIME] = {"version_major": 2, "version_minor": 0, "model_id": widget._model_id}
        widget._handle_displayed()
    return data


_VIEW_MIME = "application/vnd.jupyter.widget-view+json"


def running_cell() -> str | None:
    """The message id of the cell running now (None between cells, or without a kernel): which cell a
    display goes to."""
    kernel = get_kernel()
    parent = kernel.cell_parent if kernel is not None else None
    msg_id = (parent or {}).get("header", {}).get("msg_id")
    return str(msg_id) if msg_id else None


_ever_viewed: weakref.WeakSet[Any] = weakref.WeakSet()
_page_seen = False  # a frontend has rendered a tracked widget (a question) in this kernel: `page_seen`


def track_views(widget: Any) -> None:
    """Ask the frontend to count the views it renders of `widget`; call before displaying it."""
    if widget._view_count is None:
        widget._view_count = 0
    widget.observe(_note_view, names="_view_count")


def _note_view(change: dict[str, Any]) -> None:
    global _page_seen
    if change["new"]:
        _ever_viewed.add(change["owner"])
        _page_seen = True


def note_page() -> None:
    """A page made one of our question models (its module says so before any view): a page is there."""
    global _page_seen
    _page_seen = True


def page_seen() -> bool:
    """True once a frontend has rendered a widget whose views are counted (`track_views`: the questions)
    in this kernel, or made a question's model (`note_page`).

    A page is (or was) there: a new widget it has not rendered yet may be on a busy or slow page, which is
    not the same as a headless run (nbconvert, papermill), where no view is ever reported.
    """
    return _page_seen


def is_viewed(widget: Any) -> bool:
    """True once a frontend reported rendering `widget`, even if that view has closed since.

    A closed view is a person who may come back (a notebook reopened, a tab restored): once someone has
    seen a question, nobody may decide for them that nobody is looking.
    """
    return widget in _ever_viewed or bool(getattr(widget, "_view_count", None))


def viewed_future(widget: Any) -> concurrent.futures.Future[None]:
    """A future resolved when a frontend first renders `widget` (needs `track_views` before display)."""
    fut: concurrent.futures.Future[None] = concurrent.futures.Future()
    if is_viewed(widget):
        fut.set_result(None)
        return fut

    def seen(change: dict[str, Any]) -> None:
        if change["new"] and not fut.done():
            widget.unobserve(seen, names="_view_count")
            fut.set_result(None)

    widget.observe(seen, names="_view_count")
    fut.add_done_callback(lambda _: _quiet_unobserve(widget, seen))
    return fut


def _quiet_unobserve(widget: Any, handler: Callable[..., Any]) -> None:
    with contextlib.suppress(ValueError):
        widget.unobserve(handler, names="_view_count")
