// The controls: server-rendered inputs, one per parameter, that render from the state and
// turn what people do into setScenario calls; those a tour step changed are marked. Moving a slider changes the scenario as it
// moves; releasing it (the "change" event) ends the gesture, which makes a history entry.
import { paramValue } from "./format.js";
import { fromSlider, toSlider, applies, same } from "./params.js";

// keyPause is how long after a slider's last key press its key gesture ends (ms).
const keyPause = 1000;

export function wireControls(state, form) {
  const spec = state.spec;
  const byName = new Map(spec.params.map((p) => [p.name, p]));
  const $ = (sel) => form.querySelector(sel);
  // drag: a step of a slider's gesture (dragged, or stepped by keys held or pressed in a row).
  const user = (name, value, commit, drag = false) => state.setScenario({ [name]: value }, "user", { partial: true, moved: name, commit, drag });

  form.addEventListener("input", (e) => {
    const t = e.target;
    if (t.matches("input[type=range]")) {
      const p = state.params.get(t.dataset.for);
      user(p.name, fromSlider(spec, p, t.value), false, true);
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
  // Keys on a slider: presses in a row are one gesture, as a drag from press to release is —
  // one history entry, ended by a pause (keyPause) or by leaving the slider.
  let keyed = null; // {name, timer}: the slider whose key gesture is open
  let byKey = false; // the slider's last change came from a key
  const endKeys = () => {
    if (!keyed) return;
    clearTimeout(keyed.timer);
    const { name } = keyed;
    keyed = null;
    user(name, state.values[name], true);
  };
  form.addEventListener("keydown", (e) => { if (e.target.matches("input[type=range]")) byKey = true; });
  form.addEventListener("pointerdown", () => { byKey = false; endKeys(); });
  form.addEventListener("focusout", (e) => { if (e.target.matches("input[type=range]")) endKeys(); });
  form.addEventListener("change", (e) => {
    const t = e.target;
    if (t.matches("input.value")) user(t.name, t.value.trim(), true);
    else if (t.matches("input[type=range]")) {
      const p = state.params.get(t.dataset.for);
      if (byKey) {
        if (keyed && keyed.name !== p.name) endKeys();
        user(p.name, fromSlider(spec, p, t.value), false, true);
        if (keyed) clearTimeout(keyed.timer);
        keyed = { name: p.name, timer: setTimeout(endKeys, keyPause) };
        return;
      }
      user(p.name, fromSlider(spec, p, t.value), true);
    } else if (t.matches("input[type=checkbox], select")) {
      user(t.name, state.values[t.name], true);
    }
  });
  form.addEventListener("submit", (e) => e.preventDefault());
  form.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && e.target.matches("input.value")) { e.preventDefault(); user(e.target.name, e.target.value.trim(), true); }
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
      const err = ctl ? ctl.querySelector("p.error") : null; // in the form: a compare page has two
      // A problem of the opening link stays at its control until the person changes something.
      const fromURL = state.urlErrors.find((e) => e.param === p.name || (e.params || []).includes(p.name));
      const msg = state.errors[p.name] || (fromURL ? fromURL.error : "");
      if (err && err.textContent !== msg) err.textContent = msg;
      if (ctl) {
        offerFit(ctl, p, msg);
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
    groupHints(v);
    form.inert = state.view.following;
    form.classList.toggle("following", state.view.following);
    const urlBox = document.getElementById("url-errors");
    if (urlBox && !state.urlErrors.length) urlBox.replaceChildren();
  }
  // groupHints says, in a folded group's summary, which of its controls the scenario sets away
  // from their defaults ("Advanced — changed: Seed, Sweep of clients"), so that a shared link's
  // values in a closed group do not go unseen; a group at its defaults says nothing.
  function groupHints(v) {
    for (const d of form.querySelectorAll(":scope > details.group")) {
      const changed = [...d.querySelectorAll(".control[data-param]")].filter((c) => !c.hidden).map((c) => byName.get(c.dataset.param))
        .filter((p) => p && p.default !== undefined && !same(p, v[p.name], p.default)).map((p) => p.label);
      let hint = d.querySelector(":scope > summary > .group-changed");
      const text = changed.length ? ` — changed: ${changed.join(", ")}` : "";
      if (!hint && !text) continue;
      if (!hint) {
        hint = document.createElement("span");
        hint.className = "group-changed";
        d.querySelector(":scope > summary").append(hint);
      }
      if (hint.textContent !== text) hint.textContent = text;
    }
  }
  // offerFit offers, beside a control whose error is a refusal with a value that is admitted,
  // a button that sets it, the value written as the message and the control's box write it:
  // "Set Duration to 2m50s". It goes when the error does, and a follower of a room, who does not
  // drive, is offered nothing. Pressing it leaves the keyboard at the control's box.
  function offerFit(ctl, p, msg) {
    const fit = !state.view.following && state.fit && state.fit.param === p.name && state.fit.error === msg && msg ? state.fit.value : null;
    let b = ctl.querySelector("button.fit");
    if (!fit) {
      if (b) b.remove();
      return;
    }
    if (!b) {
      b = document.createElement("button");
      b.type = "button";
      b.className = "fit";
      b.addEventListener("click", () => {
        user(p.name, b.dataset.value, true);
        const box = ctl.querySelector(`input.value[name="${p.name}"]`);
        if (box && !box.closest("[hidden]")) box.focus();
      });
      ctl.querySelector("p.error").after(b);
    }
    b.dataset.value = fit;
    b.textContent = `Set ${p.label} to ${fit}`;
  }

  state.on("values", render);
  render();

  // A tour step shows what it changes: its controls are marked (until the next step) and the
  // folded groups that hold them open.
  state.on("step", (step) => {
    const moved = new Set(step ? step.moved : []);
    for (const ctl of form.querySelectorAll(".control")) {
      const on = moved.has(ctl.dataset.param);
      ctl.classList.toggle("moved", on);
      if (on) { const d = ctl.closest("details"); if (d) d.open = true; }
    }
  });
}
