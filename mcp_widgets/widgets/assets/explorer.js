// The explorer's keyboard (ExplorerKeys): stock buttons and lists, with the notebook's keys kept off them.
// - ArrowLeft/ArrowRight (and Up/Down) on a section button move to the previous/next section button, Home
//   and End to the first and last; Enter or Space presses it (the stock click), not JupyterLab's "edit".
// - In a list (a <select>) the arrows move the choice (not the notebook's cell selection) and Enter
//   presses the list's open button.
// - Enter on any other button of the explorer presses it.
// Keys inside a form the explorer opened are that form's (its own helper handles them).
const NAV = ".mcp-widgets-explorer-nav";
const LIST = ".mcp-widgets-explorer-list";
const OPEN = ".mcp-widgets-explorer-open";
function explorerKeys(box) {
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
      const row = list.parentElement;
      const open = row && row.querySelector(OPEN);
      if (open && !open.disabled) open.click();
      return;
    }
    if (["INPUT", "SELECT", "TEXTAREA", "BUTTON"].includes(target.tagName) && event.key !== "Tab") {
      event.stopPropagation();  // the control's key, not the notebook's (D D would delete the cell)
    }
  };
  box.addEventListener("keydown", onKey);
  return () => box.removeEventListener("keydown", onKey);
}

function inParent(el, fn) {
  let frames = 0;
  let frame = null;
  let stop = () => {};
  const look = () => {
    frame = null;
    if (el && el.parentElement) stop = fn(el.parentElement) || stop;
    else if (el && frames++ < 120) frame = requestAnimationFrame(look);
  };
  if (el && typeof requestAnimationFrame === "function") frame = requestAnimationFrame(look);
  return () => {
    if (frame !== null) cancelAnimationFrame(frame);
    stop();
  };
}

export default {
  render({ el }) {
    return inParent(el, explorerKeys);
  },
};
