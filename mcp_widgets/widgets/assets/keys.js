// Focus rule: a form takes focus once, when it first shows, and only if that takes nobody's typing away:
// - nothing has focus (document.body), or
// - what has focus is not something one types into (a notebook or cell in command mode, a button), or
// - it is the editor of the form's own cell (the person just ran that cell with Ctrl+Enter), or
// - it is the still empty editor of the cell right below (Shift+Enter on the last cell makes one).
// So a form that appears from a background call while the person edits another cell, fills in another form
// (even one in the same output) or types in any other input, leaves their focus where it is; they reach
// the form with the mouse or Tab.
const EDITABLE = ["INPUT", "TEXTAREA", "SELECT", "IFRAME"];
function mayTakeFocus(box) {
  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) {
    active = active.shadowRoot.activeElement;
  }
  if (!active || active === document.body || active === document.documentElement) return true;
  if (!active.isContentEditable && !EDITABLE.includes(active.tagName)) return true;
  const cell = box.closest(".jp-Cell");
  if (!cell || active.closest(".jp-OutputArea")) return false;
  if (cell.contains(active)) return true;
  const below = cell.nextElementSibling;
  return Boolean(below && below.contains(active) && active.isContentEditable && !active.textContent.trim());
}

// A URL card's "Open page" button, and the only URLs it opens (the kernel refuses every other one first).
const OPEN_CLASS = "mcp-widgets-open";
const OPENABLE = /^https?:\/\//i;

// The model id of the form's box: in the class of the box that starts with KEYS_CLASS (one helper model
// serves every form, so it talks to each form through the form's own model).
function boxIdOf(box) {
  const name = Array.from(box.classList).find((name) => name.startsWith("mcp-widgets-keys-"));
  return name ? name.slice(17) : null;
}

// The view is hidden; its parent element is the form's box. Listen there in the capture phase: stock text
// inputs stop keydown from bubbling (so the notebook's shortcuts leave them alone). Every message goes
// through the form's own model (its comm keeps the order of the form's other messages in the kernel);
// nothing is sent before that model is known.
function render({ model, el }) {
  let box = null;
  let form = null;  // the form's model
  let looking = false;
  let stopped = false;
  let listening = false;
  const send = (msg) => form.send(msg);
  const onKey = (event) => {
    if (event.isComposing) return;
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();  // keep the notebook from taking Escape for itself
      send({ key: "Escape" });
    } else if (event.key === "Enter" && event.target.closest && event.target.closest(".mcp-widgets-last")) {
      event.preventDefault();
      event.stopPropagation();
      send({ key: "Enter", in_last_field: true });
    }
  };
  // A URL card: the kernel sends the URL it checked and shows ({open_url}); null once the request ended.
  let openUrl = null;
  const onOpen = (event) => {
    const button = event.target.closest && event.target.closest("button." + OPEN_CLASS);
    if (!button || !box.contains(button)) return;
    // Not (or no longer) told the URL: the stock click goes to the kernel, which shows a link instead (or
    // ignores a click on an ended request). Nothing is opened from here then.
    if (!openUrl || button.disabled || !OPENABLE.test(openUrl)) return;
    // Opened here, inside the click (a browser opens a new tab only then); the kernel takes this message as
    // the consent, so the stock click must not reach it too.
    event.preventDefault();
    event.stopPropagation();
    window.open(openUrl, "_blank", "noopener,noreferrer");
    send({ opened: openUrl });
  };
  const onUrl = (msg) => {
    if (!msg || !("open_url" in msg)) return;
    openUrl = typeof msg.open_url === "string" ? msg.open_url : null;
    // Says on the card that a click opens the page (until then a quick click only consents: the link).
    if (openUrl) box.dataset.mcpWidgetsOpen = "1";
    else delete box.dataset.mcpWidgetsOpen;
  };
  let onFlush = null;
  const found = (boxModel) => {
    if (stopped || !boxModel) return;
    form = boxModel;
    // Flush probe (see KeyRoute.after_flush): answer only those for this view's form.
    onFlush = flushAnswerer(form, form, () => !stopped);
    form.on("msg:custom", onFlush);
    form.on("msg:custom", onUrl);
    if (!box.dataset.mcpWidgetsKeys) {
      box.dataset.mcpWidgetsKeys = "1";
      box.addEventListener("keydown", onKey, true);
      box.addEventListener("click", onOpen, true);
      listening = true;
    }
    send({ ready: true });
  };
  // Children views are attached after they render: wait (a few frames at most) for the box and first input.
  let frames = 0;
  const attach = () => {
    box = box || el.parentElement;
    const id = box && !looking && boxIdOf(box);
    if (id) {
      looking = true;
      Promise.resolve(model.widget_manager.get_model(id)).then(found, () => {});
    }
    const first = box && box.querySelector(".mcp-widgets-first input, .mcp-widgets-first select");
    if (first) {
      if (mayTakeFocus(box)) first.focus({ preventScroll: true });
    } else if (box && box.querySelector("button") && !box.querySelector(".mcp-widgets-first")) {
      // No field (a confirmation, a URL card): the box itself takes focus, so Escape works at once;
      // Enter does nothing there (it accepts only from the last field).
      if (mayTakeFocus(box)) {
        box.tabIndex = -1;
        box.focus({ preventScroll: true });
      }
    } else if (frames++ < 120) requestAnimationFrame(attach);
    if (box && !unmark) unmark = markInvalid(box);
  };
  let unmark = null;
  requestAnimationFrame(attach);
  return () => {
    stopped = true;
    if (unmark) unmark();
    if (form) {
      form.off("msg:custom", onFlush);
      form.off("msg:custom", onUrl);
    }
    if (listening) {
      box.removeEventListener("keydown", onKey, true);
      box.removeEventListener("click", onOpen, true);
      delete box.dataset.mcpWidgetsOpen;
      delete box.dataset.mcpWidgetsKeys;
    }
  };
}
export default { render };
export { mayTakeFocus, boxIdOf };  // for the tests
