// The question card (ElicitationForm): who asks, the server's message, the fields (fields.js), Accept /
// Decline / Cancel and the keys hint; once the question ended, only its one line. It renders the model's
// state, which holds what the server sent and the kernel decided, never what a person typed: each edit and
// each button goes to the kernel as a message ({edit, value, view}, {press}), the kernel answers with the
// verdicts (state) and, for values it fills, a message ({values, except}). The keys, the focus rule and focus
// after an answer are the keyboard helper's (keys.js, joined into this module), on this card's own element.
const BUTTONS = [
  ["accept", "Accept", "mcp-widgets-primary", ""],
  ["decline", "Decline", "", "Tell the server no"],
  ["cancel", "Cancel", "", "Dismiss without answering"],
];

function renderQuestion({ model, el }) {
  const uid = "mcp-widgets-q" + Math.random().toString(36).slice(2, 10);
  const box = node("div", ["mcp-widgets-form", "mcp-widgets-question", ...LITERAL].join(" "));
  el.appendChild(box);
  let fields = null;
  let stopKeys = null;
  let appView = null;
  let appToken = 0;
  const parts = {};
  const send = (msg) => model.send(msg);

  const build = () => {
    box.replaceChildren();
    const card = model.get("card") || {};
    // Names the form's model, as a composed form's box did: its option groups get names from it (groups.js).
    if (card.id) box.classList.add("mcp-widgets-keys-" + card.id);
    const header = node("div", "mcp-widgets-header", card.header || "");
    box.appendChild(header);
    if (card.message) box.appendChild(node("div", "mcp-widgets-message", card.message));
    parts.fields = node("div", "mcp-widgets-fields");
    box.appendChild(parts.fields);
    fields = renderFields(parts.fields, card.rows || [], {
      uid,
      titleWidth: card.title_width,
      onEdit: (name, value) => send({ edit: name, value, view: uid }),
    });
    parts.app = node("div", "mcp-widgets-app-slot");
    box.appendChild(parts.app);
    const row = node("div", "mcp-widgets-buttons");
    parts.buttons = {};
    for (const [press, label, cls, tip] of BUTTONS) {
      const button = node("button", ["mcp-widgets-button", cls].join(" ").trim(), label);
      button.type = "button";
      if (tip) button.title = tip;
      button.addEventListener("click", () => {
        if (!button.disabled) send({ press });
      });
      parts.buttons[press] = button;
      row.appendChild(button);
    }
    const plain = node("button", "mcp-widgets-button", "Use the plain form");
    plain.type = "button";
    plain.addEventListener("click", () => send({ press: "plain" }));
    parts.plain = plain;
    row.appendChild(plain);
    box.appendChild(row);
    parts.hint = node("div", "mcp-widgets-hint");
    parts.hint.setAttribute("aria-live", "polite");
    box.appendChild(parts.hint);
  };

  const showVerdicts = () => fields && fields.verdicts(model.get("verdicts"));
  const showAccept = () => {
    const accept = parts.buttons && parts.buttons.accept;
    if (!accept) return;
    accept.disabled = !model.get("accept_ok");
    accept.title = model.get("accept_why") || "";
  };
  const showHint = () => {
    if (!parts.hint) return;
    parts.hint.textContent = model.get("hint") || "";
    parts.hint.classList.toggle("mcp-widgets-error", Boolean(model.get("hint_warn")));
  };
  const showApp = () => {
    const ref = model.get("app");
    const embedded = typeof ref === "string" && ref.startsWith("IPY_MODEL_");
    parts.fields.hidden = embedded;
    parts.buttons.accept.hidden = embedded;
    parts.plain.hidden = !embedded;
    const token = ++appToken;
    if (appView) {
      appView.remove();
      appView = null;
    }
    parts.app.replaceChildren();
    if (!embedded) return;
    // The app's own view, made by the page's widget manager (anywidget hands us only get_model).
    Promise.resolve(model.widget_manager.get_model(ref.slice(10)))
      .then((app) => app.widget_manager.create_view(app))
      .then((view) => {
        if (token !== appToken || closed()) return view.remove();
        appView = view;
        parts.app.appendChild(view.el);
        if (typeof view.trigger === "function") view.trigger("displayed");
      })
      .catch(() => {});
  };
  const closed = () => Boolean(model.get("closing_line"));
  const finish = () => {
    if (appView) {
      appView.remove();
      appView = null;
    }
    fields = null;
    box.replaceChildren(node("div", "mcp-widgets-line", model.get("closing_line")));
    box.removeAttribute("aria-busy");
    if (stopKeys) {
      const stop = stopKeys;
      stopKeys = null;
      stop();  // focus that was in the card goes back (keys.js)
    }
  };

  const onValues = (msg) => {
    if (!msg || !msg.values || !fields || msg.except === uid) return;
    for (const [name, value] of Object.entries(msg.values)) fields.set(name, value);
  };
  const onChange = () => {
    if (closed()) finish();
  };
  if (closed()) {
    finish();
  } else {
    build();
    showVerdicts();
    showAccept();
    showHint();
    showApp();
    stopKeys = render({ model, el: null }, { box, form: model });
  }
  model.on("msg:custom", onValues);
  model.on("change:verdicts", showVerdicts);
  model.on("change:accept_ok", showAccept);
  model.on("change:accept_why", showAccept);
  model.on("change:hint", showHint);
  model.on("change:hint_warn", showHint);
  model.on("change:app", () => !closed() && parts.fields && showApp());
  model.on("change:closing_line", onChange);
  return () => {
    model.off("msg:custom", onValues);
    if (appView) appView.remove();
    if (stopKeys) stopKeys();
  };
}

export default { render: renderQuestion };
export { localOf, instantOf };  // for the tests
