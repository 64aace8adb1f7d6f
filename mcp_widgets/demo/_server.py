"""The demo MCP server: one tool per elicitation shape, working on both protocol generations.

Read the tools top to bottom as a tour. Where a pydantic model says the question, a tool asks it the SDK's
way: a parameter `Annotated[ElicitationResult[Model], Resolve(resolver)]` whose resolver returns
`Elicit(message, Model)` (delete_files, empty_trash, weather); the SDK asks mid-call on 2025-11-25 and in
input-required rounds on 2026-07-28, and runs the body once, with every answer in.

The others are an inner `body(ask)` run by `converse(ctx, body)` (`_asking.py`), for what `Resolve` cannot
do: URL mode (sign_in, private_notes: `Elicit` asks with forms only), a raw requestedSchema (echo_elicit),
schema shapes pydantic does not render from a model (choose: the legacy `enumNames`; plan_trip: fields both
required and pre-filled, while pydantic leaves every field with a default out of `required`), and naming
the field and rule a bad answer broke (register: the SDK only says that the content does not match). The
steps that depend on earlier answers are not the reason: resolvers do that (notebooks/server_authoring).
On 2026-07-28 such a body runs once per round and stops at the first question that has no answer yet, so
it first computes and asks, and only acts (books, registers) after its last answer.

One concept: the demo's tools, read best whole and in order (they are what a server author copies).
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import random
import warnings
from enum import Enum
from typing import Annotated, Any, Literal

import anyio
import anyio.from_thread
import anyio.lowlevel
import mcp_types as t
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Elicit, ElicitationResult, Resolve
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError, UrlElicitationRequiredError
from pydantic import BaseModel, Field

from ..authoring import Confirmation
from ..core.text import plural
from ..core.version import __version__
from . import _schemas as schemas
from ._app import dice_app
from ._asking import Asker, converse
from ._checking import problems
from ._signin import DEFAULT_SIGN_IN_PORT, SignInPages

__all__ = ["DemoServer", "create_server"]

Result = dict[str, Any]

INSTRUCTIONS = """\
A demo server for MCP elicitation: its tools ask the person questions while they run.
delete_files / empty_trash: confirmations (no fields; one boolean). register: a form with every field type.
choose: every single- and multi-select shape. plan_trip: several questions, each depending on the last.
sign_in: URL mode, completed on a local page. long_task: progress and logs. weather: works when declined.
echo_elicit: asks with any requestedSchema you pass and returns the answer verbatim.
private_notes / sign_out: needs the sign-in (2025-11-25: error -32042, URL elicitation required).
list_files / reset_files: look at or restore the simulated files (they ask nothing).
search_files: a rich signature (enum, optional, nested model) to try `srv.form("search_files")`.
roll_dice: rolls dice, shown as an MCP App (its app rolls again through the app-only tool reroll).
Resources: demo://files (the file store) and demo://files/{name}. Prompts: tidy_up, explain_tool.
"""

SEED_FILES: dict[str, int] = {
    "notes.txt": 1_204,
    "report.pdf": 52_311,
    "draft.tmp": 310,
    "cache.tmp": 4_096,
    "scratch.tmp": 12,
    "old.log": 815,
}


class DemoServer(MCPServer[Any]):
    """The demo `MCPServer`, plus the in-memory state its tools act on (inspect it in tests and notebooks)."""

    def __init__(self, name: str, *, sign_in: SignInPages) -> None:
        super().__init__(
            name,
            title="mcp-widgets demo",
            instructions=INSTRUCTIONS,
            version=__version__,
            extensions=[dice_app()],
        )
        self.sign_in = sign_in
        self.files: dict[str, int] = {}
        """The simulated file store: name -> size in bytes."""
        self.trash: dict[str, int] = {}
        self.signed_in = False
        """Whether the demo user has signed in on the local page (shared by every connection)."""
        self.registrations: list[Result] = []
        self.bookings: list[Result] = []
        self.reset()

    def reset(self) -> None:
        """Put the file store back as it started."""
        self.files = dict(SEED_FILES)
        self.trash = {}

    def matching(self, pattern: str) -> list[str]:
        """The names of the files matching a glob pattern, sorted."""
        return sorted(name for name in self.files if fnmatch.fnmatch(name, pattern))


def create_server(
    name: str = "mcp-widgets-demo",
    *,
    sign_in_port: int = DEFAULT_SIGN_IN_PORT,
    sign_in_host: str = "127.0.0.1",
    sign_in_url: str | None = None,
) -> DemoServer:
    """A fresh demo server with its own file store.

    Args:
        name: What the server calls itself.
        sign_in_port: Port of the local sign-in page (0: any free port); started on the first `sign_in`.
        sign_in_host: Interface the sign-in page listens on.
        sign_in_url: Public base URL of the sign-in page when the browser reaches it through a proxy.
    """
    server = DemoServer(
        name, sign_in=SignInPages(host=sign_in_host, port=sign_in_port, public_url=sign_in_url)
    )
    _add_file_tools(server)
    _add_form_tools(server)
    _add_sign_in(server)
    _add_other_tools(server)
    _add_search_tool(server)
    _add_resources_and_prompts(server)
    return server


# -- helpers -----------------------------------------------------------------------------------------------


def _check_content(content: dict[str, Any] | None, schema: dict[str, Any]) -> dict[str, Any]:
    """Never trust the client: check accepted content against the schema we sent.

    The error names fields and rules, never the values the person typed.
    """
    content = content or {}
    found = problems(content, schema)
    if found:
        raise ToolError("the client sent an answer that does not fit the form (" + "; ".join(found) + ")")
    return content


def _not_answered(answer: t.ElicitResult, step: str | None = None) -> Result:
    result: Result = {"done": False, "action": answer.action}
    if step is not None:
        result["stopped_at"] = step
    return result


async def _log(ctx: Context[Any, Any], level: t.LoggingLevel, text: str) -> None:
    """Send a log message to the client.

    Logging is deprecated as of 2026-07-28 (SEP-2577) but still delivered when the client opts in per
    request (`mcp.Client(log_level=...)`); on 2025-11-25 it is always sent. The SDK warns on every call; the
    demo logs on purpose, so the warning is silenced for this call only (no await inside the block).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        sending = ctx.session.send_log_message(level, text, logger="demo", related_request_id=ctx.request_id)
    await sending


# -- confirmations -----------------------------------------------------------------------------------------


def _add_file_tools(server: DemoServer) -> None:
    @server.tool(
        title="List files",
        description="List the demo's simulated files (name -> size in bytes) and its trash. Asks nothing.",
        annotations=t.ToolAnnotations(read_only_hint=True),
    )
    async def list_files() -> Result:
        return {"files": dict(sorted(server.files.items())), "trash": dict(sorted(server.trash.items()))}

    @server.tool(
        title="Reset files",
        description="Put the simulated files back as they were when the server started. Asks nothing.",
        annotations=t.ToolAnnotations(idempotent_hint=True),
    )
    async def reset_files() -> Result:
        server.reset()
        return {"files": dict(sorted(server.files.items()))}

    @server.tool(
        title="Delete files",
        description=(
            "Move the simulated files matching a glob pattern (default *.tmp) to the trash, after the person "
            "confirms. The confirmation has no fields: Accept means yes, Decline or Cancel means no."
        ),
        annotations=t.ToolAnnotations(destructive_hint=True),
    )
    async def delete_files(
        ctx: Context[Any, Any],
        # Not `confirm(...)` of mcp_widgets.authoring (a bool): the demo reports which button was pressed.
        answer: Annotated[ElicitationResult[Confirmation], Resolve(_confirm_delete)],
        pattern: Annotated[str, Field(description="Glob pattern of the files, e.g. *.log")] = "*.tmp",
    ) -> Result:
        # The body runs once, after the last answer: the side effect is safe here.
        matches = server.matching(pattern)
        if not matches:
            return {"done": True, "deleted": [], "note": f"nothing matches {pattern!r}"}
        if answer.action != "accept":
            return {"done": False, "action": answer.action}
        deleted = [name for name in matches if name in server.files]
        for name in deleted:
            server.trash[name] = server.files.pop(name)
        await _log(ctx, "notice", f"moved {plural(len(deleted), 'file')} to the trash")
        return {"done": True, "deleted": deleted}

    @server.tool(
        title="Empty trash",
        description=(
            "Delete the files in the trash for good. The confirmation is a single checkbox: accepting "
            "with it unticked deletes nothing."
        ),
        annotations=t.ToolAnnotations(destructive_hint=True),
    )
    async def empty_trash(
        answer: Annotated[ElicitationResult[EmptyTrash], Resolve(_confirm_empty)],
    ) -> Result:
        names = sorted(server.trash)
        if not names:
            return {"done": True, "deleted": [], "note": "the trash is empty"}
        if answer.action != "accept":
            return {"done": False, "action": answer.action}
        if not answer.data.confirm:  # the SDK has validated it against EmptyTrash
            return {"done": False, "action": "accept", "note": "not ticked: nothing deleted"}
        deleted = [name for name in names if server.trash.pop(name, None) is not None]
        return {"done": True, "deleted": deleted}


def _demo(ctx: Context[Any, Any]) -> DemoServer:
    server = ctx.mcp_server
    assert isinstance(server, DemoServer)
    return server


# Resolvers: the SDK runs them before the tool body, on 2026-07-28 once per round, so they only read. Each
# asks nothing when there is nothing to do (its plain value reaches the tool as an accepted outcome). An
# answer is pinned to the exact message: if the files change between rounds, the person is asked again.
async def _confirm_delete(ctx: Context[Any, Any], pattern: str) -> Elicit[Confirmation] | None:
    matches = _demo(ctx).matching(pattern)
    if not matches:
        return None
    return Elicit(f"Move {plural(len(matches), 'file')} to the trash: {', '.join(matches)}?", Confirmation)


async def _confirm_empty(ctx: Context[Any, Any]) -> Elicit[EmptyTrash] | None:
    names = sorted(_demo(ctx).trash)
    if not names:
        return None
    message = f"Delete {plural(len(names), 'file')} for good: {', '.join(names)}? This cannot be undone."
    return Elicit(message, EmptyTrash)


class EmptyTrash(BaseModel):
    # A confirmation as one boolean: Accept alone is not a yes; the box must be ticked too. (No docstring:
    # it would be sent as the form's description.)
    confirm: bool = Field(
        default=False,
        title="Yes, delete them for good",
        description="Accepting with this unticked changes nothing.",
    )


# -- forms -------------------------------------------------------------------------------------------------


def _add_form_tools(server: DemoServer) -> None:
    @server.tool(
        title="Register for a workshop",
        description=(
            "One form with every field type the spec allows: text with length limits and a pattern, "
            "email, URL, date, date and time, whole number and number with ranges, a checkbox; several "
            "fields have defaults."
        ),
    )
    async def register(ctx: Context[Any, Any]) -> Result | t.InputRequiredResult:
        async def body(ask: Asker) -> Result:
            answer = await ask.form("register", "Register for the MCP workshop", schemas.REGISTER)
            if answer.action != "accept":
                return _not_answered(answer)
            content = _check_content(answer.content, schemas.REGISTER)
            server.registrations.append(content)
            return {"done": True, "registration": content}

        return await converse(ctx, body)

    @server.tool(
        title="Order an ice cream",
        description=(
            "One form with every choice shape: a plain list (enum), titled options (oneOf), the legacy "
            "enum+enumNames, and two multi-selects (items.enum and titled items.anyOf) with limits and "
            "defaults."
        ),
    )
    async def choose(ctx: Context[Any, Any]) -> Result | t.InputRequiredResult:
        async def body(ask: Asker) -> Result:
            answer = await ask.form("order", "What would you like?", schemas.CHOOSE)
            if answer.action != "accept":
                return _not_answered(answer)
            return {"done": True, "order": _check_content(answer.content, schemas.CHOOSE)}

        return await converse(ctx, body)

    @server.tool(
        title="Plan a trip",
        description=(
            "Progressive disclosure: asks what kind of trip, then questions that depend on that answer, then "
            "dates, then a final confirmation before booking. Decline or cancel at any step to stop."
        ),
    )
    async def plan_trip(ctx: Context[Any, Any]) -> Result | t.InputRequiredResult:
        async def body(ask: Asker) -> Result:
            first = await ask.form("kind", "Let's plan a trip. What kind?", schemas.TRIP_KIND)
            if first.action != "accept":
                return _not_answered(first, "kind")
            plan: Result = _check_content(first.content, schemas.TRIP_KIND)
            # The next question depends on the first answer; the key says which branch it belongs to.
            kind = plan["kind"]
            detail_schema = {"city": schemas.TRIP_CITY, "beach": schemas.TRIP_BEACH}.get(
                kind, schemas.TRIP_MOUNTAINS
            )
            message = f"A {kind} trip for {plan['travellers']}: details?"
            detail = await ask.form(f"details:{kind}", message, detail_schema)
            if detail.action != "accept":
                return _not_answered(detail, "details")
            plan.update(_check_content(detail.content, detail_schema))
            if plan.get("activity") == "skiing":
                rental = await ask.form("rental", "Skiing: do you need equipment?", schemas.TRIP_SKIING)
                if rental.action != "accept":
                    return _not_answered(rental, "rental")
                plan.update(_check_content(rental.content, schemas.TRIP_SKIING))
            dates = await ask.form("dates", "When?", schemas.TRIP_DATES)
            if dates.action != "accept":
                return _not_answered(dates, "dates")
            plan.update(_check_content(dates.content, schemas.TRIP_DATES))
            summary = ", ".join(f"{k}: {v}" for k, v in plan.items())
            confirm = await ask.form("book", f"Book this trip? {summary}", schemas.CONFIRM)
            if confirm.action != "accept":
                return _not_answered(confirm, "book")
            server.bookings.append(plan)  # the only side effect, after the last answer
            return {"done": True, "booked": plan}

        return await converse(ctx, body)


# -- URL mode ----------------------------------------------------------------------------------------------


def _add_sign_in(server: DemoServer) -> None:
    pages = server.sign_in

    @server.tool(
        title="Sign in (URL mode)",
        description=(
            "Asks the person to open a local sign-in page served by this demo and press its button; "
            "what happens there never passes through the client. On 2025-11-25 the server waits up to "
            "`timeout` seconds, then sends notifications/elicitation/complete; on 2026-07-28 the next "
            "round checks whether it completed."
        ),
    )
    async def sign_in(
        ctx: Context[Any, Any],
        timeout: Annotated[
            float, Field(gt=0, le=3600, description="2025-11-25: seconds to wait for the page after consent")
        ] = 300.0,
    ) -> Result | t.InputRequiredResult:
        message = "Sign in to the demo on its local page, then come back."
        again = "Waiting for you to finish signing in on the demo's page."

        async def body(ask: Asker) -> Result:
            if not ask.modern:
                token = pages.new()
                answer = await ask.url("sign_in", message, pages.url(token), elicitation_id=token)
                if answer.action != "accept":
                    return _not_answered(answer)
                # Accept is consent only: the person may not have signed in yet. Wait for the page.
                if not await pages.wait(token, timeout):
                    return {
                        "done": False,
                        "action": "accept",
                        "note": "the sign-in was not completed in time",
                    }
                await ctx.session.send_elicit_complete(token, related_request_id=ctx.request_id)
                server.signed_in = True
                return {"done": True, "user": "demo-user"}
            # 2026-07-28: no waiting inside a round. The token is minted once and kept in the sealed request
            # state. Each round replays the earlier consents; while the page is unfinished, it asks again with
            # the same URL under a new key (a client can show "I've finished: try again"). The client's round
            # limit bounds the loop.
            token = ask.state.get("token") or pages.new()
            ask.state["token"] = token
            attempt = 0
            while True:
                text = message if attempt == 0 else again
                answer = await ask.url(f"sign_in:{attempt}", text, pages.url(token), elicitation_id=token)
                if answer.action != "accept":
                    return _not_answered(answer)
                if pages.completed(token):
                    server.signed_in = True
                    return {"done": True, "user": "demo-user"}
                attempt += 1

        return await converse(ctx, body)

    @server.tool(
        title="Private notes",
        description=(
            "Needs the demo user signed in. If not, on 2025-11-25 it fails with error -32042 (URL "
            "elicitation required) naming the sign-in page, and sends notifications/elicitation/complete "
            "when the page is done, so the client can retry; on 2026-07-28 it asks for the page in a round."
        ),
        annotations=t.ToolAnnotations(read_only_hint=True),
    )
    async def private_notes(ctx: Context[Any, Any]) -> Result | t.InputRequiredResult:
        notes = {"notes": ["Buy oat milk", "The workshop is on Friday"]}
        again = "Waiting for you to finish signing in."

        async def body(ask: Asker) -> Result:
            if server.signed_in:
                return notes
            if not ask.modern:
                token = pages.new()
                # The call ends now with -32042; the completion is announced later, outside any request.
                loop, session = anyio.lowlevel.current_token(), ctx.session

                def announce() -> None:
                    with contextlib.suppress(Exception):  # the client may be gone by then
                        anyio.from_thread.run(session.send_elicit_complete, token, token=loop)

                pages.on_complete(token, lambda: setattr(server, "signed_in", True))
                pages.on_complete(token, announce)
                url = t.ElicitRequestURLParams(
                    message="Sign in to read your notes.", url=pages.url(token), elicitation_id=token
                )
                raise UrlElicitationRequiredError([url])
            # 2026-07-28: as sign_in does. Consent (which opens the page) comes back at once, before the
            # person signed in there: while the page is unfinished the next round asks again with the same
            # URL (a client shows "I've finished: try again"), so one call can end with the notes. A page
            # finished after the call ended still signs the demo user in: the next call asks nothing.
            token = ask.state.get("token") or pages.new()
            if "token" not in ask.state:
                pages.on_complete(token, lambda: setattr(server, "signed_in", True))
            ask.state["token"] = token
            attempt = 0
            while True:
                text = "Sign in to read your notes." if attempt == 0 else again
                answer = await ask.url(f"sign_in:{attempt}", text, pages.url(token), elicitation_id=token)
                if answer.action != "accept":
                    return _not_answered(answer)
                if pages.completed(token) or server.signed_in:
                    server.signed_in = True
                    return notes
                attempt += 1

        return await converse(ctx, body)

    @server.tool(
        title="Sign out",
        description="Forget the demo sign-in, so sign_in and private_notes ask again. Asks nothing.",
        annotations=t.ToolAnnotations(idempotent_hint=True),
    )
    async def sign_out() -> Result:
        server.signed_in = False
        return {"signed_in": False}


# -- the rest ----------------------------------------------------------------------------------------------


class CityAnswer(BaseModel):
    city: str = Field(title="City", min_length=1, max_length=80)


async def _which_city(city: str | None) -> Elicit[CityAnswer] | CityAnswer:
    # A resolver: the SDK runs it before the tool body and handles both generations itself.
    if city:
        return CityAnswer(city=city)
    return Elicit("Which city? Decline to get the weather for Paris.", CityAnswer)


def _add_other_tools(server: DemoServer) -> None:
    @server.tool(
        title="Long task",
        description="Runs for `seconds` (default 3), reporting progress and logging each of `steps` steps.",
    )
    async def long_task(
        ctx: Context[Any, Any],
        seconds: Annotated[float, Field(ge=0, le=120, description="How long the whole task takes")] = 3.0,
        steps: Annotated[int, Field(ge=1, le=100, description="How many progress steps to report")] = 5,
    ) -> Result:
        await _log(ctx, "info", f"starting {steps} steps over {seconds:g} s")
        for step in range(1, steps + 1):
            await anyio.sleep(seconds / steps)
            await ctx.report_progress(step, steps, f"step {step} of {steps}")
            await _log(ctx, "debug", f"finished step {step}")
        await _log(ctx, "info", "all steps done")
        return {"done": True, "steps": steps}

    @server.tool(
        title="Weather",
        description=(
            "Made-up weather for a city. Without a `city` argument it asks which; if the person declines "
            "or cancels it still answers, for Paris. Written with the SDK's Resolve(...), which runs the "
            "rounds itself."
        ),
        annotations=t.ToolAnnotations(read_only_hint=True),
    )
    async def weather(
        answer: Annotated[ElicitationResult[CityAnswer], Resolve(_which_city)],
        city: Annotated[str | None, Field(description="The city; leave it out to be asked")] = None,
    ) -> Result:
        # `city` is read by the resolver above (tool arguments reach resolvers by name).
        asked = answer.action
        name = answer.data.city if answer.action == "accept" else "Paris"
        rng = random.Random(name.casefold())  # the same city always gets the same weather
        return {
            "city": name,
            "fallback": answer.action != "accept",
            "answer": asked,
            "sky": rng.choice(["sunny", "cloudy", "rain", "snow", "fog"]),
            "temperature_c": rng.randint(-5, 32),
        }

    @server.tool(
        title="Echo an elicitation",
        description=(
            "Asks with exactly the requestedSchema you pass (no checks) and returns what came back: the "
            "action, the content, or the client's error. For testing clients and prototyping schemas."
        ),
    )
    async def echo_elicit(
        ctx: Context[Any, Any],
        requested_schema: Annotated[
            dict[str, Any], Field(description="The requestedSchema to send, exactly as given")
        ],
        message: Annotated[
            str, Field(description="The message shown with the form")
        ] = "Please fill this in.",
    ) -> Result | t.InputRequiredResult:
        async def body(ask: Asker) -> Result:
            if ask.modern and (problem := _unsendable_on_2026(requested_schema)):
                # The SDK checks the top level of every input request against the 2026-07-28 wire model;
                # a result that fails it is not sent at all, so say so instead of failing the call.
                return {"error": {"code": t.INVALID_PARAMS, "message": problem}}
            try:
                answer = await ask.form("echo", message, requested_schema)
            except MCPError as exc:  # 2025-11-25: the client refused the request (e.g. -32602, a bad schema)
                return {"error": {"code": exc.code, "message": exc.error.message}}
            return answer.model_dump(mode="json", exclude_none=True)

        return await converse(ctx, body)


def _unsendable_on_2026(schema: dict[str, Any]) -> str | None:
    """Why the SDK would refuse to send this schema on 2026-07-28, or None.

    The wire model there is `{"$schema"?, "type": "object", "properties": {...}, "required"?: [...]}`; other
    top-level keys (`title`, `description`, ...) are silently dropped, property contents pass unchanged.
    """
    if schema.get("type") != "object":
        return 'the SDK cannot send it on 2026-07-28: the top-level "type" must be "object"'
    if not isinstance(schema.get("properties"), dict):
        return 'the SDK cannot send it on 2026-07-28: "properties" must be an object'
    required = schema.get("required")
    if required is not None and not (
        isinstance(required, list) and all(isinstance(r, str) for r in required)
    ):
        return 'the SDK cannot send it on 2026-07-28: "required" must be a list of strings'
    return None


# -- resources and prompts (they ask nothing; here so clients have something to list) -----------------------


def _add_resources_and_prompts(server: DemoServer) -> None:
    @server.resource(
        "demo://files",
        name="files",
        title="Simulated files",
        description="The demo's simulated file store and trash, as JSON (what list_files returns).",
        mime_type="application/json",
    )
    def files() -> str:
        return json.dumps({"files": server.files, "trash": server.trash}, sort_keys=True)

    @server.resource(
        "demo://files/{name}",
        name="file",
        title="One simulated file",
        description="The size in bytes of one simulated file, as JSON.",
        mime_type="application/json",
    )
    def file(name: str) -> str:
        if name not in server.files:
            raise ValueError(f"no simulated file named {name!r}")
        return json.dumps({"name": name, "size": server.files[name]})

    @server.prompt(title="Tidy up", description="Ask the model to suggest which simulated files to delete.")
    def tidy_up(keep: str = "*.pdf") -> str:
        return (
            f"These are my files: {json.dumps(server.files, sort_keys=True)}. Which ones can I delete with "
            f"delete_files? Keep everything matching {keep}."
        )

    @server.prompt(title="Explain a tool", description="Ask the model to explain one of this server's tools.")
    def explain_tool(tool: str, audience: str = "a newcomer") -> str:
        return f"Explain the MCP tool {tool!r} of the mcp-widgets demo server to {audience}."


# -- a tool with a rich signature, for tool forms (`srv.form("search_files")`) -------------------------------


class FileKind(str, Enum):
    """What a simulated file is, from its extension."""

    TEXT = "text"
    DOCUMENT = "document"
    TEMPORARY = "temporary"
    LOG = "log"


_KIND_OF = {
    ".txt": FileKind.TEXT,
    ".pdf": FileKind.DOCUMENT,
    ".tmp": FileKind.TEMPORARY,
    ".log": FileKind.LOG,
}


class SearchOptions(BaseModel):
    """Finer control of `search_files` (a nested model: a tool form edits it as JSON)."""

    case_sensitive: bool = False
    min_size: Annotated[int, Field(ge=0, description="Smallest size in bytes")] = 0


def _add_search_tool(server: DemoServer) -> None:
    @server.tool(
        title="Search files",
        description=(
            "Search the simulated files by name: a glob (*.tmp) or a part of the name. Asks nothing. Its "
            "arguments show every shape a tool form handles: an enum, optional values, a list and a model."
        ),
        annotations=t.ToolAnnotations(read_only_hint=True),
    )
    async def search_files(
        query: Annotated[str, Field(min_length=1, max_length=100, description="A glob or part of a name")],
        kind: Annotated[FileKind | None, Field(description="Only files of this kind")] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="At most this many results")] = 10,
        sort_by: Literal["name", "size"] = "name",
        tags: Annotated[list[str] | None, Field(description="Words that must all be in the name")] = None,
        options: Annotated[SearchOptions | None, Field(description="Finer control")] = None,
    ) -> Result:
        opts = options or SearchOptions()
        fold = (lambda s: s) if opts.case_sensitive else str.casefold
        pattern = query if any(c in query for c in "*?[") else f"*{query}*"
        found = []
        for name, size in server.files.items():
            if not fnmatch.fnmatchcase(fold(name), fold(pattern)) or size < opts.min_size:
                continue
            if kind is not None and _KIND_OF.get(name[name.rfind(".") :]) is not kind:
                continue
            if tags and not all(fold(tag) in fold(name) for tag in tags):
                continue
            found.append({"name": name, "size": size})
        found.sort(key=lambda f: (f["size"], f["name"]) if sort_by == "size" else (f["name"],))
        return {"matches": found[:limit], "total": len(found)}
