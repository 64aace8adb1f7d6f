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
// The row of section buttons is one Tab stop (a roving tabindex): the focused button, else the open
// section's, else the first; Tab goes on to the list. A list's rows get their tooltips (the item's whole
// text) from the explorer's `tips`, set as text (a title attribute), never as markup.
const NAV = ".mcp-widgets-explorer-nav";
const LIST = ".mcp-widgets-explorer-list";
const OPEN = ".mcp-widgets-explorer-open";
const SECTION = "mcp-widgets-explorer-section-";
function rove(box) {
  for (const nav of box.querySelectorAll(NAV)) {
    const buttons = Array.from(nav.querySelectorAll("button"));
    const focused = buttons.indexOf(document.activeElement);
    const open = buttons.findIndex((b) => b.classList.contains("mod-active"));
    const stop = focused >= 0 ? focused : open >= 0 ? open : 0;
    buttons.forEach((b, i) => {
      const want = i === stop ? "0" : "-1";
      if (b.getAttribute("tabindex") !== want) b.setAttribute("tabindex", want);
    });
  }
}
function titleRows(box, tips) {
  for (const list of box.querySelectorAll(LIST)) {
    const named = Array.from(list.classList).find((c) => c.startsWith(SECTION));
    const rows = named ? tips[named.slice(SECTION.length)] : null;
    if (!Array.isArray(rows)) continue;
    list.querySelectorAll("option").forEach((option, i) => {
      const tip = typeof rows[i] === "string" ? rows[i] : "";
      if (option.title !== tip) option.title = tip;
    });
  }
}
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
  // The stock views draw the buttons and the lists after this view, and again when a section opens: look
  // again once a frame after the explorer's DOM changed.
  let frame = 0;
  const look = () => {
    frame = 0;
    rove(box);
    titleRows(box, model.tips());
  };
  const later = () => { if (!frame) frame = requestAnimationFrame(look); };
  const watcher = new MutationObserver(later);
  watcher.observe(box, { childList: true, subtree: true, attributes: true, attributeFilter: ["class"] });
  const onFocus = (event) => {
    if (event.target && event.target.closest && event.target.closest(NAV)) rove(box);
  };
  box.addEventListener("keydown", onKey);
  box.addEventListener("click", onClick, true);
  box.addEventListener("focusin", onFocus);
  model.onTips(later);
  later();
  return () => {
    watcher.disconnect();
    if (frame) cancelAnimationFrame(frame);
    model.onTips(null);
    box.removeEventListener("keydown", onKey);
    box.removeEventListener("click", onClick, true);
    box.removeEventListener("focusin", onFocus);
  };
}

const ID_CLASS = "mcp-widgets-explorer-id-";
export default {
  render({ model, el }) {
    return inBox(el, (box) => {  // (inBox: flush.js, prepended)
      const named = Array.from(box.classList).find((c) => c.startsWith(ID_CLASS));
      let explorer = null;
      let tipsChanged = null;  // the keys' "look again", told when the explorer's tips change
      const onChange = () => tipsChanged && tipsChanged();
      if (named) {
        model.widget_manager.get_model(named.slice(ID_CLASS.length)).then(
          (found) => {
            explorer = found;
            explorer.on("change:tips", onChange);
            onChange();
          },
          () => {},
        );
      }
      const send = (msg) => explorer && explorer.send(msg);
      const tips = () => (explorer && explorer.get("tips")) || {};
      const onTips = (fn) => { tipsChanged = fn; };
      const stop = explorerKeys(box, { send, tips, onTips });
      return () => {
        if (explorer) explorer.off("change:tips", onChange);
        stop();
      };
    });
  },
};
