// The controls: server-rendered inputs, one per parameter, that render from the state and
// turn what people do into setScenario calls. Moving a slider changes the scenario as it
// moves; releasing it (the "change" event) ends the gesture, which makes a history entry.
import { parseDuration, goDuration, paramValue } from "./format.js";

export function fromSlider(spec, p, pos) {
  let v = Number(pos);
  if (p.log) v = Number((p.min * Math.pow(p.max / p.min, v / spec.log_steps)).toPrecision(3));
  v = Math.min(p.max, Math.max(p.min, v));
  if (p.kind === "duration") return goDuration(v);
  if (p.kind === "int") return String(Math.round(v));
  const d = p.step && p.step < 1 ? Math.min(6, Math.ceil(-Math.log10(p.step))) : 0;
  return String(Number(v.toFixed(d)));
}

// applies tells whether a parameter's condition (param.When) holds for values v: the other
// parameter has, or for a list contains, one of w.values; or, with w.min, it is at least w.min
// (durations compared in milliseconds, the unit of their declarations).
export function applies(spec, w, v) {
  const raw = String(v[w.param] ?? "");
  if (w.min != null) {
    const other = spec.params.find((q) => q.name === w.param);
    const x = other && other.kind === "duration" ? parseDuration(raw) : Number(raw);
    return isFinite(x) && x >= w.min;
  }
  const have = raw.split(",");
  return (w.values || []).some((x) => have.includes(x));
}

export function toSlider(spec, p, text) {
  const v = p.kind === "duration" ? parseDuration(text) : Number(text);
  if (!isFinite(v)) return null;
  if (p.log) return Math.round((spec.log_steps * Math.log(Math.max(v, p.min) / p.min)) / Math.log(p.max / p.min));
  return v;
}

export function wireControls(state, form) {
  const spec = state.spec;
  const $ = (sel) => form.querySelector(sel);
  const user = (name, value, commit) => state.setScenario({ [name]: value }, "user", { partial: true, moved: name, commit });

  form.addEventListener("input", (e) => {
    const t = e.target;
    if (t.matches("input[type=range]")) {
      const p = state.params.get(t.dataset.for);
      user(p.name, fromSlider(spec, p, t.value), false);
    } else if (t.matches("input[type=checkbox]")) {
      const p = state.params.get(t.name);
      if (p.kind === "enum_list") {
        const on = [...form.querySelectorAll(`input[type=checkbox][name="${p.name}"]`)].filter((c) => c.checked).map((c) => c.value);
        user(p.name, on.join(","), false);
      } else user(p.name, String(t.checked), false);
    } else if (t.matches("select")) {
      user(t.name, t.value, false);
    }
  });
  form.addEventListener("change", (e) => {
    const t = e.target;
    if (t.matches("input.value")) user(t.name, t.value, true);
    else if (t.matches("input[type=range]")) {
      const p = state.params.get(t.dataset.for);
      user(p.name, fromSlider(spec, p, t.value), true);
    } else if (t.matches("input[type=checkbox], select")) {
      user(t.name, state.values[t.name], true);
    }
  });
  form.addEventListener("submit", (e) => e.preventDefault());
  form.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && e.target.matches("input.value")) { e.preventDefault(); user(e.target.name, e.target.value, true); }
  });
  for (const b of form.querySelectorAll("button.reroll")) {
    b.addEventListener("click", () => user(b.dataset.for, String(Math.floor(Math.random() * 1e9)), true));
  }

  function render() {
    const v = state.values;
    for (const p of spec.params) {
      const val = v[p.name];
      if (p.kind === "enum_list") {
        const on = new Set(String(val).split(","));
        for (const c of form.querySelectorAll(`input[type=checkbox][name="${p.name}"]`)) c.checked = on.has(c.value);
      } else if (p.kind === "bool") {
        const c = $(`[name="${p.name}"]`);
        if (c) c.checked = val === "true";
      } else {
        const box = $(`[name="${p.name}"]`);
        if (box && box !== document.activeElement && box.value !== val) box.value = val;
        else if (box && box.value !== val && state.source !== "user") box.value = val;
        const slider = $(`input[type=range][data-for="${p.name}"]`);
        if (slider) {
          const pos = toSlider(spec, p, val);
          if (pos !== null && slider !== document.activeElement) slider.value = pos;
          else if (pos !== null && Math.abs(Number(slider.value) - pos) > 1e-9 && state.source !== "user") slider.value = pos;
          slider.setAttribute("aria-valuetext", paramValue(p, state.errors[p.name] ? state.scenario[p.name] : val));
        }
      }
      const ctl = form.querySelector(`.control[data-param="${p.name}"]`);
      const err = document.getElementById("err-" + p.name);
      // A problem of the opening link stays at its control until the person changes something.
      const fromURL = state.urlErrors.find((e) => e.param === p.name);
      const msg = state.errors[p.name] || (fromURL ? fromURL.error : "");
      if (err && err.textContent !== msg) err.textContent = msg;
      if (ctl) {
        const bad = !!(err && err.textContent);
        ctl.classList.toggle("invalid", bad);
        for (const i of ctl.querySelectorAll("input, select")) {
          if (bad) i.setAttribute("aria-invalid", "true");
          else i.removeAttribute("aria-invalid");
        }
        if (bad) { const d = ctl.closest("details"); if (d) d.open = true; }
        if (p.applies) ctl.hidden = !applies(spec, p.applies, v);
      }
    }
    form.inert = state.view.following;
    form.classList.toggle("following", state.view.following);
    const urlBox = document.getElementById("url-errors");
    if (urlBox && !state.urlErrors.length) urlBox.replaceChildren();
  }
  state.on("values", render);
  render();
}
