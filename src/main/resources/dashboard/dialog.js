// The one confirmation dialog of the page: every action asks before it calls the admin API. A <dialog> in the page
// rather than window.confirm, so that it can hold the fields an action needs (a weight, a key, a tenant's limits),
// a provider key can be typed into a password field, and nothing of it stays in the page once it is closed.

import { $, el } from "./api.js";

/**
 * Shows the dialog; resolves to the fields' values ({} when there are none) once confirmed, to null when cancelled.
 * fields: [{name, label, type, value, placeholder, required}]
 */
export function ask(title, message, fields, confirmLabel) {
  const dialog = $("dialog");
  $("dialog-title").textContent = title;
  $("dialog-message").textContent = message;
  $("dialog-confirm").textContent = confirmLabel || "Confirm";
  $("dialog-fields").replaceChildren(...(fields || []).map((f) => el("label", {},
    el("span", {}, f.label),
    el("input", { id: "field-" + f.name, name: f.name, type: f.type || "text", value: f.value, placeholder: f.placeholder,
                  required: !!f.required, autocomplete: "off", step: f.type === "number" ? "any" : null }))));
  dialog.returnValue = "";
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      let values = null;
      if (dialog.returnValue === "ok") {
        values = {};
        (fields || []).forEach((f) => { values[f.name] = $("field-" + f.name).value.trim(); });
      }
      $("dialog-fields").replaceChildren();
      resolve(values);
    }, { once: true });
    dialog.showModal();
    const first = dialog.querySelector("input");
    if (first) first.focus();
  });
}
