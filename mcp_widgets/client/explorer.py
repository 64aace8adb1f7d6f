"""The server in one view (`srv.explore()`, and a cell ending in `srv`): the parts an `Explorer` shows.

The widgets room knows no client, so this module turns what the server's facade offers into
`ExplorerParts`: its facts as text (from `ServerInfo`, the server's strings as they came: the widgets show
them literally) and one callback per section, called only when its section is first opened.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets
import mcp_types

from ..core.app_policy import app_resource_uri
from ..core.markdown import is_markdown
from ..core.text import clip_words, shorten, shown
from ..widgets import Explorer, ExplorerParts, HistoryPanel, Listing, MarkdownOffer, Row
from .call import Call
from .listings import PromptList, ResourceList, ServerInfo, ToolList
from .results import result_text

__all__ = ["explorer", "of_server"]

Open = Callable[[str], ipywidgets.Widget]


ROW_DESCRIPTION = 100
"""Characters of a description's first line a listing's row shows (cut after a word; the row's tooltip has
it whole)."""
TIP_SHOWN = 2_000
"""Characters of a row's tooltip (a description of 1 MB is cut; the item's form has it)."""


def _line(name: str, title: str | None, description: str | None) -> tuple[str, str]:
    """A listing's row: the name, its title, the first line of its description (cut after a word); and its
    tooltip: the name, the title and the whole description, every line of it."""
    text = name
    if title and title != name:
        text += f" — {title}"
    whole = (description or "").strip()
    first = whole.splitlines()
    row = text + (f": {clip_words(first[0], ROW_DESCRIPTION)}" if first else "")
    return row, shorten(text + (f"\n{whole}" if whole else ""), TIP_SHOWN)


def _facts(info: ServerInfo) -> list[tuple[str, str]]:
    facts = []
    if info.title:
        facts.append(("title", info.title))
    facts.append(("version", info.version or "(not given)"))
    if info.description:
        facts.append(("description", info.description))
    facts.append(("protocol", info.protocol_version))
    caps = info.capability_list()
    facts.append(("capabilities", "; ".join(f"{n} ({o})" if o else n for n, o in caps) or "(none)"))
    return facts


def explorer(
    *,
    title: str,
    info: ServerInfo | None,
    tools: Callable[[], ToolList],
    prompts: Callable[[], PromptList],
    resources: Callable[[], ResourceList],
    tool_form: Open,
    prompt_form: Open,
    template_form: Open,
    read: Callable[[str, ipywidgets.Output], Call],
    open_app: Open | None,
    wire: Callable[[], ipywidgets.Widget],
    history: Callable[[], ipywidgets.Widget],
) -> Explorer:
    """An `Explorer` of one server, every section made from the callbacks given (nothing called before its
    section is opened, except the listings' lengths for the section buttons).

    Args:
        open_app: Shows a tool's MCP App (None: apps are off; the Apps section is left out).
        read: Reads a resource by its URI into an `Output` (its call's line, then its text).
    """

    def rows(items: Sequence[Any]) -> list[Row]:
        return [Row(i.name, *_line(i.name, i.title, i.description)) for i in items]

    def resource_rows() -> list[Row]:
        listed = [r for r in resources() if isinstance(r, mcp_types.Resource)]
        return [Row(str(r.uri), *_line(str(r.uri), r.title or r.name, r.description)) for r in listed]

    def template_rows() -> list[Row]:
        return [
            Row(t.uri_template, *_line(t.uri_template, t.title or t.name, t.description))
            for t in resources().templates
        ]

    def app_tools() -> list[Any]:
        return [t for t in tools() if app_resource_uri(t.meta) is not None]

    def reading(uri: str, out: ipywidgets.Output) -> ipywidgets.Widget | None:
        # A Markdown resource (by its listed MIME type, else its URI's ending) gets an offer to draw it, shown
        # under the list once its text is read (the text itself is in `out`, as any resource's)
        listed = [r for r in resources() if isinstance(r, mcp_types.Resource) and str(r.uri) == uri]
        offer = MarkdownOffer(name=uri) if any(is_markdown(r.mime_type, uri) for r in listed) else None
        read(uri, out).add_done_callback(lambda call: _show_read(call, out, offer))
        return offer

    listings = {
        "Tools": Listing(
            lambda: rows(tools()), lambda key, _out: tool_form(key), "Open form", "tool", lambda: len(tools())
        ),
        "Prompts": Listing(
            lambda: rows(prompts()), lambda key, _out: prompt_form(key), "Open form", "prompt"
        ),
        "Resources": Listing(resource_rows, reading, "Read", "resource"),
        "Templates": Listing(template_rows, lambda key, _out: template_form(key), "Open form", "template"),
    }
    if open_app is not None and app_tools():
        listings["Apps"] = Listing(
            lambda: rows(app_tools()), lambda key, _out: open_app(key), "Open app", "app"
        )
    parts = ExplorerParts(
        title=title,
        facts=_facts(info) if info is not None else [("state", "not connected yet")],
        instructions=info.instructions if info is not None else None,
        listings=listings,
        views={"Wire": wire, "History": history},
    )
    return Explorer(parts)


def _show_read(call: Call, out: ipywidgets.Output, offer: MarkdownOffer | None = None) -> None:
    """Under a finished read's line: the resource as text (an error is on the line already); a Markdown
    resource's first text given to its offer to draw it."""
    if call.state != "done" or call.exception() is not None:
        return
    result = call.result()
    out.append_stdout(shown(result_text(result)) + "\n")
    texts = [c for c in getattr(result, "contents", ()) if isinstance(c, mcp_types.TextResourceContents)]
    if offer is not None and texts:
        offer.set_source(texts[0].text)


def of_server(srv: Any, info: ServerInfo | None, *, apps: bool) -> Explorer:
    """The explorer of a `Server` (`srv.explore()`), made from its public methods; `info`: as learned when
    connecting (None before); `apps`: its Apps section (`connect(..., apps=False)` leaves it out)."""
    title = srv.name
    if srv.declared_name and srv.declared_name != srv.name:
        title += f" (calls itself {srv.declared_name!r})"
    return explorer(
        title=title,
        info=info,
        tools=lambda: srv.tools,
        prompts=lambda: srv.prompts,
        resources=lambda: srv.resources,
        tool_form=srv.form,
        prompt_form=srv.prompt_form,
        template_form=srv.template_form,
        read=lambda uri, out: srv.read_resource_background(uri, output=out),
        open_app=srv.open_app if apps else None,
        wire=srv.wire.view,
        history=lambda: HistoryPanel(server=srv.name),
    )
