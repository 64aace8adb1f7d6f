// A tool form's invisible helper (FormStyle): flush probes, aria-invalid and named option groups, without the
// keyboard.
export default {
  render({ model, el }) {
    const id = model.get("form_id");
    const stop = answerFlushes(model, id ? model.widget_manager.get_model(id) : null);
    const unmark = inBox(el, markInvalid);
    const unname = inBox(el, (box) => nameGroups(box, id));
    return () => {
      unname();
      unmark();
      stop();
    };
  },
};
