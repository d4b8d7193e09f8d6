// Presentation mode, for a projector: larger type, the first headline chart filling the screen
// and the first main controls beside it, everything else out of the way. It is a class on the
// document (html.presenting) and nothing else: the scenario's URL does not change. The
// "Projector view" button or the P key (not while typing in a field) toggles it; Escape leaves
// it. (A room's "Present" is another thing: it opens a live session.)

// wirePresent wires the toggle; charts is the page's Charts, told how tall the big chart is.
export function wirePresent(charts) {
  const root = document.documentElement;
  const button = document.getElementById("present-button");
  if (!button) return; // the chart-only embed view has no presentation mode
  const on = () => root.classList.contains("presenting");
  // fit gives the big chart the height left under its heading, once the layout has settled.
  const fit = () => {
    if (!on()) { charts.setFill(0); return; }
    const box = document.querySelector(".pinned .chart .plots");
    if (!box) return;
    charts.setFill(Math.max(240, Math.floor(innerHeight - box.getBoundingClientRect().top - 24)));
  };
  const set = (want) => {
    root.classList.toggle("presenting", want);
    button.setAttribute("aria-pressed", String(want));
    button.textContent = want ? "Exit projector view" : "Projector view";
    if (want) scrollTo(0, 0);
    requestAnimationFrame(fit);
  };
  button.addEventListener("click", () => set(!on()));
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
  // What sits above the chart (a tour's text, a room's bar, errors) may grow or shrink.
  const above = new ResizeObserver(() => { if (on()) requestAnimationFrame(fit); });
  for (const el of document.querySelectorAll("#session, #url-errors, .pinned .status, .pinned .chart-head")) above.observe(el);
}

// typing reports whether a key pressed at el goes into a field (a text box, a list, an
// editable region) rather than to the page.
function typing(el) {
  if (!(el instanceof Element)) return false;
  if (el.closest("textarea, select, [contenteditable]:not([contenteditable=false])")) return true;
  return el instanceof HTMLInputElement && !["range", "checkbox", "radio", "button", "submit", "reset"].includes(el.type);
}
