"""Ask the person questions from a tool body, the same way on both protocol generations.

2025-11-25 and earlier ("legacy"): the server sends `elicitation/create` in the middle of the call and waits
for the answer; the tool body runs once, straight through.

2026-07-28: a server cannot send requests mid-call. The tool *returns* an `InputRequiredResult` listing its
questions plus an opaque `request_state`; the client asks the person and calls the tool again with the answers
(`input_responses`) and the state echoed back. The tool body therefore runs from the top once per round. Two
rules follow:

- Everything before the last question must be safe to repeat: no side effects until every answer is in
  (that one is up to the tool body).
- Answers from earlier rounds ride `request_state` (the SDK seals it with an authenticated cipher, so the
  client can neither read nor forge it). An answer counts only if this server asked that question in the
  previous round: a client cannot pre-answer a confirmation it was never shown (`Asker` enforces this).

`converse(ctx, body)` runs `body(asker)` and turns "still waiting for answers" into the `InputRequiredResult`.

The SDK's `Resolve` / `Elicit` does the same for a question a pydantic model can say; this helper stays for
what it cannot: URL mode, a raw requestedSchema, and shapes pydantic does not render (see `_server.py`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import mcp_types as t
from mcp.server.mcpserver import Context
from mcp.shared.message import ServerMessageMetadata
from mcp_types.version import is_version_at_least

from ..core.protocol import LEGACY, MODERN

__all__ = ["Asker", "converse"]

R = TypeVar("R")


class _StillAsking(Exception):
    """Raised inside a tool body on 2026-07-28 when a question has no answer yet.

    It unwinds the body up to `converse`: a body must not swallow it with a bare `except Exception`.
    """


class Asker:
    """Asks questions for one tool call; see the module docstring."""

    def __init__(self, ctx: Context[Any, Any]) -> None:
        self.ctx = ctx
        self.modern = is_version_at_least(ctx.protocol_version or LEGACY, MODERN)
        self._answers: dict[str, dict[str, Any]] = {}
        self._pending: dict[str, t.InputRequest] = {}
        self.state: dict[str, Any] = {}
        """Values the body keeps across rounds (JSON); sealed into `request_state` on 2026-07-28."""
        if self.modern:
            state = json.loads(ctx.request_state) if ctx.request_state else {}
            self._answers = dict(state.get("answers", {}))
            self.state = dict(state.get("keep", {}))
            asked = set(state.get("asked", []))
            for key, response in (ctx.input_responses or {}).items():
                # Only answers to questions we asked last round count (see the module docstring).
                if key in asked and isinstance(response, t.ElicitResult):
                    self._answers[key] = response.model_dump(mode="json", exclude_none=True)

    async def form(
        self, key: str, message: str, schema: dict[str, Any], *, meta: dict[str, Any] | None = None
    ) -> t.ElicitResult:
        """Ask with a form; `key` names the question across rounds (same question, same key). `meta` goes
        with the request as its `_meta` (an app to show the question with: `{"ui": {"resourceUri": ...}}`)."""
        params = t.ElicitRequestFormParams.model_validate(
            {"message": message, "requestedSchema": schema, **({"_meta": meta} if meta else {})}
        )
        if not self.modern:
            session = self.ctx.request_context.session  # what `ctx.session` returns, but typed
            if meta is None:
                return await session.elicit_form(message, schema, related_request_id=self.ctx.request_id)
            return await session.send_request(
                t.ElicitRequest(params=params),
                t.ElicitResult,
                metadata=ServerMessageMetadata(related_request_id=self.ctx.request_id),
            )
        return self._answer_or_ask(key, t.ElicitRequest(params=params))

    async def url(self, key: str, message: str, url: str, *, elicitation_id: str) -> t.ElicitResult:
        """Ask the person to open `url`; accept means consent only (no content)."""
        if not self.modern:
            return await self.ctx.request_context.session.elicit_url(
                message, url, elicitation_id, related_request_id=self.ctx.request_id
            )
        # 2026-07-28 has no elicitation ids: completion is checked on the next round instead.
        params = t.ElicitRequestURLParams(message=message, url=url)
        return self._answer_or_ask(key, t.ElicitRequest(params=params))

    def _answer_or_ask(self, key: str, request: t.ElicitRequest) -> t.ElicitResult:
        if key in self._answers:
            return t.ElicitResult.model_validate(self._answers[key])
        self._pending[key] = request
        raise _StillAsking

    def input_required(self) -> t.InputRequiredResult:
        """The round's questions, with every answer so far carried in the sealed state."""
        state = {"answers": self._answers, "asked": sorted(self._pending), "keep": self.state}
        return t.InputRequiredResult(input_requests=dict(self._pending), request_state=json.dumps(state))


async def converse(
    ctx: Context[Any, Any], body: Callable[[Asker], Awaitable[R]]
) -> R | t.InputRequiredResult:
    """Run a tool body that asks questions; on 2026-07-28 return its open questions instead of a result."""
    asker = Asker(ctx)
    try:
        return await body(asker)
    except _StillAsking:
        return asker.input_required()
