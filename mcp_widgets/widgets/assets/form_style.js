// A tool form's invisible helper (FormStyle): flush probes and aria-invalid, without the keyboard.
export default {
  render({ model, el }) {
    const id = model.get("form_id");
    const stop = answerFlushes(model, id ? model.widget_manager.get_model(id) : null);
    const unmark = inBox(el, markInvalid);
    return () => {
      unmark();
      stop();
    };
  },
};
