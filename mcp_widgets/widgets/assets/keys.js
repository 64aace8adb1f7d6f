// Focus rule: a form takes focus once, when it first shows, and only when the person is looking at it and
// nobody's typing is taken away:
// - it is not a second view in an open-questions list (an old mw.pending() output never takes focus), and
// - in a notebook, its cell is the active cell and is running: the person just ran it and stayed on it
//   (Ctrl+Enter, the Run button). Shift+Enter moves on to the next cell: the form then leaves the keyboard
//   to the notebook (repeated Shift+Enter goes on through the notebook, it never comes back here), and
// - its cell is on screen (a hidden tab, a cell scrolled out of view, take nothing; the form itself may
//   start below the fold: taking focus scrolls it into view), and
// - nothing has focus, or what has focus is not something one types into (a notebook or cell in command
//   mode, a button), or it is the editor of the form's own cell.
// Outside a notebook (Voila: no cell) the last two apply. A person reaches any other form with the mouse or Tab.
const EDITABLE = ["INPUT", "TEXTAREA", "SELECT", "IFRAME"];
function activeElement() {
  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) {
    active = active.shadowRoot.activeElement;
  }
  return active;
}
// The marimo cell showing `el` (its element may sit in a shadow root: look out through each host), or null.
function marimoCell(el) {
  let at = el;
  while (at) {
    const cell = at.closest ? at.closest(".marimo-cell") : null;
    if (cell) return cell;
    const root = at.getRootNode ? at.getRootNode() : null;
    at = root && root.host ? root.host : null;
  }
  return null;
}
function isRunning(cell) {
  const prompt = cell.querySelector(".jp-InputPrompt");
  return Boolean(prompt && prompt.textContent.includes("*"));
}
function onScreen(box) {
  if (typeof box.getBoundingClientRect !== "function") return true;
  const rect = box.getBoundingClientRect();
  const height = window.innerHeight || document.documentElement.clientHeight;
  return rect.height > 0 && rect.bottom > 0 && rect.top < height;
}
function mayTakeFocus(box) {
  if (box.closest(".mcp-widgets-pending")) return false;
  const cell = box.closest(".jp-Cell");
  if (cell && !(cell.classList.contains("jp-mod-active") && isRunning(cell))) return false;
  if (!onScreen(cell || box)) return false;
  const active = activeElement();
  if (!active || active === document.body || active === document.documentElement) return true;
  if (!active.isContentEditable && !EDITABLE.includes(active.tagName)) return true;
  return Boolean(cell && cell.contains(active) && !active.closest(".jp-OutputArea"));
}

// Keys (see docs/keyboard.md): the keys a person moves through a notebook with never answer for them.
// - "Engaged": the person put focus or input into the form themselves (a click, Tab, typing, a change).
//   Focus the form took by itself is not that.
// - Escape: on a form the person has not engaged, hands the keyboard back to the notebook and asks nothing;
//   otherwise goes to the kernel, which cancels an untouched form and asks again on one with typed input.
// - Enter, plain, in the last field of an engaged form: Accept (the form says so). Shift/Ctrl/Alt/Meta+Enter
//   do nothing in a form (and a form the person has not engaged hands the keyboard back).
// - On a control of the form, keys without Ctrl/Meta stay with the control: arrows move a radio group's
//   choice, not the notebook's cell selection, and command-mode letters (D D deletes a cell) do nothing.
// - Enter on a button of the form presses it (JupyterLab would take it for "edit the cell").
// - A click on the form beside its controls puts focus on the form: Tab goes on to the form's controls.
// After an answer the form's controls go: focus that was in the form goes back to the notebook (backTo).
const CONTROLS = ["INPUT", "TEXTAREA", "SELECT"];

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
// nothing is sent before that model is known. A one-model card (question.js) gives its own element and model
// instead (`given`: {box, form}): the same keys, focus and focus-back, talking through that model.
function render({ model, el }, given) {
  let box = given ? given.box : null;
  let form = null;  // the form's model
  let notebook = null;
  let looking = false;
  let stopped = false;
  let listening = false;
  let engaged = false;  // the person put focus or input into the form themselves
  let typed = false;  // the person typed or changed something in the form
  let edits = 0;  // how many times: the kernel tells a second Escape from one after more typing
  let selfFocus = false;  // inside our own focus() call
  let focusInside = false;
  let returnTo = null;  // where focus was before it came into the form
  const send = (msg) => form.send(msg);
  // The notebook around the box, once the box is in the page (a card's own box is known before it is).
  const findNotebook = () => (notebook = notebook || (box && box.closest && box.closest(".jp-Notebook")));
  const takeFocus = (target) => {
    const before = activeElement();
    if (before && !box.contains(before)) returnTo = before;
    selfFocus = true;
    try {
      target.focus();  // scrolls it into view when it starts below the fold of the cell one looks at
    } finally {
      selfFocus = false;
    }
  };
  // Where focus goes back to: in a notebook, where it came from only when that was the notebook, a cell or
  // a cell's editor, else the notebook in command mode (its active cell). Never a button there: Tab from a
  // click beside the form reached the cell toolbar's "Create a duplicate" button, and the next Enter after
  // the answer duplicated the cell. Outside a notebook, where it came from.
  const backTo = () => {
    findNotebook();
    const from = returnTo && returnTo.isConnected && returnTo !== document.body ? returnTo : null;
    if (!notebook) {
      // marimo: back to the cell that shows the form (where focus came from when that was in it, else the
      // cell's editor); elsewhere, where it came from.
      const cell = marimoCell(box);
      if (!cell) return from;
      if (from && cell.contains(from)) return from;
      return cell.querySelector(".cm-content") || cell;
    }
    const editor = from && from.closest(".jp-Editor");
    const fromCell = from && (from === notebook || from.classList.contains("jp-Cell") || editor);
    if (fromCell && notebook.contains(from) && !from.closest(".jp-OutputArea")) return from;
    return notebook.querySelector(".jp-Cell.jp-mod-active") || notebook;
  };
  // Focus back (see backTo): Shift+Enter and the arrows work at once.
  const giveBack = () => {
    engaged = typed = false;
    focusInside = false;
    const to = backTo();
    returnTo = null;
    if (to && typeof to.focus === "function") to.focus({ preventScroll: true });
    else {
      const active = activeElement();
      if (active && box.contains(active) && typeof active.blur === "function") active.blur();
    }
  };
  // A press in the form: focus was outside it then. JupyterLab's own mousedown, which comes after, makes the
  // form's cell the active one and focuses it: the focus event then names that cell, not where the person
  // was (the next cell, after Shift+Enter), and an answer would leave them on the asking cell, whose next
  // Shift+Enter runs the same call again.
  let pressedFrom = null;
  const onPress = () => {
    const active = activeElement();
    pressedFrom = active && !box.contains(active) ? active : null;
  };
  const onFocusIn = (event) => {
    const from = pressedFrom || event.relatedTarget;
    pressedFrom = null;
    if (from && !box.contains(from)) returnTo = from;
    focusInside = true;
    if (!selfFocus) engaged = true;  // a click or Tab brought it here
  };
  const onFocusOut = (event) => {
    if (event.relatedTarget && !box.contains(event.relatedTarget)) focusInside = false;
    if (event.relatedTarget) return;
    // Focus left for nowhere: the control that had it is going or was disabled (an answer replaces the
    // form's controls; a call's output may be cleared without this view being told). Once that is so and
    // nothing else took focus, it goes back (giveBack) instead of staying on the page's body.
    const lost = event.target;
    setTimeout(() => {
      const now = activeElement();
      const fell = !now || now === document.body || now === document.documentElement || !now.isConnected;
      if (fell && (!lost.isConnected || lost.disabled)) giveBack();
    }, 0);
  };
  // A click on the form's own surface (its text, a margin), not on a control: focus goes to the form itself,
  // so Tab goes on to the form's controls (it went from the cell, to the cell toolbar's buttons first).
  const onClickIn = (event) => {
    const active = activeElement();
    if (event.defaultPrevented || (active && box.contains(active))) return;
    if (!box.hasAttribute("tabindex")) box.tabIndex = -1;
    box.focus({ preventScroll: true, focusVisible: false });  // a click: no keyboard ring
  };
  const onEngage = (event) => {
    if (event.type === "pointerdown") onPress();
    engaged = true;
    if (event.type !== "pointerdown") {
      typed = true;
      edits += 1;
    }
  };
  const onKey = (event) => {
    if (event.isComposing) return;
    const target = event.target;
    const inBox = target && target !== box;
    const modified = event.shiftKey || event.ctrlKey || event.altKey || event.metaKey;
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();  // keep the notebook from taking Escape for itself
      if (engaged) send(typed ? { key: "Escape", typed: true, edits } : { key: "Escape" });
      else giveBack();
    } else if (event.key === "Enter" && modified) {
      // Shift/Ctrl/Alt+Enter run cells: in a form they do nothing (a stock button would be clicked).
      event.preventDefault();
      event.stopPropagation();
      if (!engaged) giveBack();
    } else if (event.key === "Enter" && inBox && target.tagName === "BUTTON") {
      event.stopPropagation();  // the button's own click; not JupyterLab's "edit the cell"
    } else if (event.key === "Enter" && target.closest && target.closest(".mcp-widgets-last")) {
      event.preventDefault();
      event.stopPropagation();
      if (engaged) send({ key: "Enter", in_last_field: true });
    } else if (inBox && CONTROLS.includes(target.tagName) && !event.ctrlKey && !event.metaKey) {
      if (event.key !== "Tab") event.stopPropagation();  // the control's key, not the notebook's
      const editing = event.key.length === 1 || event.key === "Backspace" || event.key === "Delete";
      if (editing) {
        engaged = typed = true;
        edits += 1;
      }
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
    // Flush probe (see Flushes.probe): answer only those for this view's form.
    onFlush = flushAnswerer(form, form, () => !stopped);
    form.on("msg:custom", onFlush);
    form.on("msg:custom", onUrl);
    if (!box.dataset.mcpWidgetsKeys) {
      box.dataset.mcpWidgetsKeys = "1";
      box.addEventListener("keydown", onKey, true);
      box.addEventListener("click", onOpen, true);
      box.addEventListener("click", onClickIn);
      box.addEventListener("focusin", onFocusIn, true);
      box.addEventListener("focusout", onFocusOut, true);
      box.addEventListener("pointerdown", onEngage, true);
      box.addEventListener("input", onEngage, true);
      box.addEventListener("change", onEngage, true);
      listening = true;
    }
    send({ ready: true });
  };
  // Children views are attached after they render: wait (a few frames at most) for the box and first input.
  let frames = 0;
  const attach = () => {
    box = box || el.parentElement;
    findNotebook();
    const id = box && !looking && boxIdOf(box);
    if (id) {
      looking = true;
      Promise.resolve(model.widget_manager.get_model(id)).then(found, () => {});
    }
    const first = box && box.querySelector(".mcp-widgets-first input, .mcp-widgets-first select");
    if (first) {
      if (mayTakeFocus(box)) takeFocus(first);
    } else if (box && box.querySelector("button") && !box.querySelector(".mcp-widgets-first")) {
      // No field (a confirmation, a URL card): the box itself takes focus (Tab reaches the buttons from
      // there); Enter does nothing on the box (it accepts only from the last field or on Accept).
      if (mayTakeFocus(box)) {
        box.tabIndex = -1;
        takeFocus(box);
      }
    } else if (frames++ < 120) requestAnimationFrame(attach);
    if (box && !unmark) unmark = markInvalid(box);
    if (box && !unname) unname = nameGroups(box, boxIdOf(box));
  };
  let unmark = null;
  let unname = null;
  // A one-model card listens from the start: a person (or a busy page's late frame) may press and type
  // before the first frame, and a press seen later misses where focus came from (focus back goes wrong).
  if (given) {
    looking = true;
    found(given.form);
  }
  requestAnimationFrame(attach);
  return () => {
    stopped = true;
    if (unmark) unmark();
    if (unname) unname();
    if (form) {
      form.off("msg:custom", onFlush);
      form.off("msg:custom", onUrl);
    }
    if (listening) {
      // The form was answered (or its output cleared): its controls go, and focus in them would fall to the
      // page. Put it back where it came from, unless the person has gone on elsewhere meanwhile.
      const active = activeElement();
      const hadFocus = focusInside || (active && box.contains(active));
      if (hadFocus) {
        setTimeout(() => {
          const now = activeElement();
          if (!now || now === document.body || now === box || !now.isConnected) giveBack();
        }, 0);
      }
      box.removeAttribute && box.removeAttribute("tabindex");
      box.removeEventListener("keydown", onKey, true);
      box.removeEventListener("click", onOpen, true);
      box.removeEventListener("click", onClickIn);
      box.removeEventListener("focusin", onFocusIn, true);
      box.removeEventListener("focusout", onFocusOut, true);
      box.removeEventListener("pointerdown", onEngage, true);
      box.removeEventListener("input", onEngage, true);
      box.removeEventListener("change", onEngage, true);
      delete box.dataset.mcpWidgetsOpen;
      delete box.dataset.mcpWidgetsKeys;
    }
  };
}
export default { render };
export { mayTakeFocus, boxIdOf };  // for the tests
