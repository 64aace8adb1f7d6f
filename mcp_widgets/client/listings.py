"""Readable listings of what a server offers: its tools, resources and prompts, and the server itself.

Each listing is a plain `list` of the SDK's own types (`mcp_types.Tool`, `Resource`, `ResourceTemplate`,
`Prompt`), so code iterates it as usual; only its repr changes: a text table (long cells clipped) and an HTML
table for notebooks. Everything shown comes from the server, so the HTML escapes every cell: a title such as
`<script>` shows as text, never runs. A listing that quotes what was typed is redacted when it is fetched
(`catalog.fetch`); an item renamed so is called by its listed name (`real_name` gives the server's).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import mcp_types
from pydantic import BaseModel

from ..core import app_policy
from ..core.text import LITERAL_CLASSES, clip_line, shorten, shown

__all__ = ["PromptList", "ResourceList", "ServerInfo", "Table", "TemplateList", "ToolList"]

CELL = 60
"""Characters a text-table cell shows before it is clipped."""
HTML_CELL = 2000
"""Characters an HTML-table cell (or its tooltip) shows before it is clipped."""
_LITERAL = f' class="{" ".join(LITERAL_CLASSES)}"'
"""On the root of our HTML: MathJax leaves server text alone (see `core.text.LITERAL_CLASSES`)."""
INSTRUCTIONS_SHOWN = 2000
"""Characters of a server's instructions the text repr shows."""


def _first_line(text: str | None) -> str:
    lines = (text or "").strip().splitlines()
    return lines[0].strip() if lines else ""


# JupyterLab right-aligns table cells by default: text reads from the left, each cell from its top.
_LEFT = "text-align:left;vertical-align:top"


def _cell(text: str, tip: str | None = None) -> str:
    title = f' title="{html.escape(shorten(shown(tip), HTML_CELL))}"' if tip and tip.strip() != text else ""
    return f"<td style='{_LEFT}'{title}>{html.escape(shorten(shown(text), HTML_CELL))}</td>"


class Table(list):  # type: ignore[type-arg]
    """A list of SDK objects shown as a table: `rows()` gives each item's cells as strings."""

    columns: ClassVar[tuple[str, ...]] = ()
    noun: ClassVar[str] = "items"

    def __init__(
        self,
        items: Iterable[Any] = (),
        real: Mapping[str, str] | None = None,
        clean: frozenset[str] = frozenset(),
    ) -> None:
        super().__init__(items)
        self.real = dict(real or {})
        """The server's own name (a resource's URI) of each item listed under another: its name quoted what
        was typed, so it is listed with that redacted (`privacy.redacted_listing`)."""
        self.clean = clean
        """Digests of the items shown as the server sent them (kept as they are when listed again)."""
        self.shown_by: Callable[[Table], None] | None = None
        """Shows it in a cell under a display id its server redraws after a list change (`live.tables`)."""

    def real_name(self, listed: str) -> str:
        """The server's own name for the item listed as `listed` (what a call sends)."""
        return self.real.get(listed, listed)

    def row(self, item: Any) -> tuple[str, ...]:
        raise NotImplementedError

    def rows(self) -> list[tuple[str, ...]]:
        return [self.row(item) for item in self]

    def __repr__(self) -> str:
        if not self:
            return f"(no {self.noun})"
        rows = [self.columns, *(tuple(clip_line(c, CELL) for c in row) for row in self.rows())]
        widths = [max(len(r[i]) for r in rows) for i in range(len(self.columns))]
        lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)

    def _ipython_display_(self) -> None:
        if self.shown_by is not None:
            self.shown_by(self)
        else:
            from .. import kernel

            bundle = {"text/plain": repr(self), "text/html": self._repr_html_()}
            kernel.display_as(bundle, f"table-{id(self)}")

    def _repr_html_(self) -> str:
        if not self:
            return f"<p><i>(no {self.noun})</i></p>"
        head = "".join(f"<th style='{_LEFT}'>{h}</th>" for h in self.columns)
        body = "".join(
            "<tr>" + "".join(_cell(c, d) for c, d in zip(row, self._tips(item), strict=True)) + "</tr>"
            for item, row in zip(self, self.rows(), strict=True)
        )
        return f"<table{_LITERAL}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def _tips(self, item: Any) -> Sequence[str | None]:
        """Hover text per cell (the whole description where the cell shows its first line)."""
        return [None] * len(self.columns)


class ToolList(Table):
    """The server's tools (a list of `mcp_types.Tool`), shown as a table: name, title, description, inputs.

    Inputs read `name: type`, with `?` after an optional one.
    """

    columns = ("name", "title", "description", "inputs")
    noun = "tools"

    def row(self, item: mcp_types.Tool) -> tuple[str, ...]:
        return (item.name, item.title or "", _app_mark(item) + _first_line(item.description), _inputs(item))

    def _tips(self, item: mcp_types.Tool) -> Sequence[str | None]:
        return (None, None, item.description, None)


def _app_mark(tool: mcp_types.Tool) -> str:
    """ "[app] " before a tool that shows an MCP App, "[app only] " before one only its app may call."""
    if app_policy.visibility(tool.meta) == ("app",):
        return "[app only] "
    return "[app] " if app_policy.app_resource_uri(tool.meta) else ""


class ResourceList(Table):
    """The server's resources and resource templates (`mcp_types.Resource` / `ResourceTemplate`) as a table.

    A template's row shows its URI template (`file:///{path}`); `templates` lists only those.
    """

    columns = ("uri", "name", "title", "mime type", "description")
    noun = "resources"

    def row(self, item: mcp_types.Resource | mcp_types.ResourceTemplate) -> tuple[str, ...]:
        uri = item.uri_template if isinstance(item, mcp_types.ResourceTemplate) else str(item.uri)
        return (uri, item.name, item.title or "", item.mime_type or "", _first_line(item.description))

    def _tips(self, item: Any) -> Sequence[str | None]:
        return (None, None, None, None, item.description)

    @property
    def templates(self) -> TemplateList:
        return TemplateList(item for item in self if isinstance(item, mcp_types.ResourceTemplate))


class TemplateList(ResourceList):
    """The server's resource templates (`mcp_types.ResourceTemplate`): `srv.resources.templates`, a table."""

    columns = ("uri template", "name", "title", "mime type", "description")
    noun = "resource templates"


class PromptList(Table):
    """The server's prompts (a list of `mcp_types.Prompt`) as a table: name, title, description, arguments.

    Arguments read as names, with `?` after an optional one (as a tool's inputs do).
    """

    columns = ("name", "title", "description", "arguments")
    noun = "prompts"

    def row(self, item: mcp_types.Prompt) -> tuple[str, ...]:
        arguments = ", ".join(f"{a.name}{'' if a.required else '?'}" for a in item.arguments or ())
        return (item.name, item.title or "", _first_line(item.description), arguments)

    def _tips(self, item: mcp_types.Prompt) -> Sequence[str | None]:
        described = [f"{a.name}: {a.description}" for a in item.arguments or () if a.description]
        return (None, None, item.description, "\n".join(described) or None)


def _inputs(tool: mcp_types.Tool) -> str:
    schema = tool.input_schema if isinstance(tool.input_schema, Mapping) else {}
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return ""
    required = set(schema.get("required") or ())
    parts = []
    for name, prop in props.items():
        parts.append(f"{name}: {_kind(prop)}{'' if name in required else '?'}")
    return ", ".join(parts)


def _kind(prop: Any) -> str:
    """A property's type in a word or two: `string`, `integer|string`, `Color` (a `$ref`), `enum`."""
    if not isinstance(prop, Mapping):
        return "any"
    kind = prop.get("type")
    if isinstance(kind, str):
        return kind
    if isinstance(kind, list):
        return "|".join(str(k) for k in kind if k != "null") or "null"
    if isinstance(prop.get("$ref"), str):
        return str(prop["$ref"]).rsplit("/", 1)[-1]
    if "enum" in prop or "const" in prop:
        return "enum"
    for key in ("anyOf", "oneOf"):
        options = prop.get(key)
        if isinstance(options, list) and options:
            # pydantic's Optional[X] is anyOf [X, null]: null says "optional", which `?` already shows.
            kinds = [_kind(o) for o in options if not (isinstance(o, Mapping) and o.get("type") == "null")]
            return "|".join(dict.fromkeys(kinds)) or "null"
    return "any"


# --------------------------------------------------------------------------- the server itself


@dataclass(frozen=True)
class ServerInfo:
    """Who the server is and what it can do, as learned when connecting (`srv.info`)."""

    name: str
    """What the server calls itself (`serverInfo.name`); empty when it did not say."""
    title: str | None
    version: str | None
    protocol_version: str
    """The protocol version both sides agreed on."""
    capabilities: mcp_types.ServerCapabilities
    instructions: str | None = None
    """The server's instructions for its clients (often a tour of its tools), if it sent any."""
    description: str | None = None
    website_url: str | None = None

    @classmethod
    def from_session(
        cls,
        info: mcp_types.Implementation | None,
        protocol_version: str,
        capabilities: mcp_types.ServerCapabilities,
        instructions: str | None,
    ) -> ServerInfo:
        return cls(
            name=info.name if info is not None else "",
            title=info.title if info is not None else None,
            version=(info.version or None) if info is not None else None,
            protocol_version=protocol_version,
            capabilities=capabilities,
            instructions=instructions or None,
            description=info.description if info is not None else None,
            website_url=info.website_url if info is not None else None,
        )

    def capability_list(self) -> list[tuple[str, str]]:
        """Each capability the server declared, with its options in words: `("resources", "subscribe")`."""
        out = []
        for field in type(self.capabilities).model_fields:
            value = getattr(self.capabilities, field)
            if value is not None:
                out.append((field.replace("_", " "), _options(value)))
        return out

    def _facts(self) -> list[tuple[str, str]]:
        """(label, text) pairs, server text included unescaped (the HTML repr escapes them)."""
        facts = [("name", self.name or "(not given)")]
        if self.title:
            facts.append(("title", self.title))
        facts.append(("version", self.version or "(not given)"))
        if self.description:
            facts.append(("description", self.description))
        if self.website_url:
            facts.append(("website", self.website_url))
        facts.append(("protocol", self.protocol_version))
        caps = self.capability_list()
        facts.append(("capabilities", "; ".join(f"{n} ({o})" if o else n for n, o in caps) or "(none)"))
        return facts

    def __repr__(self) -> str:
        facts = self._facts()
        width = max(len(label) for label, _ in facts)
        lines = [f"{label.ljust(width)}  {clip_line(text, 200)}" for label, text in facts]
        if self.instructions:
            text = self.instructions.strip()
            if len(text) > INSTRUCTIONS_SHOWN:
                text = text[: INSTRUCTIONS_SHOWN - 1] + "…"
            lines.append("instructions:")
            lines.extend("  " + shown(line) for line in text.splitlines())
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        facts = self._facts()
        if self.instructions:
            facts.append(("instructions", self.instructions.strip()))
        rows = "".join(
            f"<tr><th style='{_LEFT}'>{label}</th>"
            f"<td style='{_LEFT};white-space:pre-wrap'>{html.escape(shown(text))}</td></tr>"
            for label, text in facts
        )
        return f"<table{_LITERAL}>{rows}</table>"


def _options(value: Any) -> str:
    """A capability's options in words: true flags by name, nested keys listed (`subscribe, list changed`)."""
    if isinstance(value, BaseModel):
        items = {name: getattr(value, name) for name in type(value).model_fields}
        extra = value.model_extra or {}
        items.update(extra)
    elif isinstance(value, Mapping):
        items = dict(value)
    else:
        return ""
    words = []
    for key, item in items.items():
        if item is None or item is False:
            continue
        word = str(key).replace("_", " ")
        if isinstance(item, (BaseModel, Mapping)) and (inner := _options(item)):
            word += f" [{inner}]"
        words.append(word)
    return ", ".join(words)
