"""A tool call's result (and errors) as the plain text a tool form shows under itself."""

from __future__ import annotations

import html
import json
import re
from typing import Any

from ..core.text import shorten, shown

__all__ = ["format_result"]

MAX_RESULT_TEXT = 200_000
"""Result text beyond this many characters is cut (the full result stays in `form.result`)."""


def describe_failure(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return shorten(text, 2000)


def plain_text(text: str) -> str:
    """Server text for a stream output: control, bidi and zero-width characters shown, not obeyed."""
    return shown(text)


def format_result(result: Any) -> str:
    """A `CallToolResult` as plain text: text blocks, a line for other content, then structured content.

    Structured content is left out when a text block already holds the same JSON (MCPServer sends both).
    """
    parts: list[str] = []
    if getattr(result, "is_error", False):
        parts.append("⚠ The tool reported an error:")
    texts: list[str] = []
    for block in getattr(result, "content", None) or ():
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(block.text)
            parts.append(block.text)
        elif kind in ("image", "audio"):
            size = len(getattr(block, "data", "") or "") * 3 // 4
            parts.append(f"[{kind}: {getattr(block, 'mime_type', '?')}, about {size:,} bytes]")
        elif kind == "resource_link":
            parts.append(f"[resource link: {getattr(block, 'uri', '')}]")
        elif kind == "resource":
            resource = getattr(block, "resource", None)
            parts.append(f"[resource: {getattr(resource, 'uri', '')}]")
            if isinstance(resource_text := getattr(resource, "text", None), str):
                parts.append(resource_text)
        else:
            parts.append(f"[{kind or 'unknown'} content]")
    structured = getattr(result, "structured_content", None)
    if structured is not None and not any(_same_json(t, structured) for t in texts):
        parts.append("Structured content:")
        parts.append(json.dumps(structured, indent=2, ensure_ascii=False, default=str))
    if not parts:
        parts.append("(the tool returned nothing)")
    text = "\n".join(parts)
    if len(text) > MAX_RESULT_TEXT:
        text = text[:MAX_RESULT_TEXT] + f"\n… (cut at {MAX_RESULT_TEXT:,} characters; see form.result)"
    return plain_text(text) + "\n"


def _same_json(text: str, value: Any) -> bool:
    """Whether a text block already says what `value` holds (as JSON, or MCPServer's {"result": ...} wrap)."""
    if isinstance(value, dict) and list(value) == ["result"] and value["result"] == text:
        return True
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return bool(
        parsed == value
        or (isinstance(value, dict) and list(value) == ["result"] and parsed == value["result"])
    )


def label(name: str, title: str) -> str:
    """An argument's title in sentence case, like a person's label ("Sort by", "Kind"): a tool's arguments
    come titled by pydantic ("Sort By"), or only named ("kind", "sortBy"). A title of its own stays."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ").split()
    if title not in (name, name.title().replace("_", " ")) or not words:
        return title
    rest = [w if w.isupper() else w.lower() for w in words[1:]]
    return " ".join([words[0][:1].upper() + words[0][1:], *rest])


_DONE = re.compile(r"^(?:tool|prompt|resource) '.*' on '.*': done(?: \(the tool reported an error\))?$")


def shorten_status(out: Any) -> None:
    """Cut the result's lines from under a finished call's status line in `out` (an Output): the tool form
    shows the whole result in its own area."""
    outputs = list(out.outputs)
    for i, entry in enumerate(outputs):
        data = entry.get("data") or {}
        if not (entry.get("metadata") or {}).get("mcp_widgets_call") or not isinstance(data, dict):
            continue
        lines = str(data.get("text/plain", "")).split("\n")
        at = next((n for n, line in enumerate(lines) if _DONE.match(line)), None)
        if at is None:
            continue
        stop = next((n for n in range(at + 1, len(lines)) if lines[n].startswith("Log (")), len(lines))
        block = "\n".join(lines[at + 1 : stop])
        if not block:
            return
        data = {
            mime: text.replace("\n" + block, "", 1).replace("\n" + html.escape(block), "", 1)
            if isinstance(text, str)
            else text
            for mime, text in data.items()
        }
        outputs[i] = {**entry, "data": data}
        out.outputs = tuple(outputs)
        return


def media_last(out: Any) -> None:
    """Put a finished call's images and audio (shown by the call in `out`, an Output) under the result's
    text, as an awaited result shows them after its text."""
    outputs = list(out.outputs)
    media = [e for e in outputs if (e.get("metadata") or {}).get("mcp_widgets_media")]
    if media:
        out.outputs = (*(e for e in outputs if e not in media), *media)
