"""The wire's redaction policy: what of a message may be kept, and what becomes a marker.

What a person typed is never kept. We send it in four places, each redacted by its shape (`redact`):
- an accepted elicitation answer's `content` (and any answer we send shaped as one): its field names,
  "[redacted: 2 fields: name, seats]"; the action ("accept", "decline") is kept;
- a 2026-07-28 round's `inputResponses`: each answer's action kept, its content a marker;
- the arguments of a call a person typed (a tool or prompt form, an app): their names, "[redacted: 1
  argument: city]"; the URI a template form filled in: "[redacted: a URI filled in from a template form]";
  arguments your code passes are kept;
- a `completion/complete`: the value typed so far and the context's values become markers; its result
  keeps how many values came ("[redacted: 3 values]"), its error only its code.
A `requestState` (the server's own state, which may carry earlier answers) keeps its size only. What comes
in may quote a typed value anywhere: each string that does is redacted (`kept_body`). An HTTP exchange
keeps its status, the `Mcp-*` headers, `WWW-Authenticate` and the content type; credentials and cookies
are markers naming their scheme, the session id is shortened, and the URL keeps its path, not its query
(`http_headers`, `http_path`). Everything else is kept as the server or your code sent it (clipped when
long: `_clip`).

`core.redaction` finds typed values in a text (every spelling of them); this module decides where to look.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ..redaction import REDACTED, Matcher, redact_head, scrub, strip_url_secrets
from ..text import clip_line, plural, shown
from ._clip import clipped
from ._sizing import dumps, fits

__all__ = ["http_headers", "http_path", "is_answer", "kept_body", "redact", "redacted_fields"]


def redacted_fields(content: Any, what: str = "field") -> str:
    """The marker for typed content: "[redacted: 3 fields: name, email, seats]" (names, never values)."""
    if isinstance(content, Mapping):
        if not content:
            return f"[redacted: no {what}s]"
        names = ", ".join(clip_line(k, 40) for k in list(content)[:12])
        more = ", …" if len(content) > 12 else ""
        return f"[redacted: {plural(len(content), what)}: {names}{more}]"
    return REDACTED


def _answers(responses: Any) -> Any:
    """`inputResponses` with each answer's content a marker (its action stays: what the person chose)."""
    if not isinstance(responses, Mapping):
        return REDACTED
    kept: dict[str, Any] = {}
    for key, answer in responses.items():
        if isinstance(answer, Mapping):
            kept[key] = {k: (redacted_fields(v) if k == "content" else v) for k, v in answer.items()}
        else:
            kept[key] = REDACTED
    return kept


def _opaque(state: Any) -> str:
    """A 2026-07-28 `requestState`: the server's own state, which may carry the answers of earlier rounds
    in any encoding (the demo server's does), so only its size is kept."""
    return f"[opaque: {len(state):,} characters]" if isinstance(state, str) else "[opaque]"


def is_answer(result: Any) -> bool:
    """A result shaped as an elicitation's answer (`action`, and `content` when accepted): what it answers
    is not looked up by its id, which a server may have used twice."""
    return isinstance(result, Mapping) and isinstance(result.get("action"), str)


def _completion_asked(params: Mapping[str, Any]) -> dict[str, Any]:
    """A `completion/complete` request as kept: the partial value and the context's values are typed (as a
    person types them into a form, or code passes them on): names only."""
    params = dict(params)
    argument = params.get("argument")
    if isinstance(argument, Mapping):
        params["argument"] = {**argument, "value": "[redacted: the value typed so far]"}
    context = params.get("context")
    if isinstance(context, Mapping) and isinstance(context.get("arguments"), Mapping):
        params["context"] = {**context, "arguments": redacted_fields(context["arguments"], "argument")}
    return params


def _completion_answered(body: Mapping[str, Any]) -> Mapping[str, Any]:
    """A `completion/complete` result as kept: how many values, not them (they extend what was typed); an
    error keeps its code, not its message or data (they may quote what was typed)."""
    error = body.get("error")
    if isinstance(error, Mapping):
        kept = {"code": error.get("code"), "message": "[redacted: a completion's error message]"}
        return {**body, "error": kept}
    result = body.get("result")
    completion = result.get("completion") if isinstance(result, Mapping) else None
    if not isinstance(completion, Mapping) or not isinstance(completion.get("values"), list):
        return body
    count = len(completion["values"])
    marker = f"[redacted: {count} {'value' if count == 1 else 'values'}]"
    assert isinstance(result, Mapping)
    return {**body, "result": {**result, "completion": {**completion, "values": marker}}}


def redact(
    body: Mapping[str, Any],
    *,
    sent: bool,
    answers: str | None,
    typed_arguments: bool,
) -> Mapping[str, Any]:
    """What of `body` may be kept: see the module's docstring (`body` itself when all of it may). `sent`:
    we sent it; `answers` is the method of the server's request it answers, when known."""
    params, method = body.get("params"), body.get("method")
    if method == "completion/complete" and isinstance(params, Mapping):
        body = {**body, "params": _completion_asked(params)}
    elif answers == "completion/complete":
        return _completion_answered(body)
    typed_in = (
        typed_arguments
        and isinstance(params, Mapping)
        and (
            (method in ("tools/call", "prompts/get") and "arguments" in params)
            or (method == "resources/read" and "uri" in params)
        )
    )
    if isinstance(params, Mapping) and ("inputResponses" in params or "requestState" in params or typed_in):
        params = dict(params)
        if "inputResponses" in params:
            params["inputResponses"] = _answers(params["inputResponses"])
        if typed_arguments and method in ("tools/call", "prompts/get") and "arguments" in params:
            params["arguments"] = redacted_fields(params["arguments"], "argument")
        if typed_arguments and method == "resources/read" and "uri" in params:  # filled in from a form
            params["uri"] = "[redacted: a URI filled in from a template form]"
        if "requestState" in params:
            params["requestState"] = _opaque(params["requestState"])
        body = {**body, "params": params}
    result = body.get("result")
    if isinstance(result, Mapping):
        # Any answer we send shaped as an elicitation's is typed, whatever request its id names.
        typed = sent and "content" in result and (answers == "elicitation/create" or is_answer(result))
        if typed or "requestState" in result:
            result = dict(result)
            if typed:
                result["content"] = redacted_fields(result["content"])
            if "requestState" in result:
                result["requestState"] = _opaque(result["requestState"])
            body = {**body, "result": result}
    return body


def kept_body(
    message: Mapping[str, Any], body: Mapping[str, Any], raw: str | None, typed: Matcher | None
) -> tuple[Any, str]:
    """What is kept of `message` (`body`: as `redact` left it), and its JSON text: with `typed` (what the
    person typed, for a message that came in), every string quoting it redacted. `raw` is the message's
    JSON text when the caller has it; a message without it, or over `WHOLE_KEEP`, is kept clipped."""
    if raw is not None and fits(raw):
        # `raw` is the message as JSON text, where a typed value shows as itself or JSON-escaped (both
        # matched): one search instead of a walk through every string, for the many that quote none.
        if typed is not None and typed.search(raw) is not None:
            body = scrub(body, typed)
        return body, raw if body is message else dumps(body)
    clipped_body = clipped(body, typed=typed)  # clipped first: only what is kept is searched (not 50 MB)
    return clipped_body, dumps(clipped_body)


def http_path(url: str, typed: Matcher | None = None) -> str:
    """What an HTTP exchange keeps of its URL: the path, without secrets, never the query (a server may
    redirect to a path holding a typed value: `typed` redacts it)."""
    path = redact_head(urlsplit(url).path or "/", typed, 2000)
    return strip_url_secrets(shown(path, multiline=False))


_KEPT_HEADERS = ("content-type",)
_CREDENTIALS = {
    "authorization": "credentials",
    "cookie": "cookies",
    "set-cookie": "cookies",
    "proxy-authorization": "credentials",
}


def http_headers(headers: Mapping[str, str], typed: Matcher | None = None) -> dict[str, str]:
    """The headers a person debugging MCP needs: `Mcp-*`, `WWW-Authenticate`, the content type; credentials
    as a marker naming their scheme ("Bearer"), the session id shortened; what `typed` matches (a value a
    person typed, which a server may echo in a header) redacted."""
    kept: dict[str, str] = {}
    for name, value in headers.items():
        lower = name.lower()
        if typed is not None and lower not in _CREDENTIALS:
            name, value = redact_head(name, typed, 2000), redact_head(value, typed, 2000)
        if lower in _CREDENTIALS:
            scheme = value.split(" ", 1)[0] if lower.endswith("authorization") and " " in value else ""
            what = f"{scheme} token" if scheme and len(scheme) < 20 else _CREDENTIALS[lower]
            kept[name] = f"[redacted: {clip_line(what, 30)}]"
        elif lower == "mcp-session-id":
            kept[name] = f"{shown(value[:8], multiline=False)}…" if len(value) > 8 else shown(value)
        elif lower.startswith("mcp-") or lower in _KEPT_HEADERS or lower == "www-authenticate":
            kept[name] = clip_line(value, 300)
    return kept
