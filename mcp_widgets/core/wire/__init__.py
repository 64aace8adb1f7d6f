"""The wire, the pure part: every JSON-RPC message of a connection, redacted when captured, grouped the way a
person reads. One module per concept:

- `_redaction`: the policy, what of a message may be kept and what becomes a marker (read it alone);
- `_clip`: long strings, lists and nesting cut, saying what was cut;
- `_sizing`: a message's size as JSON, counted without writing it; whether it is kept whole;
- `_message`: one message as kept (`WireMessage`), error codes' names;
- `_log`: the ring (`WireLog`), each message tied to its call as it passes;
- `_groups`: one group per call, rounds numbered and a task's polls folded, then the connection's traffic;
- `_views`: the console's text and the live view's JSON.

The client's side (capturing a connection's streams, `srv.wire`) is `client.wire`. See docs/wire.md.
"""

from __future__ import annotations

from ._clip import DEPTH_KEEP, LIST_KEEP, STRING_KEEP, clipped
from ._groups import WireGroup, WireRow
from ._log import DEFAULT_KEEP, WireLog, json_line
from ._message import ERRORS, Direction, Kind, WireMessage, error_name
from ._redaction import http_headers, http_path, is_answer, kept_body, redact, redacted_fields
from ._sizing import WHOLE_KEEP, dumps, fits, json_size, whole_text
from ._views import GROUPS_SHOWN, ROWS_SHOWN, view_state, wire_text

__all__ = [
    "DEFAULT_KEEP",
    "DEPTH_KEEP",
    "ERRORS",
    "GROUPS_SHOWN",
    "LIST_KEEP",
    "ROWS_SHOWN",
    "STRING_KEEP",
    "WHOLE_KEEP",
    "Direction",
    "Kind",
    "WireGroup",
    "WireLog",
    "WireMessage",
    "WireRow",
    "clipped",
    "dumps",
    "error_name",
    "fits",
    "http_headers",
    "http_path",
    "is_answer",
    "json_line",
    "json_size",
    "kept_body",
    "redact",
    "redacted_fields",
    "view_state",
    "whole_text",
    "wire_text",
]
