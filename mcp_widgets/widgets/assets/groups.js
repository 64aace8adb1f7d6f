// Option groups. Stock radio inputs carry no name, so the browser cannot tell one group from the next:
// ArrowDown on a group's last option went on into the next group (and changed its answer there), and Tab
// stopped on every option. Every group of options of a form (a field's radio buttons, a multi-select's
// checkboxes) gets a name of its own on the page: "mcp-widgets-" + the form's model id + "-" + the group's
// place in the form, and "-2", "-3"... for a second view of the same form (an open-questions list), whose
// radios must not join the first view's group. Nothing a person types goes into a name, and the same form
// gets the same names when a saved notebook is opened again. Groups of a form nested in this one (a tool
// form's result) are left to that form's own view. Returns the stop.
const GROUPS = ".widget-radio-box, .jupyter-widget-radio-box, .mcp-widgets-choices";
function nameGroups(box, formId) {
  if (typeof MutationObserver === "undefined" || typeof box.querySelectorAll !== "function") {
    return () => {};  // (Node, in the tests)
  }
  const prefix = "mcp-widgets-" + (formId || "form") + "-";
  const takenElsewhere = (name, group) =>
    Array.from(document.getElementsByName(name)).some((other) => !group.contains(other));
  const sync = () => {
    const groups = Array.from(box.querySelectorAll(GROUPS)).filter(
      (group) => (group.closest(".mcp-widgets-form") || box) === box,
    );
    groups.forEach((group, place) => {
      const inputs = Array.from(group.querySelectorAll('input[type="radio"], input[type="checkbox"]'));
      if (!inputs.length) return;
      let name = inputs[0].name;
      if (!name.startsWith(prefix) || takenElsewhere(name, group)) {
        const base = prefix + place;
        name = base;
        for (let view = 2; takenElsewhere(name, group); view++) name = base + "-" + view;
      }
      for (const input of inputs) if (input.name !== name) input.name = name;
    });
  };
  sync();
  const watch = new MutationObserver(sync);  // the stock view makes new inputs when the options change
  watch.observe(box, { subtree: true, childList: true });
  return () => watch.disconnect();
}
