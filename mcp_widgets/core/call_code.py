"""A call as one line of Python: what a form's "Copy as code" gives (`form.code`).

`call_code("srv", "call_tool", "weather", {"city": "Oslo"})` is `await srv.call_tool("weather", {"city":
"Oslo"})`. Values are written as Python literals: strings with every character that is not printable escaped
(a bidirectional override or a zero-width space in a value cannot hide in the code; `repr`'s rule), JSON's
`true`/`false`/`null` as `True`/`False`/`None`. The arguments named in `hidden` (a masked field: a password,
a token) are written as `...` and a comment after the call names them (as literals: a name cannot end the
comment with a line break): a placeholder, never the value.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

__all__ = ["call_code", "literal"]


def call_code(
    receiver: str,
    method: str,
    first: str,
    arguments: Mapping[str, Any] | None = None,
    hidden: Collection[str] = (),
) -> str:
    """`await RECEIVER.METHOD("FIRST", {ARGUMENTS})`, the hidden arguments as `...` (named in a comment)."""
    parts = [literal(first)]
    left = [name for name in (arguments or {}) if name in hidden]
    if arguments:
        entries = (f"{literal(k)}: {'...' if k in hidden else literal(v)}" for k, v in arguments.items())
        parts.append("{" + ", ".join(entries) + "}")
    code = f"await {receiver}.{method}({', '.join(parts)})"
    if left:
        code += f"  # fill in {', '.join(literal(name) for name in left)}: not copied"
    return code


def literal(value: Any) -> str:
    """`value` (a JSON value) as a Python literal."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f'float("{value}")'
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{literal(str(k))}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    return _string(str(value))


def _string(text: str) -> str:
    """Double quotes where the text has none (as the docs write calls), else `repr`'s choice."""
    written = repr(text)  # escapes what is not printable: control, format and separator characters
    if written.startswith("'") and '"' not in text and "'" not in text:
        return '"' + written[1:-1] + '"'
    return written
