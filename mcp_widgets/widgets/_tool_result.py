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
MAX_ERROR_TEXT = 10_000
"""The same for a result the tool marked as an error: a refusal is to read (a 1 MB one was shown whole)."""


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
    return _finished("\n".join(line for line, _ in _pieces(result)), _limit(result))


def _limit(result: Any) -> int:
    return MAX_ERROR_TEXT if getattr(result, "is_error", False) else MAX_RESULT_TEXT


def _finished(text: str, limit: int = MAX_RESULT_TEXT) -> str:
    if len(text) > limit:
        text = text[:limit] + f"\n… (cut at {limit:,} characters; see form.result)"
    return plain_text(text) + "\n"


def _pieces(result: Any) -> list[tuple[str, str | None]]:
    """The result's lines in the server's order, each with the base64 data of the image or audio it names
    (None for the others)."""
    parts: list[tuple[str, str | None]] = []
    if getattr(result, "is_error", False):
        parts.append(("⚠ The tool reported an error:", None))
    texts: list[str] = []
    for block in getattr(result, "content", None) or ():
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(block.text)
            parts.append((block.text, None))
        elif kind in ("image", "audio"):
            data = getattr(block, "data", "") or ""
            size = len(data) * 3 // 4
            parts.append((f"[{kind}: {getattr(block, 'mime_type', '?')}, about {size:,} bytes]", data))
        elif kind == "resource_link":
            parts.append((f"[resource link: {getattr(block, 'uri', '')}]", None))
        elif kind == "resource":
            resource = getattr(block, "resource", None)
            blob = getattr(resource, "blob", None)
            line = f"[resource: {getattr(resource, 'uri', '')}]"
            parts.append((line, blob if isinstance(blob, str) else None))
            if isinstance(resource_text := getattr(resource, "text", None), str):
                parts.append((resource_text, None))
        else:
            parts.append((f"[{kind or 'unknown'} content]", None))
    structured = getattr(result, "structured_content", None)
    if structured is not None and not any(_same_json(t, structured) for t in texts):
        parts.append(("Structured content:", None))
        parts.append((json.dumps(structured, indent=2, ensure_ascii=False, default=str), None))
    if not parts:
        parts.append(("(the tool returned nothing)", None))
    return parts


def show_result(out: Any, result: Any, text: str | None = None) -> None:
    """Append a finished call's result to `out` (an Output) in the server's order: its text, with each
    image or audio the call showed (entries of their own, after the call's) under the line naming it. With
    `text` (a prompt's or resource's result as one text), that text, the media after it."""
    outputs = list(out.outputs)
    media = [e for e in outputs if (e.get("metadata") or {}).get("mcp_widgets_media")]
    shown_before = [e for e in outputs if e not in media]
    entries: list[dict[str, Any]] = []
    if text is None:
        lines: list[str] = []
        whole = "\n".join(line for line, _ in _pieces(result))
        limit = _limit(result)
        pieces = _pieces(result) if len(whole) <= limit else [(whole, None)]
        for line, data in pieces:
            lines.append(line)
            found = next((e for e in media if data is not None and _holds(e, data)), None)
            if found is not None:
                entries += [_stdout(_finished("\n".join(lines), limit)), found]
                media.remove(found)
                lines = []
        if lines:
            entries.append(_stdout(_finished("\n".join(lines), limit)))
    else:
        entries.append(_stdout(text))
    out.outputs = (*shown_before, *entries, *media)


def _stdout(text: str) -> dict[str, Any]:
    return {"output_type": "stream", "name": "stdout", "text": text}


def _holds(entry: dict[str, Any], data: str) -> bool:
    """Whether a media entry shows `data` (an image's own bundle, or the audio player's address)."""
    bundle = entry.get("data") or {}
    return any(
        isinstance(v, str) and (v == data if k.startswith("image/") else k == "text/html" and data in v)
        for k, v in bundle.items()
    )


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
