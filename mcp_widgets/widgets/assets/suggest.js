// A field's suggestion list (SuggestList in _completion.py): the server's completions for the text input it
// serves, drawn under that input as the person types. The kernel asks the server and sets `values`, `count`
// and `answer` (a new number for each answer); this view draws them as literal text and handles the keys:
// - ArrowDown / ArrowUp move the highlight (ArrowDown on a closed list opens it, asking again if needed),
// - Enter picks the highlighted value (sent as {pick: index}: the kernel sets the field), Escape closes,
//   and neither reaches the form or the notebook while the list is open (never Run, never command mode),
// - a click picks; leaving the input closes (the kernel then forgets the values: {closed: true}); a press
//   elsewhere (Run) closes it only once the press is over, so the click lands where it was aimed.
// The input is found in the form's box by the class the kernel gave its control (`for_class`).

export default {
  render({ model, el }) {
    el.classList.add("mcp-widgets-suggest");  // shown only with mcp-widgets-suggest-open (suggest.css)
    const listId = "mcp-widgets-suggest-" + Math.random().toString(36).slice(2);
    const list = document.createElement("ul");
    list.id = listId;
    list.setAttribute("role", "listbox");
    list.className = "mcp-widgets-suggest-list";
    const count = document.createElement("div");
    count.className = "mcp-widgets-suggest-count";
    el.append(list, count);
    let input = null;
    let open = false;
    let active = -1;

    const highlight = (index) => {
      active = index;
      const items = list.children;
      for (let i = 0; i < items.length; i++) {
        const on = i === active;
        items[i].classList.toggle("mcp-widgets-suggest-active", on);
        items[i].setAttribute("aria-selected", on ? "true" : "false");
      }
      if (input) {
        if (active >= 0 && items[active]) {
          input.setAttribute("aria-activedescendant", items[active].id);
          items[active].scrollIntoView({ block: "nearest" });
        } else input.removeAttribute("aria-activedescendant");
      }
    };
    const close = (tell) => {
      const was = open;
      open = false;
      el.classList.remove("mcp-widgets-suggest-open");
      highlight(-1);
      if (input) input.setAttribute("aria-expanded", "false");
      if (tell && was) model.send({ closed: true });
    };
    const pick = (index) => {
      const values = model.get("values") || [];
      if (index < 0 || index >= values.length) return;
      close(false);
      model.send({ pick: index });
    };
    const draw = () => {
      const values = model.get("values") || [];
      const was = active >= 0 && list.children[active] ? list.children[active].textContent : null;
      list.replaceChildren();
      values.forEach((value, i) => {
        const item = document.createElement("li");
        item.id = listId + "-" + i;
        item.setAttribute("role", "option");
        item.className = "mcp-widgets-suggest-item";
        item.textContent = value;  // the server's text, literal
        item.addEventListener("mousedown", (event) => event.preventDefault());  // the input keeps focus
        item.addEventListener("click", () => pick(i));
        list.appendChild(item);
      });
      count.textContent = model.get("count") || "";
      highlight(was === null ? -1 : values.indexOf(was));  // a newer answer keeps the highlighted value
      const focused = input && input.ownerDocument.activeElement === input;
      if (values.length && focused) {
        open = true;
        el.classList.add("mcp-widgets-suggest-open");
        input.setAttribute("aria-expanded", "true");
      } else close(false);
    };
    const onKey = (event) => {
      const values = model.get("values") || [];
      if (!open) {
        if (event.key !== "ArrowDown" || event.altKey || event.ctrlKey || event.metaKey) return;
        event.preventDefault();
        event.stopPropagation();
        if (values.length) {
          draw();
          if (open) highlight(0);
        } else model.send({ ask: true });  // closed and emptied (Escape): ask again for what is there
        return;
      }
      const n = list.children.length;
      if (event.key === "ArrowDown") highlight(n ? (active + 1) % n : -1);
      else if (event.key === "ArrowUp") highlight(n ? (active <= 0 ? n - 1 : active - 1) : -1);
      else if (event.key === "Enter" && !event.shiftKey && !event.ctrlKey && !event.metaKey && !event.altKey) {
        if (active >= 0) pick(active);
        else close(true);
      } else if (event.key === "Escape") close(true);
      else return;
      event.preventDefault();
      event.stopPropagation();
      event.stopImmediatePropagation();
    };
    // A press outside the input (on Run, Read) blurs it on mousedown: closing the list then moved what was
    // under the pointer up by the list's height, and the click landed on nothing. While a press is on, the
    // list closes only once it is over (after its click), and only if the input did not get focus back.
    let pressing = false;
    let closeAfterPress = false;
    const onDown = () => {
      pressing = true;
    };
    const onUp = () => {
      pressing = false;
      if (!closeAfterPress) return;
      closeAfterPress = false;
      setTimeout(() => {
        if (!input || input.ownerDocument.activeElement !== input) close(true);
      }, 0);
    };
    const onBlur = () => {
      if (pressing && open) closeAfterPress = true;
      else close(true);
    };
    const attach = (box) => {
      const cls = model.get("for_class");
      input = cls ? box.querySelector("." + cls + " input") : null;
      if (!input) return () => {};
      input.setAttribute("role", "combobox");
      input.setAttribute("aria-autocomplete", "list");
      input.setAttribute("aria-controls", listId);
      input.setAttribute("aria-expanded", "false");
      input.setAttribute("autocomplete", "off");
      input.addEventListener("keydown", onKey, true);
      input.addEventListener("blur", onBlur);
      const win = input.ownerDocument.defaultView || window;
      win.addEventListener("pointerdown", onDown, true);
      win.addEventListener("pointerup", onUp, true);
      win.addEventListener("pointercancel", onUp, true);
      return () => {
        input.removeEventListener("keydown", onKey, true);
        input.removeEventListener("blur", onBlur);
        win.removeEventListener("pointerdown", onDown, true);
        win.removeEventListener("pointerup", onUp, true);
        win.removeEventListener("pointercancel", onUp, true);
      };
    };
    // (inBox: flush.js) the view's element is in the form's box a few frames after it renders
    const stop = inBox(el, attach);
    model.on("change:answer", draw);
    return () => {
      model.off("change:answer", draw);
      stop();
    };
  },
};
