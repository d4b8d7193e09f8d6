// The status line, the progress bar and the honesty of the picture: when the numbers on show
// belong to other values than those asked for, the results say so and say which; headings
// name the values of the numbers under them.
import { group, duration } from "./format.js";
import { fillTitle } from "./titles.js";

// amount writes a refinement count with its unit: "30 of 100 trials"; a unit of simulated
// time ("ms simulated") is written as a duration: "10 s of 30 s simulated".
function amount(n, unit, bare = false) {
  const m = /^ms\b\s*(.*)$/.exec(unit || "");
  if (m) return duration(n) + (bare || !m[1] ? "" : " " + m[1]);
  // A unit written as a plural word (trials) is singular for one ("1 trial", not "1 trials").
  const word = n === 1 && /^[a-z]{3,}s\b/.test(unit || "") ? unit.replace(/^([a-z]+?)s\b/, "$1") : unit;
  return group(n) + (bare ? "" : " " + word);
}

export function wireStatus(state) {
  const statusEl = document.getElementById("status");
  const announceEl = document.getElementById("announce");
  const progressEl = document.getElementById("progress");
  const staleEl = document.getElementById("stale");
  const root = document.getElementById("lab");

  function render() {
    const run = state.run;
    const errs = Object.keys(state.errors);
    const diff = state.stale();
    let text = "", frac = 0;
    const refine = run.refine;
    // The server's error (a refusal, a stop) is on show unless the person has since typed a
    // value the page cannot send: then the controls' own errors are.
    const serverErr = run.phase === "error" && (!errs.length || errs.some((n) => state.errors[n] === run.message));
    if (errs.length && !serverErr) {
      text = `Not run: fix ${errs.map((n) => state.params.get(n).label).join(", ")}.`;
    } else if (run.phase === "error") {
      text = (run.stopped ? "Stopped: " : "Not run: ") + run.message;
    } else if (run.phase === "connecting") {
      text = "Connecting…";
    } else if (run.phase === "idle") {
      text = "Paused while idle — move a control to resume.";
    } else if (run.phase === "lost" || run.phase === "busy") {
      text = run.message;
    } else if (run.phase === "done") {
      text = `Done in ${group(Math.round(run.ms))} ms` + (refine ? ` — final, ${refine.total === 1 ? "from" : "over all"} ${amount(refine.total, refine.unit)}.` : " — final.");
      frac = 1;
    } else {
      if (refine) {
        frac = refine.total ? refine.done / refine.total : 0;
        text = `Refining: ${amount(refine.done, refine.unit, true)} of ${amount(refine.total, refine.unit)}…`;
      } else if (run.progress && run.progress.total) {
        frac = run.progress.done / run.progress.total;
        text = `Computing… ${Math.round(100 * frac)}%`;
      } else text = "Computing…";
    }
    if (statusEl.textContent !== text) statusEl.textContent = text;
    // Screen readers hear the milestones (final, refused, invalid), not every refinement step.
    const milestone = run.phase === "done" || run.phase === "error" || errs.length || run.phase === "lost" || run.phase === "idle";
    if (announceEl && milestone && announceEl.textContent !== text) announceEl.textContent = text;
    progressEl.value = frac;
    let valueText = `${Math.round(100 * frac)}%`;
    if (run.phase === "done") valueText = "final";
    else if (serverErr) valueText = run.stopped ? "stopped" : "not run";
    else if (errs.length) valueText = "not run";
    else if (refine) valueText = `${amount(refine.done, refine.unit, true)} of ${amount(refine.total, refine.unit)}`;
    progressEl.setAttribute("aria-valuetext", valueText);

    // Stale: the picture is of other values than those asked for, or of a run of these values
    // stopped partway (its numbers are partial).
    const picture = run.picture;
    const vals = picture ? pictureValues(state, picture) : state.scenario; // the values of the numbers shown
    const partial = !!picture && run.partial === picture; // of a run stopped partway
    const stale = !!(diff && picture) || partial;
    root.classList.toggle("stale", stale);
    if (partial && !diff) {
      const text = "Partial numbers: the run of these values was stopped before it finished";
      if (staleEl.textContent !== text) staleEl.textContent = text;
    } else if (stale) {
      const shown = diff.map((n) => state.label(n, vals)).join(", ") + (partial ? " (partial: its run was stopped)" : "");
      const want = diff.map((n) => state.label(n, state.scenario)).join(", ");
      // A server's error is a refusal (or a stop); the page's own, a value it cannot send.
      let busy = "computing";
      if (serverErr) busy = run.stopped ? "stopped" : "refused";
      else if (errs.length) busy = "not run (invalid value)";
      const text = `Showing ${shown} — ${busy} ${want}`;
      if (staleEl.textContent !== text) staleEl.textContent = text;
    } else if (staleEl.textContent) staleEl.textContent = "";
    if (staleEl.hidden !== !stale) staleEl.hidden = !stale;

    // Headings name the values of the numbers shown: "At N = {clients}".
    for (const el of document.querySelectorAll("[data-title]")) {
      const t = fillTitle(el.dataset.title, state.params, vals);
      if (el.textContent !== t) el.textContent = t;
    }
  }
  state.on("run", render);
  state.on("values", render);
  render();
}

// pictureValues returns the picture's params in URL form.
export function pictureValues(state, picture) {
  const out = {};
  for (const p of state.spec.params) {
    const v = picture[p.name];
    out[p.name] = v === undefined ? p.default : Array.isArray(v) ? v.join(",") : String(v);
  }
  return out;
}
