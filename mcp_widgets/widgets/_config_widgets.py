"""The widgets of `mw.servers()`: the table of configured servers, and the card asking a config's inputs.

Neither knows the SDK: the table is given rows and a `connect(row)` callback; the card is given the inputs
to ask and resolves a future with their values. The card's fields are password fields for inputs marked
`password`, and the card closes every model it made as soon as it is answered, so nothing typed stays in
widget state (or a saved notebook).
"""

from __future__ import annotations

import concurrent.futures
import html
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as w

from ..core.mcp_config import ConfigInput, ServerConfig
from ._kit import press

__all__ = ["InputsCard", "ServersTable"]


class InputsCard(w.VBox):
    """Asks the values of a config's `inputs` (VS Code's `${input:id}`), for one server.

    `result` resolves with {id: value} on Connect, or with None on Cancel. Driven from Python as a person
    drives it: `card.fill(id=value)`, `card.submit()`, `card.cancel()`.
    """

    def __init__(self, server: str, inputs: Sequence[ConfigInput], source: str) -> None:
        self.result: concurrent.futures.Future[dict[str, str] | None] = concurrent.futures.Future()
        self._inputs = tuple(inputs)
        title = w.HTML(
            _text_block(
                f"<b>{html.escape(server)}</b> needs {len(inputs)} value{'s' if len(inputs) != 1 else ''} "
                f"(from {html.escape(source)}); kept in this kernel's memory only"
            )
        )
        self._fields: dict[str, w.ValueWidget] = {}
        self._head = title
        rows: list[w.Widget] = [title]
        for item in self._inputs:
            label = item.description or item.id
            control: w.ValueWidget
            if item.options:
                control = w.Dropdown(options=list(item.options), value=item.default or item.options[0])
            elif item.password:
                control = w.Password(placeholder=item.id)
            else:
                control = w.Text(value=item.default, placeholder=item.id)
            control.description = label
            control.style = {"description_width": "initial"}
            control.layout = w.Layout(width="min(480px, 100%)")
            self._fields[item.id] = control
            rows.append(control)
        self.ok = w.Button(description="Connect", button_style="primary")
        self.cancel_button = w.Button(description="Cancel")
        self.ok.on_click(lambda _b: self.submit())
        self.cancel_button.on_click(lambda _b: self.cancel())
        self._buttons = w.HBox([self.ok, self.cancel_button])
        rows.append(self._buttons)
        super().__init__(rows)
        self.add_class("mcpw-inputs")

    def fill(self, **values: str) -> None:
        for key, value in values.items():
            self._fields[key].value = value

    def submit(self) -> None:
        if self.result.done():
            return
        values = {item.id: str(self._fields[item.id].value) for item in self._inputs}
        self._end(f"{len(values)} value{'s' if len(values) != 1 else ''} given")
        self.result.set_result(values)

    def cancel(self) -> None:
        if not self.result.done():
            self._end("cancelled")
            self.result.set_result(None)

    def _end(self, how: str) -> None:
        """Close every control (their values leave the widget state) and keep one line of text."""
        for control in self._fields.values():
            if isinstance(control, w.Password | w.Text):
                control.value = ""
            control.close()
        self._fields = {}
        for widget in (self.ok, self.cancel_button, self._buttons):
            widget.close()
        self.children = (self._head,)
        self._head.value = self._head.value.replace("</div>", f" · {html.escape(how)}</div>")

    def __repr__(self) -> str:
        return f"<InputsCard {[i.id for i in self._inputs]} {'answered' if self.result.done() else 'open'}>"


class ServersTable(w.VBox):
    """The servers found in config files: name, kind, where it was found, notes, and a Connect button."""

    def __init__(
        self,
        rows: Sequence[ServerConfig],
        connect: Callable[[ServerConfig], Any] | None = None,
        *,
        ambiguous: Mapping[str, int] | None = None,
        looked_in: int = 0,
    ) -> None:
        self.rows = tuple(rows)
        self.connected: dict[str, Any] = {}
        """The servers connected with this table's buttons, by name (`table[name]`)."""
        self.buttons: dict[tuple[str, str], w.Button] = {}
        self._connect = connect
        self.status = w.Label("")
        lines: list[w.Widget] = []
        if not self.rows:
            lines.append(w.Label(f"No MCP servers configured (looked in {looked_in} places)."))
        for row in self.rows:
            # never shrunk by a long label beside it (flex 0 0 auto): a cut "Conn…" reads as broken
            button = w.Button(description="Connect", layout=w.Layout(width="auto", flex="0 0 auto"))
            button.on_click(lambda _b, row=row: self._clicked(row))
            button.disabled = connect is None
            self.buttons[(row.name, row.source)] = button
            text = html.escape(row.name)
            notes = _notes(row, (ambiguous or {}).get(row.name, 1))
            label = w.HTML(
                _text_block(
                    f"<code>{text}</code> · {row.kind} · <span title='{html.escape(row.source)}'>"
                    f"{html.escape(row.where)}</span>" + (f" · <i>{html.escape(notes)}</i>" if notes else "")
                )
            )
            lines.append(w.HBox([button, label]))
        lines.append(self.status)
        super().__init__(lines)
        self.add_class("mcpw-servers")

    def _clicked(self, row: ServerConfig) -> None:
        if self._connect is not None:
            self.status.value = f"connecting to {row.name} …"
            self.buttons[(row.name, row.source)].disabled = True  # one connect at a time per row
            self._connect(row)

    def settled(self, row: ServerConfig, connected: bool) -> None:
        """A row's connect ended: its button says "Connected" (and stays off), or is ready to try again."""
        button = self.buttons[(row.name, row.source)]
        button.description = "Connected" if connected else "Connect"
        button.icon = "check" if connected else ""
        button.disabled = connected

    def connect(self, name: str) -> None:
        """Press the Connect button of the row `name` (the first such row); nothing while the button is off
        (connecting, or connected), as in a browser."""
        for (row_name, _source), button in self.buttons.items():
            if row_name == name:
                press(button)
                return
        raise KeyError(name)

    def __getitem__(self, name: str) -> Any:
        """The server connected with the button of the row `name`.

        Raises:
            KeyError: Not connected (yet): the table's status line says why.
        """
        return self.connected[name]

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(plain_table(self.rows))


def _text_block(inner: str) -> str:
    """HTML text that wraps at a text's line height (a widget's HTML has a control's 28 px line height, so a
    long path wrapped onto a second line read as two rows)."""
    return f"<div style='line-height: 1.4; padding: 4px 0'>{inner}</div>"


def _notes(row: ServerConfig, same_name: int) -> str:
    notes = []
    if row.disabled:
        notes.append("disabled in its config")
    if row.secrets_in_clear:
        notes.append("secret written in clear: " + ", ".join(row.secrets_in_clear))
    if row.inputs:
        notes.append("asks " + ", ".join(i.id for i in row.inputs))
    if same_name > 1:
        notes.append(f"{same_name} configs of this name: connect with config=")
    return "; ".join(notes)


def plain_table(rows: Sequence[ServerConfig]) -> str:
    """The table as text (for a terminal, a repr, a saved notebook)."""
    if not rows:
        return "No MCP servers configured."
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.name] = counts.get(row.name, 0) + 1
    width = max(len(r.name) for r in rows)
    out = []
    for row in rows:
        notes = _notes(row, counts[row.name])
        out.append(f"{row.name:<{width}}  {row.kind:<5}  {row.where}" + (f"  ({notes})" if notes else ""))
    return "\n".join(out)
