// The explorer's keyboard (ExplorerKeys): stock buttons and lists, with the notebook's keys kept off them.
// - ArrowLeft/ArrowRight (and Up/Down) on a section button move to the previous/next section button, Home
//   and End to the first and last; Enter or Space presses it (the stock click), not JupyterLab's "edit".
// - In a list (a <select>) the arrows move the choice (not the notebook's cell selection) and Enter
//   presses the list's open button.
// - Enter on any other button of the explorer presses it.
// Keys inside a form the explorer opened are that form's (its own helper handles them).
// Opening the chosen item (Enter in a list, a click on its open button) sends the index the list shows now
// ({open: index}) instead of the stock click: the front end may still hold the list's last change (it sends
// a control's next update only after the kernel went idle for the previous one, a click at once), and the
// kernel would open the item chosen before. Only the open section's list is on the page.
const NAV = ".mcp-widgets-explorer-nav";
const LIST = ".mcp-widgets-explorer-list";
const OPEN = ".mcp-widgets-explorer-open";
function explorerKeys(box, model) {
  const openChosen = (select) => {
    if (!select || select.selectedIndex < 0) return;
    // The stock view records the choice on "change", which keyboard moves in a list do not always fire
    // before Enter (the list then went back to its first item when its section was shown again).
    select.dispatchEvent(new Event("change", { bubbles: true }));
    model.send({ open: select.selectedIndex });
  };
  const listOf = (button) => {
    const row = button.parentElement;
    return row ? row.querySelector(LIST + " select") : null;
  };
  const onClick = (event) => {
    const button = event.target && event.target.closest && event.target.closest("button" + OPEN);
    if (!button || !box.contains(button) || button.disabled) return;
    event.preventDefault();
    event.stopPropagation();  // the stock click would reach the kernel before the list's last change
    openChosen(listOf(button));
  };
  const onKey = (event) => {
    const target = event.target;
    if (!target || target === box || event.ctrlKey || event.metaKey || event.altKey) return;
    if (target.closest && target.closest(".mcp-widgets-form")) return;
    const nav = target.closest && target.closest(NAV);
    if (nav && target.tagName === "BUTTON") {
      const buttons = Array.from(nav.querySelectorAll("button"));
      const at = buttons.indexOf(target);
      let to = -1;
      if (event.key === "ArrowRight" || event.key === "ArrowDown") to = (at + 1) % buttons.length;
      else if (event.key === "ArrowLeft" || event.key === "ArrowUp") to = (at - 1 + buttons.length) % buttons.length;
      else if (event.key === "Home") to = 0;
      else if (event.key === "End") to = buttons.length - 1;
      if (to >= 0) {
        event.preventDefault();
        event.stopPropagation();
        buttons[to].focus();
        return;
      }
    }
    if (event.key === "Enter" && target.tagName === "BUTTON") {
      event.stopPropagation();  // the button's own click; not JupyterLab's "edit the cell"
      return;
    }
    const list = target.closest && target.closest(LIST);
    if (list && target.tagName === "SELECT" && event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      event.stopPropagation();
      openChosen(target);
      return;
    }
    if (["INPUT", "SELECT", "TEXTAREA", "BUTTON"].includes(target.tagName) && event.key !== "Tab") {
      event.stopPropagation();  // the control's key, not the notebook's (D D would delete the cell)
    }
  };
  box.addEventListener("keydown", onKey);
  box.addEventListener("click", onClick, true);
  return () => {
    box.removeEventListener("keydown", onKey);
    box.removeEventListener("click", onClick, true);
  };
}

const ID_CLASS = "mcp-widgets-explorer-id-";
export default {
  render({ model, el }) {
    return inBox(el, (box) => {  // (inBox: flush.js, prepended)
      const named = Array.from(box.classList).find((c) => c.startsWith(ID_CLASS));
      let explorer = null;
      if (named) {
        model.widget_manager.get_model(named.slice(ID_CLASS.length)).then(
          (found) => { explorer = found; },
          () => {},
        );
      }
      const send = (msg) => explorer && explorer.send(msg);
      return explorerKeys(box, { send });
    });
  },
};
