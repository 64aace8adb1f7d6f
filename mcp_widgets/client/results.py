"""Tool, prompt and resource results as a notebook shows them: text as text, media as media, never HTML.

IPython display formatters, registered when the first server connects (the SDK's objects are returned as
they are; nothing wraps or patches them). Every part is text or media that the notebook renders itself:
server text as plain text (control, bidi and zero-width characters made visible), images as PNG / JPEG /
GIF / WebP up to 5 MB, audio as a player, everything else as a line naming its type and size.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import mcp_types

from .. import kernel
from ..core.text import byte_size, plural, shorten, shown

__all__ = ["MAX_MEDIA_BYTES", "Part", "result_bundles", "result_parts", "result_text", "show_results"]

MAX_MEDIA_BYTES = 5 * 1024 * 1024
"""Larger images and audio are described, not shown."""
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
AUDIO_TYPES = frozenset({"audio/wav", "audio/x-wav", "audio/mpeg", "audio/mp3", "audio/ogg", "audio/webm"})
TEXT_KEEP = 20_000  # characters of one text part shown (a notebook output is no place for megabytes)
MESSAGES_KEEP = 200  # a prompt's messages shown (100,000 short ones were 900 KB of text); the rest counted


@dataclass(frozen=True)
class Part:
    """One piece of a result: `text`, or media (`mime` with its base64 `data`) plus a text line for it."""

    text: str
    mime: str | None = None
    data: str | None = None


def _size(n: int) -> str:
    return byte_size(n, kb_digits=0)


def _decoded_size(data: str) -> int | None:
    try:
        return len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return None


def _media(kind: str, mime: str, data: str, allowed: frozenset[str]) -> Part:
    shown_mime = shown(mime or "unknown type")
    size = _decoded_size(data)
    if size is None:
        return Part(f"[{kind}: {shown_mime}, not valid base64: not shown]")
    line = f"[{kind}: {shown_mime}, {_size(size)}]"
    if mime.lower() not in allowed:
        return Part(f"{line} (not shown: only {', '.join(sorted(allowed))})")
    if size > MAX_MEDIA_BYTES:
        return Part(f"{line} (not shown: over {_size(MAX_MEDIA_BYTES)})")
    return Part(line, mime=mime.lower(), data=data)


def _text(text: str) -> Part:
    return Part(shorten(shown(text), TEXT_KEEP))


def _content(item: Any) -> Iterator[Part]:
    if isinstance(item, mcp_types.TextContent):
        yield _text(item.text)
    elif isinstance(item, mcp_types.ImageContent):
        yield _media("image", item.mime_type, item.data, IMAGE_TYPES)
    elif isinstance(item, mcp_types.AudioContent):
        yield _media("audio", item.mime_type, item.data, AUDIO_TYPES)
    elif isinstance(item, mcp_types.ResourceLink):
        name = shown(item.title or item.name)
        facts = (item.mime_type and shown(item.mime_type), item.size and _size(item.size))
        extra = ", ".join(x for x in facts if x)
        yield Part(f"Resource link: {name} — {shown(str(item.uri))}" + (f" ({extra})" if extra else ""))
    elif isinstance(item, mcp_types.EmbeddedResource):
        yield from _resource(item.resource, "Embedded resource")
    else:  # a content type this SDK version does not know
        yield Part(f"[{shown(str(getattr(item, 'type', type(item).__name__)))} content: not shown]")


def _resource(res: Any, what: str) -> Iterator[Part]:
    mime = getattr(res, "mime_type", None)
    head = f"{what}: {shown(str(res.uri))}" + (f" ({shown(mime)})" if mime else "")
    if isinstance(res, mcp_types.TextResourceContents):
        yield Part(head)
        yield _text(res.text)
    elif isinstance(res, mcp_types.BlobResourceContents):
        size = _decoded_size(res.blob)
        if mime and mime.lower() in IMAGE_TYPES:
            yield Part(head)
            yield _media("image", mime, res.blob, IMAGE_TYPES)
        else:
            yield Part(f"{head}: {_size(size) if size is not None else 'invalid base64'} of data")
    else:
        yield Part(head)


def _repeats(item: Any, structured: Any) -> bool:
    """A text block that only repeats the structured content as JSON (servers send both for old clients)."""
    if structured is None or not isinstance(item, mcp_types.TextContent):
        return False
    try:
        return bool(json.loads(item.text) == structured)
    except ValueError:
        return False


def result_parts(result: Any) -> list[Part]:
    """What to show for a CallToolResult, GetPromptResult or ReadResourceResult, in order."""
    parts: list[Part] = []
    if isinstance(result, mcp_types.CallToolResult):
        if result.is_error:
            parts.append(Part("Error: the tool reported a failure"))
        for item in result.content:
            if not _repeats(item, result.structured_content):
                parts.extend(_content(item))
        if result.structured_content is not None:
            text = json.dumps(result.structured_content, indent=2, ensure_ascii=False, default=str)
            parts.append(Part("Structured content:\n" + shorten(shown(text), TEXT_KEEP)))
        if not parts:
            parts.append(Part("(an empty result)"))
    elif isinstance(result, mcp_types.GetPromptResult):
        if result.description:
            parts.append(_text(result.description))
        parts.append(Part(f"{plural(len(result.messages), 'message')}:"))
        for message in result.messages[:MESSAGES_KEEP]:
            parts.append(Part(f"[{shown(str(message.role))}]"))
            parts.extend(_content(message.content))
        if len(result.messages) > MESSAGES_KEEP:
            rest = len(result.messages) - MESSAGES_KEEP
            parts.append(Part(f"… ({plural(rest, 'more message')}: the result's .messages has them all)"))
    elif isinstance(result, mcp_types.ReadResourceResult):
        for res in result.contents:
            parts.extend(_resource(res, "Resource"))
        if not result.contents:
            parts.append(Part("(no contents)"))
    return parts


def result_text(result: Any) -> str:
    """The whole result as plain text (media as their lines): for terminals and `text/plain`."""
    return "\n".join(part.text for part in result_parts(result))


RESULT_TYPES = (mcp_types.CallToolResult, mcp_types.GetPromptResult, mcp_types.ReadResourceResult)


def result_bundles(result: Any) -> list[dict[str, str]]:
    """The result as display bundles, in order: runs of text joined into one, each medium on its own."""
    bundles: list[dict[str, str]] = []
    texts: list[str] = []
    for part in result_parts(result):
        if part.mime is None or part.data is None:
            texts.append(part.text)
            continue
        if texts:
            bundles.append({"text/plain": "\n".join(texts)})
            texts = []
        bundle = {"text/plain": part.text}
        if part.mime.startswith("image/"):
            bundle[part.mime] = part.data
        else:  # audio: notebooks have no audio renderer; a player of ours, the data checked base64
            source = html.escape(f"data:{part.mime};base64,{part.data}", quote=True)
            bundle["text/html"] = f'<audio controls src="{source}"></audio>'
        bundles.append(bundle)
    if texts:
        bundles.append({"text/plain": "\n".join(texts)})
    return bundles


def show_results() -> None:
    """Make notebooks show tool, prompt and resource results readably (idempotent; no kernel: nothing)."""
    kernel.show_types_with(RESULT_TYPES, result_bundles, result_text)
