// The `profile` step: full name and date of birth, checked here and then by the server.
import { call, stepPath } from "./api.js";
import { errorLine, h, setMessage } from "./dom.js";
import { fieldMessageFor, messageFor } from "./messages.js";
import { strings } from "./strings.js";
import { checkDateOfBirth, checkName, oldestAllowed, today } from "./validation.js";

/** A labelled input with its own error line. */
function field(name, label, properties) {
  const id = `profile-${name}`;
  const error = errorLine();
  error.id = `${id}-error`;
  const input = h("input", { id, name, required: true, "aria-describedby": error.id, ...properties });
  const wrap = h("div", {}, h("label", { htmlFor: id }, label), input, error);
  const setError = (text) => {
    setMessage(error, text);
    if (text) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  };
  return { wrap, input, setError };
}

/** True when there are no problems to show. */
function validate(fields) {
  const problems = {
    full_name: checkName(fields.full_name.input.value),
    date_of_birth: checkDateOfBirth(fields.date_of_birth.input.value),
  };
  for (const [name, key] of Object.entries(problems)) fields[name].setError(key ? strings.profile[key] : "");
  const first = Object.keys(problems).find((name) => problems[name]);
  if (first) fields[first].input.focus();
  return !first;
}

/** A refused save: the server's field errors, in the page's language, next to their fields,
 *  and the form's own line asking to correct them; else that line says what went wrong. */
function showFailure(fields, formError, result) {
  let marked = false;
  for (const error of result.errors) {
    const target = Object.prototype.hasOwnProperty.call(fields, error.field) ? fields[error.field] : null;
    if (!target) continue;
    target.setError(fieldMessageFor(error));
    marked = true;
  }
  setMessage(formError, marked ? strings.profile.fixErrors : messageFor(result));
  const invalid = Object.values(fields).find((f) => f.input.getAttribute("aria-invalid"));
  if (invalid) invalid.input.focus();
}

async function save(ctx, fields, formError, button) {
  button.disabled = true;
  const result = await call("POST", stepPath(ctx.step.id, "/profile"), {
    full_name: fields.full_name.input.value.trim(),
    date_of_birth: fields.date_of_birth.input.value,
  });
  button.disabled = false;
  if (ctx.settle(result)) return;
  showFailure(fields, formError, result);
}

export function renderProfile(ctx) {
  const text = strings.profile;
  const fields = {
    full_name: field("full_name", text.fullName, { type: "text", autocomplete: "name", autocapitalize: "words", spellcheck: false }),
    date_of_birth: field("date_of_birth", text.dateOfBirth, { type: "date", autocomplete: "bday", max: today(), min: oldestAllowed(today()) }),
  };
  const formError = errorLine();
  const button = h("button", { type: "submit", dataset: { testid: "confirm" } }, text.confirm);
  const form = h("form", { noValidate: true },
    h("p", {}, text.intro), fields.full_name.wrap, fields.date_of_birth.wrap, formError, button);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    setMessage(formError, "");
    if (validate(fields)) save(ctx, fields, formError, button);
  });
  return form;
}
