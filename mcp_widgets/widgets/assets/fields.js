// The fields renderer: one row per field spec (made in Python, `_field_specs.field_spec`), each with its title
// (a <label> or a group's name, so a screen reader and `get_by_label` find the control by it), the control,
// the note under it (description, what to pick) and its verdict line (the kernel's, once due). Every text is
// set as textContent, never HTML. What a person types is handed to `onEdit(name, value)` (the caller sends
// it to the kernel as a message); `set` shows a value the kernel sent, without calling `onEdit`.
//
// Values on the page: text for text and numbers; a bool for a checkbox; "YYYY-MM-DD" or "" for a date; an
// ISO instant (UTC) or "" for a date-time; an option's index or null for one of several; a list of indices
// for several of several.
const FIELD_CLASS = "mcp-widgets-field";

function pad(number, size) {
  return String(number).padStart(size || 2, "0");
}

// An ISO instant as a datetime-local input's value, in the browser's time zone (seconds kept).
function localOf(iso) {
  if (!iso) return "";
  const at = new Date(iso);
  if (isNaN(at.getTime())) return "";
  const day = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
  const ms = at.getMilliseconds() ? "." + pad(at.getMilliseconds(), 3) : "";
  return `${day}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}${ms}`;
}

// A datetime-local input's value (the browser's time zone) as an ISO instant; "" when empty or unfinished.
function instantOf(local) {
  if (!local) return "";
  const at = new Date(local);
  return isNaN(at.getTime()) ? "" : at.toISOString();
}

function renderFields(container, rows, options) {
  const { uid, titleWidth, onEdit } = options;
  const fields = new Map();  // name -> {set, verdict, row}
  const named = rows.filter((row) => row.widget !== "problem");
  let place = 0;
  for (const spec of rows) {
    if (spec.widget === "problem") {
      container.appendChild(node("div", "mcp-widgets-problem mcp-widgets-error", spec.note));
      continue;
    }
    const index = place++;
    const id = `${uid}-${index}`;
    const row = node("div", FIELD_CLASS);
    row.dataset.field = String(index);
    if (index === 0) row.classList.add("mcp-widgets-first");
    if (index === named.length - 1) row.classList.add("mcp-widgets-last");
    const group = ["radio", "checks"].includes(spec.widget);
    const title = node(group ? "div" : "label", "mcp-widgets-title", spec.widget === "checkbox" ? "" : spec.title);
    title.id = `${id}-title`;
    if (!group && spec.widget !== "checkbox") title.htmlFor = id;
    if (titleWidth) title.style.width = titleWidth;
    const body = node("div", "mcp-widgets-body");
    const note = node("div", "mcp-widgets-note", spec.note || "");
    note.id = `${id}-note`;
    if (!spec.note) note.hidden = true;
    const verdict = node("div", "mcp-widgets-verdict mcp-widgets-error");
    verdict.id = `${id}-verdict`;
    verdict.hidden = true;
    const edit = (value) => onEdit(spec.name, value);
    const made = makeControl(spec, id, edit);
    made.control.title = spec.tooltip || "";
    const describe = (el) => el.setAttribute("aria-describedby", `${note.id} ${verdict.id}`);
    for (const input of made.inputs) describe(input);
    if (group) made.control.setAttribute("aria-labelledby", title.id);
    body.append(made.control, note, verdict);
    row.append(title, body);
    container.appendChild(row);
    made.set(spec.value);
    fields.set(spec.name, {
      row,
      set: made.set,
      verdict(text) {
        verdict.textContent = text || "";
        verdict.hidden = !text;
        row.classList.toggle("mcp-widgets-invalid", Boolean(text));
      },
    });
  }
  return {
    set(name, value) {
      const field = fields.get(name);
      if (field) field.set(value);
    },
    verdicts(map) {
      for (const [name, field] of fields) field.verdict((map || {})[name] || "");
    },
  };
}

// One control of a field: its element, its inputs (for aria), and `set(value)` (shows a value, no edit).
function makeControl(spec, id, edit) {
  const input = (type, cls) => {
    const el = node("input", cls || "mcp-widgets-input");
    el.type = type;
    return el;
  };
  switch (spec.widget) {
    case "checkbox": {
      const control = node("label", "mcp-widgets-check");
      const box = input("checkbox", "");
      box.id = id;
      control.append(box, node("span", "", spec.title));
      box.addEventListener("change", () => edit(box.checked));
      return { control, inputs: [box], set: (v) => { box.checked = Boolean(v); } };
    }
    case "radio":
    case "checks": {
      const multi = spec.widget === "checks";
      const control = node("div", "mcp-widgets-choices");
      control.setAttribute("role", multi ? "group" : "radiogroup");
      const inputs = (spec.options || []).map((text, i) => {
        const option = node("label", "mcp-widgets-option");
        const el = input(multi ? "checkbox" : "radio", "");
        el.name = `${id}-options`;
        el.value = String(i);
        option.append(el, node("span", "", text));
        control.appendChild(option);
        return el;
      });
      const read = () => multi
        ? inputs.flatMap((el, i) => (el.checked ? [i] : []))
        : (inputs.findIndex((el) => el.checked) >= 0 ? inputs.findIndex((el) => el.checked) : null);
      for (const el of inputs) el.addEventListener("change", () => edit(read()));
      const set = (v) => {
        const chosen = multi ? new Set(v || []) : new Set(v === null || v === undefined ? [] : [v]);
        inputs.forEach((el, i) => { el.checked = chosen.has(i); });
      };
      return { control, inputs, set };
    }
    case "select":
    case "list": {
      const multi = spec.widget === "list";
      const control = node("select", "mcp-widgets-input");
      control.id = id;
      if (multi) {
        control.multiple = true;
        control.size = spec.rows || 4;
      }
      (spec.options || []).forEach((text, i) => {
        const option = node("option", "", text);
        option.value = String(i);
        control.appendChild(option);
      });
      const read = () => multi
        ? Array.from(control.options).flatMap((o, i) => (o.selected ? [i] : []))
        : (control.selectedIndex >= 0 ? control.selectedIndex : null);
      control.addEventListener("change", () => edit(read()));
      const set = (v) => {
        if (multi) {
          const chosen = new Set(v || []);
          Array.from(control.options).forEach((o, i) => { o.selected = chosen.has(i); });
        } else control.selectedIndex = v === null || v === undefined ? -1 : v;
      };
      return { control, inputs: [control], set };
    }
    case "date": {
      const el = input("date");
      el.id = id;
      el.addEventListener("input", () => edit(el.value));
      return { control: el, inputs: [el], set: (v) => { el.value = v || ""; } };
    }
    case "datetime": {
      const el = input("datetime-local");
      el.id = id;
      el.step = "1";
      el.addEventListener("input", () => edit(instantOf(el.value)));
      return { control: el, inputs: [el], set: (v) => { el.value = localOf(v); } };
    }
    default: {
      // A password (an inputs card's secret) is a password field; what is typed goes only to `onEdit`.
      const el = input(spec.widget === "password" ? "password" : "text");
      el.id = id;
      el.autocomplete = "off";
      el.spellcheck = false;
      if (spec.widget === "number") el.inputMode = "decimal";
      if (spec.placeholder) el.placeholder = spec.placeholder;
      el.addEventListener("input", () => edit(el.value));
      return { control: el, inputs: [el], set: (v) => { el.value = v === null || v === undefined ? "" : String(v); } };
    }
  }
}
