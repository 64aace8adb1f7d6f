// The question card (ElicitationForm): who asks, the server's message, the fields (fields.js), Accept /
// Decline / Cancel and the keys hint; once the question ended, only its one line. A URL card (UrlCard, its
// card's kind "url") and a sign-in card (SignInCard, kind "signin") have the same shell with the link block
// instead of the fields: the host and the full URL as text, the warnings, the buttons of the moment, the
// waiting line and, after consent, the one live link (opening the page in the consenting click is keys.js's,
// for the URL the kernel sends); a sign-in card adds what it grants, a note and, while it waits, the field
// for the address the browser ended on (a password field, sent as one {paste} message on submit and
// cleared at once: never state). An inputs card (InputsCard, kind "inputs": a config's `${input:id}` values)
// is a question with its own buttons, Connect and Cancel. It renders the model's
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
  // A link card says so even when it is drawn ended (a refused URL's card is its closing line from the start).
  const kind = (model.get("card") || {}).kind;
  if (kind === "url" || kind === "signin") box.classList.add("mcp-widgets-url");
  if (kind === "signin") box.classList.add("mcp-widgets-signin");
  if (kind === "inputs") box.classList.add("mcpw-inputs");
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
    parts.message = node("div", "mcp-widgets-message", card.message || "");
    parts.message.hidden = !card.message;
    box.appendChild(parts.message);
    if (card.kind === "url" || card.kind === "signin") return buildUrl(card);
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
    // A card may name its own buttons (the inputs card: Connect, Cancel); a question has the three answers.
    const own = (card.buttons || []).map((b) => [b.press, b.label, b.primary ? "mcp-widgets-primary" : "", b.tip]);
    for (const [press, label, cls, tip] of own.length ? own : BUTTONS) {
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

  // The link block: its text never changes within a round; the buttons, the waiting line, the note, the
  // paste field and the link do.
  const buildUrl = (card) => {
    box.classList.add("mcp-widgets-url");
    box.appendChild(node("div", "mcp-widgets-host", card.host));
    if (card.detail) box.appendChild(node("div", "mcp-widgets-detail", card.detail));
    box.appendChild(node("div", "mcp-widgets-address", card.address));
    for (const text of card.warnings || []) box.appendChild(node("div", "mcp-widgets-warning", text));
    parts.link = node("div", "mcp-widgets-link-slot");
    parts.status = node("div", "mcp-widgets-status");
    parts.status.setAttribute("aria-live", "polite");
    parts.paste = node("div", "mcp-widgets-paste-slot");
    parts.note = node("div", "mcp-widgets-status");
    parts.note.setAttribute("aria-live", "polite");
    parts.row = node("div", "mcp-widgets-buttons");
    box.append(parts.link, parts.status, parts.paste, parts.note, parts.row);
  };
  // The sign-in card's field for the address the browser ended on: a password field in a form, so Enter
  // submits it (keys.js keeps the key from the notebook, not its default). Its value goes to the kernel as
  // one message and the field is emptied in the same moment: no state, no later redraw, holds it.
  const showPaste = () => {
    if (!parts.paste || closed()) return;
    const offer = model.get("paste_offer") || {};
    if (!offer.submit) {
      parts.paste.replaceChildren();
      parts.paste.hidden = true;
      return;
    }
    parts.paste.hidden = false;
    if (parts.paste.firstChild) return;  // the same field stays (and keeps focus) after a refused address
    const form = node("form", "mcp-widgets-paste");
    const input = node("input", "mcp-widgets-input");
    input.type = "password";
    input.autocomplete = "off";
    input.spellcheck = false;
    input.placeholder = offer.placeholder || "";
    input.setAttribute("aria-label", offer.placeholder || offer.submit);
    const submit = node("button", "mcp-widgets-button", offer.submit);
    submit.type = "submit";
    form.append(input, submit);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      event.stopPropagation();
      const value = input.value;
      input.value = "";
      if (value) send({ paste: value });
    });
    parts.paste.replaceChildren(form);
  };
  const showMessage = () => {
    const text = (model.get("card") || {}).message || "";
    if (!parts.message || closed()) return;
    parts.message.textContent = text;
    parts.message.hidden = !text;
  };
  const showUrl = () => {
    if (!parts.row || closed()) return;
    const link = model.get("link") || {};
    // Only an http(s) address becomes a link (the kernel checked it; this is the page's own guard).
    const current = parts.link.firstChild;
    if (link.href && OPENABLE.test(link.href)) {
      if (current && current.getAttribute("href") === link.href) {
        current.textContent = link.text || link.href;
      } else {
        const a = node("a", "mcp-widgets-link", link.text || link.href);
        a.href = link.href;
        a.target = "_blank";
        a.rel = "noopener noreferrer";
        parts.link.replaceChildren(a);
      }
    } else parts.link.replaceChildren();
    parts.link.hidden = !parts.link.firstChild;
    parts.status.textContent = model.get("status") || "";
    parts.status.hidden = !model.get("status");
    parts.note.textContent = model.get("note") || "";
    parts.note.hidden = !model.get("note");
    showPaste();
    // A button whose press stays keeps its element (and focus): "Open page" disabled as its round ends is
    // the same element, and so is the next round's "I've finished — try again".
    const had = parts.pressed || {};
    parts.pressed = {};
    const row = [];
    for (const spec of model.get("buttons") || []) {
      let button = had[spec.press];
      if (!button) {
        button = node("button", "", "");
        button.type = "button";
        button.addEventListener("click", () => {
          if (!button.disabled) send({ press: spec.press });
        });
      }
      const cls = ["mcp-widgets-button", spec.primary && "mcp-widgets-primary", spec.opens && OPEN_CLASS];
      button.className = cls.filter(Boolean).join(" ");
      button.textContent = spec.label;
      button.disabled = Boolean(spec.disabled);
      button.title = spec.tip || "";
      parts.pressed[spec.press] = button;
      row.push(button);
    }
    parts.row.replaceChildren(...row);
  };
  const showVerdicts = () => fields && fields.verdicts(model.get("verdicts"));
  const showAccept = () => {
    if (!parts.buttons) return;
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
    if (!parts.fields) return;
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
        placeView(view, parts.app);
      })
      .catch(() => {});
  };
  const closed = () => Boolean(model.get("closing_line"));
  const finish = () => {
    // A late click on a button of the ended card (an element someone still holds) sends nothing.
    for (const button of box.querySelectorAll("button")) button.disabled = true;
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
    showUrl();
    stopKeys = render({ model, el: null }, { box, form: model });
  }
  // This view's own listeners (another view of the same model keeps its own).
  const listeners = [
    ["msg:custom", onValues],
    ["change:verdicts", showVerdicts],
    ["change:accept_ok", showAccept],
    ["change:accept_why", showAccept],
    ["change:hint", showHint],
    ["change:hint_warn", showHint],
    ["change:app", () => !closed() && parts.fields && showApp()],
    ["change:closing_line", onChange],
    ["change:card", showMessage],
    ["change:buttons", showUrl],
    ["change:status", showUrl],
    ["change:link", showUrl],
    ["change:note", showUrl],
    ["change:paste_offer", showUrl],
  ];
  for (const [event, fn] of listeners) model.on(event, fn);
  return () => {
    for (const [event, fn] of listeners) model.off(event, fn);
    if (appView) appView.remove();
    if (stopKeys) stopKeys();
    box.replaceChildren();  // a removed view keeps no controls (nor what was typed in them)
  };
}

// A page that made the model says so at once, before any view: the kernel then knows a page is there and
// gives a first question that is slow to draw (a loaded machine) the slow page's time, not a headless run's.
const initialize = ({ model }) => { model.send({ here: true }); };

export default { initialize, render: renderQuestion };
export { localOf, instantOf };  // for the tests
