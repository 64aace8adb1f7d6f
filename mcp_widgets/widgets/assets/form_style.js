// A tool form's invisible helper (FormStyle): flush probes, aria-invalid, named option groups and the keys of
// its controls, without the rest of the forms' keyboard.

// Keys on a control of the tool form without Ctrl/Meta are the control's: JupyterLab takes keys on anything
// one does not type into (a radio button, a checkbox, a list) for its command mode, so arrows moved the
// notebook's cell selection instead of the choice (and D D would delete the cell). Enter, Escape and Tab go
// on as before. A question in the form's result has its own keyboard helper, which took its keys first.
const OWN_KEYS = ["Enter", "Escape", "Tab"];
function keepControlKeys(box) {
  const onKey = (event) => {
    const target = event.target;
    if (event.ctrlKey || event.metaKey || OWN_KEYS.includes(event.key) || target === box) return;
    if (["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName)) event.stopPropagation();
  };
  box.addEventListener("keydown", onKey);
  return () => box.removeEventListener("keydown", onKey);
}

// "Copy as code": the kernel sends the call's code as a message (never synced state: it holds what was
// typed). It goes to the clipboard; where the browser refuses (an address that is not a secure context, a
// denied permission), it is shown under the buttons, selected, to copy by hand. Text only, never HTML.
const COPIED_MS = 4000;
function copyCode(box, code) {
  const button = box.querySelector(".mcp-widgets-copy-code");
  const row = button ? button.parentElement : null;
  if (!row) return;
  const old = row.parentElement.querySelector(":scope > .mcp-widgets-code-box");
  if (old) old.remove();
  const shown = document.createElement("div");
  shown.className = "mcp-widgets-code-box";
  shown.setAttribute("role", "status");
  row.after(shown);
  const byHand = () => {
    const line = document.createElement("div");
    line.textContent = "Your browser did not let the page copy: select the code and copy it.";
    const text = document.createElement("textarea");
    text.readOnly = true;
    text.rows = 2;
    text.value = code;
    text.setAttribute("aria-label", "The call as Python code");
    shown.replaceChildren(line, text);
    text.focus();
    text.select();
  };
  const clipboard = globalThis.navigator && navigator.clipboard;
  if (!clipboard || typeof clipboard.writeText !== "function") return byHand();
  clipboard.writeText(code).then(
    () => {
      shown.textContent = "Copied: paste it into a cell.";
      setTimeout(() => shown.remove(), COPIED_MS);
    },
    byHand,
  );
}

export default {
  render({ model, el }) {
    const id = model.get("form_id");
    const stop = answerFlushes(model, id ? model.widget_manager.get_model(id) : null);
    const unmark = inBox(el, markInvalid);
    const unname = inBox(el, (box) => nameGroups(box, id));
    const unkeep = inBox(el, keepControlKeys);
    const onCopy = (msg) => {
      if (msg && typeof msg.copy === "string" && el.parentElement) copyCode(el.parentElement, msg.copy);
    };
    model.on("msg:custom", onCopy);
    return () => {
      model.off("msg:custom", onCopy);
      unkeep();
      unname();
      unmark();
      stop();
    };
  },
};
