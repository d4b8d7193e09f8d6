// Projector view, for a room's big screen: larger type, one chart or table filling the screen
// with a few controls beside it, everything else out of the way. What it shows is, in order:
// the chart or table whose "Project this" button was pressed last, else the focus of the tour
// step on show (lab.Step.Focus) with its controls (lab.Step.Controls), else the first headline
// chart with the first three main controls. It is a class on the document (html.presenting)
// and on the sections shown (.projected, .projected-control), nothing else: the scenario's URL
// does not change. The "Projector view" button or the P key (not while typing in a field)
// toggles it; Escape leaves it. (A room's "Present" is another thing: it opens a live session.)

// wirePresent wires the toggle and the "Project this" buttons; charts is the page's Charts,
// told which chart is projected and how tall it may be.
export function wirePresent(state, charts) {
  const root = document.documentElement;
  const button = document.getElementById("present-button");
  if (!button) return; // the chart-only embed view has no presentation mode
  const view = state.spec.view;
  const form = document.getElementById("controls");
  const on = () => root.classList.contains("presenting");
  let chosen = ""; // the section id of the last "Project this"
  let step = null; // the tour step on show

  // target is the id of the section to project.
  const target = () => {
    if (chosen) return chosen;
    const f = step && step.focus;
    if (f && document.getElementById("chart-" + f)) return "chart-" + f;
    if (f && document.getElementById("table-" + f)) return "table-" + f;
    return "chart-" + ((view.headline && view.headline[0]) || (view.charts[0] && view.charts[0].id));
  };
  // controlsShown names the parameters whose controls stay beside it.
  const controlsShown = () => {
    if (step && step.controls && step.controls.length) return step.controls;
    return [...form.querySelectorAll(":scope > .control:not([hidden])")].slice(0, 3).map((c) => c.dataset.param);
  };

  // fit gives a projected chart the height left under its heading, once the layout has settled.
  const fit = () => {
    const section = on() ? document.getElementById(target()) : null;
    const box = section && section.classList.contains("chart") ? section.querySelector(".plots") : null;
    if (!box) { charts.project("", 0); return; }
    // What sits under the plots (a note on the chart) stays on screen too.
    const below = section.getBoundingClientRect().bottom - box.getBoundingClientRect().bottom;
    charts.project(section.dataset.chart, Math.max(240, Math.floor(innerHeight - box.getBoundingClientRect().top - below - 16)));
  };
  // apply marks what is projected.
  const apply = () => {
    const id = on() ? target() : "";
    for (const el of document.querySelectorAll(".projected")) if (el.id !== id) el.classList.remove("projected");
    if (id) document.getElementById(id)?.classList.add("projected");
    const names = on() ? controlsShown() : [];
    for (const c of form.querySelectorAll(".control")) c.classList.toggle("projected-control", names.includes(c.dataset.param));
    if (on()) for (const d of form.querySelectorAll("details.group")) if (d.querySelector(".projected-control")) d.open = true;
    requestAnimationFrame(fit);
  };
  const set = (want) => {
    root.classList.toggle("presenting", want);
    button.setAttribute("aria-pressed", String(want));
    button.textContent = want ? "Exit projector view" : "Projector view";
    if (want) scrollTo(0, 0);
    apply();
  };
  button.addEventListener("click", () => { chosen = ""; set(!on()); });
  for (const b of document.querySelectorAll("button.project[data-project]")) {
    b.addEventListener("click", () => {
      chosen = b.dataset.project;
      set(true);
    });
  }
  // A new tour step projects its own focus.
  state.on("step", (s) => {
    step = s;
    chosen = "";
    if (on()) apply();
  });
  addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    if (e.key === "p" || e.key === "P") {
      e.preventDefault();
      set(!on());
    } else if (e.key === "Escape" && on()) {
      set(false);
    }
  });
  addEventListener("resize", () => { if (on()) requestAnimationFrame(fit); });
  // What sits above or under the chart (a tour's text, a room's bar, errors, a note) may grow
  // or shrink.
  const around = new ResizeObserver(() => { if (on()) requestAnimationFrame(fit); });
  for (const el of document.querySelectorAll("#session, #url-errors, .pinned .status, .chart-head, .chart-note")) around.observe(el);
}

// typing reports whether a key pressed at el goes into a field (a text box, a list, an
// editable region) rather than to the page.
function typing(el) {
  if (!(el instanceof Element)) return false;
  if (el.closest("textarea, select, [contenteditable]:not([contenteditable=false])")) return true;
  return el instanceof HTMLInputElement && !["range", "checkbox", "radio", "button", "submit", "reset"].includes(el.type);
}
