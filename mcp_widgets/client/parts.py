"""The parts a `Server` is made of, built in one place and in one order (`assemble`).

Each part gets the context and the parts it calls, built before it: no part holds the server, and none
reaches through another (docs/architecture.md draws them). The server keeps the `Parts` it delegates to.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .apps.host import AppHost
from .catalog import Catalog
from .completion import Completer
from .connection import Connection
from .context import ServerContext
from .display import CallDisplay, LooseForms
from .in_flight import CallsInFlight
from .live import Live, Tables
from .questions.endings import Endings
from .questions.intake import Intake
from .questions.rounds import Rounds
from .questions.url_mode import UrlFlow
from .running import Runner
from .targets import Target, TransportName
from .tasks import experimental as tasks
from .wire.capture import WireCapture
from .wire.wire import Wire

__all__ = ["Parts", "assemble"]


@dataclass(frozen=True)
class Parts:
    """What a server delegates to (the others live on inside these)."""

    wire: Wire
    live: Live
    tables: Tables
    open_tasks: tasks.OpenTasks
    rounds: Rounds
    connection: Connection
    runner: Runner
    catalog: Catalog
    apps: AppHost
    completer: Completer
    loose: LooseForms
    """Answered forms shown outside any call: closed with the server."""


def assemble(
    ctx: ServerContext,
    resolved: Target,
    *,
    transport: TransportName,
    headers: Mapping[str, str] | None,
    auth: Any,
    signin: dict[str, Any],
    wire: int,
) -> Parts:
    """Build a server's parts, each after those it calls."""
    calls = CallsInFlight()  # first: a question, a log line and a call's end all look here
    open_tasks = tasks.OpenTasks()
    display = CallDisplay(ctx, calls)
    app_host = AppHost(ctx)
    capture = WireCapture(ctx, wire, display.late)  # the connection's; `srv.wire` reads it
    endings = Endings(ctx, display.loose)
    flow = UrlFlow(endings, place=display.place, put_away=display.loose.keep)
    rounds = Rounds(ctx, display)
    calls.on_end += [endings.call_ended, flow.call_ended]  # a call's questions, then its URL cards
    intake = Intake(
        ctx,
        calls,
        open_tasks,
        endings=endings,
        flow=flow,
        rounds=rounds,
        place=display.place,
        apps=app_host,
        tie=capture.tie,
    )
    live, tables = Live(ctx), Tables(ctx)
    live.on_listed.append(tables.changed)  # a list change redraws the tables shown
    connection = Connection(
        ctx,
        resolved,
        intake=intake,
        calls=calls,
        display=display,
        open_tasks=open_tasks,
        transport=transport,
        headers=headers,
        auth=auth,
        signin=signin,
        advertised=app_host.extensions,
        wire=capture,
        live=live,
    )
    live.typed = connection.typed.pattern
    runner = Runner(
        ctx,
        connection,
        display,
        app_host,
        calls=calls,
        open_tasks=open_tasks,
        flow=flow,
        rounds=rounds,
        endings=endings,
    )
    return Parts(
        wire=Wire(ctx, capture),
        live=live,
        tables=tables,
        open_tasks=open_tasks,
        rounds=rounds,
        connection=connection,
        runner=runner,
        catalog=Catalog(ctx, connection.require_connected, runner.run_call, connection.typed.pattern),
        apps=app_host,
        completer=Completer(ctx, connection, calls, display.late),
        loose=display.loose,
    )
