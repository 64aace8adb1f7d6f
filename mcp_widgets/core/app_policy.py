"""MCP Apps (the `io.modelcontextprotocol/ui` extension, spec 2026-01-26), the pure part: which tool has an
app, who may call a tool, the document an app is shown as, and the bridge's messages (stdlib only).

An app is untrusted code. It is shown in an iframe whose origin is opaque (`sandbox` without
`allow-same-origin`, the document given as `srcdoc`), with the spec's Content Security Policy injected as the
document's first element. Two decisions tighten the spec's policy, as it allows ("MAY further restrict"):
- `'self'` is left out everywhere: in a `srcdoc` document it would name the notebook server's origin, the
  one thing an app must never reach. What an app may load comes from `data:`, inline code, and the domains
  its resource declares.
- `base-uri` is `'none'` and `form-action` `'none'` unless declared, so no relative URL and no form
  submission can point at the notebook server either.
The app's frame sits in a frame of ours (the spec's sandbox proxy) whose policy, `frame_policy`, is only
`frame-src`: it keeps the app's frame from being taken to another page.
Declared domains are checked: each must be a plain origin (`https://host[:port]`, `wss://…`, `https://*.host`);
anything else (a quote, a `;`, a path, `*`) is dropped and named, so a server cannot inject a directive.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "APP_MIME_TYPE",
    "EXTENSION_ID",
    "MAX_DOCUMENT",
    "MAX_MESSAGE",
    "PROTOCOL_VERSION",
    "AppDocument",
    "AppError",
    "AppFile",
    "BridgeMessage",
    "app_resource_uri",
    "callable_by_app",
    "content_security_policy",
    "error_response",
    "file_from",
    "file_name",
    "frame_policy",
    "parse_message",
    "permission_keys",
    "permission_policy",
    "read_document",
    "style_variables",
    "visibility",
    "with_policy",
]

EXTENSION_ID = "io.modelcontextprotocol/ui"
APP_MIME_TYPE = "text/html;profile=mcp-app"
PROTOCOL_VERSION = "2026-01-26"
"""The bridge's protocol version (what `ui/initialize` answers)."""
MAX_DOCUMENT = 8 * 1024 * 1024
"""Characters of an app's HTML document shown at most; a larger one is refused with a line."""
MAX_MESSAGE = 1024 * 1024
"""Characters of one bridge message from an app (as JSON) taken at most; a larger one gets an error."""
MAX_URI = 2048
MAX_DOWNLOAD = 20 * 1024 * 1024
"""Bytes an app may offer for download in one request, all files together."""

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
DENIED = -32000
"""The spec's implementation-defined error: refused by the host (or the person)."""


class AppError(ValueError):
    """An app that cannot be shown (its resource is missing, of another type, too large, not text)."""


def _ui(meta: Any) -> Mapping[str, Any]:
    ui = meta.get("ui") if isinstance(meta, Mapping) else None
    return ui if isinstance(ui, Mapping) else {}


def app_resource_uri(meta: Any) -> str | None:
    """The `ui://` resource a tool's `_meta` names (`ui.resourceUri`, else the deprecated flat
    `ui/resourceUri`), or None when it names none (or names something that is not a `ui://` URI)."""
    uri = _ui(meta).get("resourceUri")
    if uri is None and isinstance(meta, Mapping):
        uri = meta.get("ui/resourceUri")
    if isinstance(uri, str) and uri.startswith("ui://") and len(uri) <= MAX_URI:
        return uri
    return None


def visibility(meta: Any) -> tuple[str, ...]:
    """Who may call a tool: `("model", "app")` unless its `_meta.ui.visibility` says otherwise.

    A visibility that is not a list of those two words counts as `("model",)`: an app may call a tool only
    when the server clearly allows it.
    """
    seen = _ui(meta).get("visibility")
    if seen is None:
        return ("model", "app")
    if not isinstance(seen, list) or not all(v in ("model", "app") for v in seen):
        return ("model",)
    return tuple(dict.fromkeys(seen))


def callable_by_app(meta: Any) -> bool:
    """Whether an app of the same server may call this tool (`"app"` in its visibility)."""
    return "app" in visibility(meta)


# -- the document -------------------------------------------------------------------------------------------

_ORIGIN = re.compile(
    r"(?:https?|wss?)://(?:\*\.)?(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*"
    r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?::[0-9]{1,5})?"
)
_INLINE = "'unsafe-inline'"
_CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
_PERMISSIONS = {
    "camera": "camera",
    "microphone": "microphone",
    "geolocation": "geolocation",
    "clipboardWrite": "clipboard-write",
}


@dataclass(frozen=True)
class AppDocument:
    """What an app is shown as: its HTML with the policy in front, and what it was granted."""

    html: str = field(repr=False)
    """The document given to the iframe: the app's own HTML, its policy as the first element."""
    policy: str
    """The Content Security Policy it runs under."""
    allow: str
    """The iframe's `allow` attribute (the permissions granted), "" for none."""
    granted: tuple[str, ...] = ()
    """The permissions granted, in words ("camera", "clipboard-write")."""
    approved: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """The declared domains the policy lets through, by the spec's keys (`connectDomains`, ...)."""
    dropped: tuple[str, ...] = ()
    """Declared entries left out of the policy (not a plain origin), for a line that says so."""
    prefers_border: bool | None = None
    frame_policy: str = "frame-src 'none'"
    """The policy of the frame around the app's own (see `frame_policy`): where the app's frame may go."""

    @property
    def domains(self) -> tuple[str, ...]:
        """Every outside origin the policy lets the app reach."""
        return tuple(dict.fromkeys(d for values in self.approved.values() for d in values))


def _domains(csp: Mapping[str, Any], key: str, dropped: list[str]) -> list[str]:
    values = csp.get(key)
    if not isinstance(values, list):
        if values is not None:
            dropped.append(f"{key} (not a list)")
        return []
    kept: list[str] = []
    for value in values[:50]:
        if isinstance(value, str) and _ORIGIN.fullmatch(value):
            kept.append(value.lower())
        else:
            dropped.append(repr(value)[:80])
    if len(values) > 50:
        dropped.append(f"{len(values) - 50} more in {key}")
    return list(dict.fromkeys(kept))


def content_security_policy(meta_ui: Any) -> tuple[str, dict[str, tuple[str, ...]], tuple[str, ...]]:
    """The policy for an app whose resource declares `meta_ui` (its `_meta.ui`): the spec's restrictive
    default, widened only by the well-formed domains it declares. Returns (policy, approved, dropped)."""
    csp = meta_ui.get("csp") if isinstance(meta_ui, Mapping) else None
    dropped: list[str] = []
    if csp is not None and not isinstance(csp, Mapping):
        dropped.append("csp (not an object)")
        csp = None
    csp = csp or {}
    connect, resource, frame, base = (_domains(csp, key, dropped) for key in _CSP_KEYS)

    def sources(*parts: str, declared: Sequence[str] = (), empty: str = "'none'") -> str:
        joined = " ".join([*parts, *declared])
        return joined or empty

    directives = [
        "default-src 'none'",
        f"script-src {sources(_INLINE, declared=resource)}",
        f"style-src {sources(_INLINE, declared=resource)}",
        f"img-src {sources('data:', 'blob:', declared=resource)}",
        f"font-src {sources('data:', declared=resource)}",
        f"media-src {sources('data:', 'blob:', declared=resource)}",
        f"connect-src {sources(declared=connect)}",
        f"frame-src {sources(declared=frame)}",
        "object-src 'none'",
        f"base-uri {sources(declared=base)}",
        "form-action 'none'",
    ]
    kept = zip(_CSP_KEYS, (connect, resource, frame, base), strict=True)
    approved = {key: tuple(values) for key, values in kept if values}
    return "; ".join(directives), approved, tuple(dropped)


def permission_keys(granted: Sequence[str]) -> list[str]:
    """The spec's keys (`clipboardWrite`) of permissions granted in words (`clipboard-write`)."""
    keys = {policy: key for key, policy in _PERMISSIONS.items()}
    return [keys[name] for name in granted if name in keys]


def permission_policy(meta_ui: Any) -> tuple[str, tuple[str, ...]]:
    """The iframe's `allow` attribute for the permissions a resource asks (camera, microphone, geolocation,
    clipboard write: the spec's four, nothing else), and their names."""
    asked = meta_ui.get("permissions") if isinstance(meta_ui, Mapping) else None
    if not isinstance(asked, Mapping):
        return "", ()
    names = tuple(policy for key, policy in _PERMISSIONS.items() if isinstance(asked.get(key), Mapping))
    return "; ".join(names), names


_DOCTYPE = re.compile(r"\A(?:\ufeff)?\s*(?:<!--.*?-->\s*)*<!doctype[^>]*>", re.IGNORECASE | re.DOTALL)


def with_policy(html: str, policy: str) -> str:
    """`html` with a `<meta http-equiv="Content-Security-Policy">` as its first element (after a doctype, so
    the document keeps its standards mode): nothing in the app runs before the policy applies."""
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    match = _DOCTYPE.match(html)
    cut = match.end() if match else 0
    return html[:cut] + meta + html[cut:]


def read_document(uri: str, contents: Sequence[Any]) -> AppDocument:
    """The app document from a `resources/read` result's contents (each a mapping, as on the wire).

    Raises:
        AppError: No content for `uri` of type `text/html;profile=mcp-app`, undecodable, or too large.
    """
    chosen = None
    for item in contents:
        if isinstance(item, Mapping) and item.get("uri") in (uri, None):
            chosen = item
            break
    if chosen is None and len(contents) == 1 and isinstance(contents[0], Mapping):
        chosen = contents[0]
    if chosen is None:
        raise AppError(f"the server sent no content for {uri}")
    mime = str(chosen.get("mimeType") or "")
    if mime.replace(" ", "").lower() != APP_MIME_TYPE:
        raise AppError(f"{uri} is of type {mime[:80]!r}, not {APP_MIME_TYPE!r}")
    text = chosen.get("text")
    if not isinstance(text, str):
        blob = chosen.get("blob")
        if not isinstance(blob, str):
            raise AppError(f"{uri} has neither text nor blob")
        if len(blob) > MAX_DOCUMENT * 4 // 3 + 4:
            raise AppError(f"{uri} is larger than {MAX_DOCUMENT // (1024 * 1024)} MB")
        try:
            text = base64.b64decode(blob, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise AppError(f"{uri} has a blob that is not base64 UTF-8 text") from exc
    if len(text) > MAX_DOCUMENT:
        raise AppError(f"{uri} is larger than {MAX_DOCUMENT // (1024 * 1024)} MB")
    meta = chosen.get("_meta")
    meta_ui = _ui(meta)
    policy, approved, dropped = content_security_policy(meta_ui)
    allow, granted = permission_policy(meta_ui)
    border = meta_ui.get("prefersBorder")
    return AppDocument(
        html=with_policy(text, policy),
        policy=policy,
        allow=allow,
        granted=granted,
        approved=approved,
        dropped=dropped,
        prefers_border=border if isinstance(border, bool) else None,
        frame_policy=frame_policy(approved.get("frameDomains", ())),
    )


def frame_policy(frame_domains: Sequence[str]) -> str:
    """The policy of the frame the app's frame sits in (the spec's sandbox proxy): only `frame-src`, which
    governs every load of the app's frame, its own navigations included (a `srcdoc` load is not one it
    checks). It allows what the app may frame itself (its declared `frameDomains`, else nothing): a frame
    inherits its parent's policy, so a tighter one would block the app's own frames, and anything more
    would tighten the app's declared policy too."""
    return "frame-src " + (" ".join(frame_domains) or "'none'")


# -- the bridge's messages ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class BridgeMessage:
    """One JSON-RPC 2.0 message from an app, checked: a request (`id` set), a notification, or a response."""

    kind: str
    """"request", "notification" or "response"."""
    method: str = ""
    id: str | int | None = None
    params: Mapping[str, Any] = field(default_factory=dict, repr=False)
    result: Any = field(default=None, repr=False)
    error: Any = field(default=None, repr=False)


def _id(value: Any) -> str | int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and abs(value) < 2**53:
        return value
    if isinstance(value, str) and len(value) <= 200:
        return value
    return None


def parse_message(text: str) -> BridgeMessage | dict[str, Any]:
    """Check one message from an app (JSON text). Returns the message, or the JSON-RPC error response to
    send back when it is malformed (with the request's id when one could be read, else null)."""
    if len(text) > MAX_MESSAGE:
        return error_response(None, INVALID_REQUEST, f"message larger than {MAX_MESSAGE // 1024} KB")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return error_response(None, PARSE_ERROR, "not JSON")
    if not isinstance(data, dict):
        return error_response(None, INVALID_REQUEST, "not a JSON-RPC object")
    has_id = "id" in data
    msg_id = _id(data.get("id"))
    if data.get("jsonrpc") != "2.0":
        return error_response(msg_id, INVALID_REQUEST, 'jsonrpc must be "2.0"')
    if has_id and msg_id is None and data.get("id") is not None:
        return error_response(None, INVALID_REQUEST, "id must be a string or an integer")
    method = data.get("method")
    if method is None:
        if not has_id or ("result" in data) == ("error" in data):
            return error_response(msg_id, INVALID_REQUEST, "neither a request, a notification nor a response")
        return BridgeMessage("response", id=msg_id, result=data.get("result"), error=data.get("error"))
    if not isinstance(method, str) or not 0 < len(method) <= 100:
        return error_response(msg_id, INVALID_REQUEST, "method must be a short string")
    params = data.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        return error_response(msg_id, INVALID_PARAMS, "params must be an object")
    if has_id and msg_id is not None:
        return BridgeMessage("request", method=method, id=msg_id, params=params)
    return BridgeMessage("notification", method=method, params=params)


def error_response(msg_id: str | int | None, code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC error response."""
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


_VARIABLE = re.compile(r"--[a-z0-9-]{1,60}")


def style_variables(raw: Any) -> dict[str, str]:
    """The style variables a front end reported, kept only when well formed (a CSS custom property name,
    a short value without `;`, braces or angle brackets): they go to the app as they are."""
    if not isinstance(raw, Mapping):
        return {}
    kept: dict[str, str] = {}
    for key, value in list(raw.items())[:100]:
        if (
            isinstance(key, str)
            and _VARIABLE.fullmatch(key)
            and isinstance(value, str)
            and 0 < len(value) <= 200
            and not any(c in value for c in ";{}<>")
        ):
            kept[key] = value.strip()
    return kept


# -- files an app offers ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AppFile:
    """A file an app offers for download (`ui/download-file`), decoded."""

    name: str
    mime: str
    data: bytes = field(repr=False)


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._()\- ]+")


def file_name(uri: str) -> str:
    """A safe file name from a resource URI: its last path segment, decoded, with anything but letters,
    digits, `._-() ` replaced, no leading dot, at most 100 characters ("download" when nothing is left)."""
    from urllib.parse import unquote

    last = unquote(uri.split("?", 1)[0].split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1])
    if "://" in last or ":" in last:
        last = last.rsplit(":", 1)[-1]
    name = _UNSAFE_NAME.sub("_", last).strip(" .")[:100]
    return name or "download"


def file_from(resource: Any) -> AppFile:
    """The file in resource contents (`{uri, mimeType, text | blob}`, as on the wire).

    Raises:
        AppError: Not resource contents, undecodable, or larger than MAX_DOWNLOAD.
    """
    if not isinstance(resource, Mapping) or not isinstance(resource.get("uri"), str):
        raise AppError("a file to download must be resource contents with a uri")
    mime = resource.get("mimeType")
    mime = mime if isinstance(mime, str) and len(mime) <= 100 else "application/octet-stream"
    text, blob = resource.get("text"), resource.get("blob")
    if isinstance(text, str):
        if len(text) > MAX_DOWNLOAD:
            raise AppError(f"a file larger than {MAX_DOWNLOAD // (1024 * 1024)} MB")
        data = text.encode("utf-8")
    elif isinstance(blob, str):
        if len(blob) > MAX_DOWNLOAD * 4 // 3 + 4:
            raise AppError(f"a file larger than {MAX_DOWNLOAD // (1024 * 1024)} MB")
        try:
            data = base64.b64decode(blob, validate=True)
        except binascii.Error as exc:
            raise AppError("a file whose blob is not base64") from exc
    else:
        raise AppError("a file with neither text nor blob")
    return AppFile(file_name(resource["uri"]), mime, data)
