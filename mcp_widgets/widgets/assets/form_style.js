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

export default {
  render({ model, el }) {
    const id = model.get("form_id");
    const stop = answerFlushes(model, id ? model.widget_manager.get_model(id) : null);
    const unmark = inBox(el, markInvalid);
    const unname = inBox(el, (box) => nameGroups(box, id));
    const unkeep = inBox(el, keepControlKeys);
    return () => {
      unkeep();
      unname();
      unmark();
      stop();
    };
  },
};
