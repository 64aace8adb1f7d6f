"""The explorer's first render (`srv.explore()`, what a cell ending in `srv` shows), kernel side: building it
for a server of 200 tools against the same for a server of 2 (the baseline, same run, in turns), and opening
its Tools section (one list of 200) against the text table `srv.tools` shows (`_repr_html_`).

Plain python with comms that serialize every model's state, as a kernel's do (the messages go nowhere): what
a render costs before the browser draws it. In-process servers (tests/servers/explored.py).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ._report import Row, not_measured

GROUP = "explorer"
ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def _kernel_like_comms() -> Iterator[None]:
    import comm
    from comm.base_comm import BaseComm

    class Sink(BaseComm):  # type: ignore[misc]
        def publish_msg(
            self, msg_type: str, data: Any = None, metadata: Any = None, buffers: Any = None, **keys: Any
        ) -> None:
            pass

    comm.create_comm = Sink
    try:
        yield
    finally:
        comm.create_comm = comm._create_comm


def run(quick: bool) -> list[Row]:
    sys.path.insert(0, str(ROOT))
    from mcp_widgets import connect_sync
    from tests.servers.explored import build_server

    from .forms import measure_side_by_side

    runs = 5 if quick else 25
    names = [
        "explorer first render, 200 tools (kernel side)",
        "Tools section opened, 200 tools (kernel side)",
    ]
    try:
        with (
            _kernel_like_comms(),
            connect_sync(build_server(200), name="big") as big,
            connect_sync(build_server(2), name="small") as small,
        ):
            built, base = measure_side_by_side([big.explore, small.explore], runs)

            def opened() -> object:
                explorer = big.explore()
                return explorer.show("Tools")

            tools, table = measure_side_by_side([opened, big.tools._repr_html_], runs)
    except Exception as exc:
        return not_measured(GROUP, names, exc)
    return [
        Row(
            GROUP,
            names[0],
            built.cpu,
            baseline=base.cpu,
            baseline_name="the same, 2 tools",
            target="< 50 ms, flat in the tools",
            ok=built.cpu < 50 and built.models == base.models,
            note=f"{built.models} models (2 tools: {base.models}); wall {built.wall:.1f} ms",
        ),
        Row(
            GROUP,
            names[1],
            tools.cpu,
            baseline=table.cpu,
            baseline_name="srv.tools as a table (HTML)",
            target="< 100 ms",
            ok=tools.cpu < 100,
            note=f"explorer and the section: {tools.models} models; wall {tools.wall:.1f} ms",
        ),
    ]
