// Summary tables: a map of rows by name (in the order of the view's key parameter, each row
// marked with its series' colour and dash) or a list of rows. The lab page and the compare
// view fill them with fillRows. Columns come in their declared order, the decisive first; on
// the lab page a table too wide for its place takes the width of both headline columns, its
// row names stay put while it scrolls sideways, and a table that still does not fit says
// which columns lie beyond the edge, with a button that scrolls to them (fitTables).
import { group, duration, percent, labeller } from "./format.js";
import { emptyNote } from "./render.js";

// cell writes a column's value by its unit (lab.Unit): durations in their largest unit,
// percentages never rounded onto 0 or ±100, bytes with "B".
export function cell(c, v) {
  if (typeof v !== "number") return v ?? "";
  if (c.unit === "ms") return duration(v);
  if (c.unit === "%") return percent(v, c.digits);
  return group(v, c.digits) + (c.unit ? " " + c.unit : "");
}

// fillRows writes summary entry data into a table body as table t declares it; keyOptions
// order a map table's rows, style marks them, and label writes an option's name for people
// (a row's name, a subsetting: format.js labeller).
export function fillRows(body, t, data, keyOptions, style, label = (name) => name) {
  let rows = [];
  if (data !== undefined && t.rows === "map") {
    const rank = (k) => (keyOptions.indexOf(k) < 0 ? keyOptions.length : keyOptions.indexOf(k));
    rows = Object.keys(data).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0)).map((k) => ({ "": k, ...data[k] }));
  } else if (data !== undefined) rows = data;
  const text = (c, v) => (typeof v === "string" ? label(v) : cell(c, v));
  // Rows of the same names as those shown (every refinement of a run): their cells' text is
  // updated in place, so that the table is not built and laid out afresh many times a second.
  const trs = body.rows;
  if (trs.length === rows.length && rows.length > 0 && rows.every((r, i) => trs[i].cells.length === t.columns.length &&
    trs[i].cells[0].textContent === String(text(t.columns[0], r[t.columns[0].field])))) {
    rows.forEach((r, i) => t.columns.forEach((c, j) => {
      const td = trs[i].cells[j];
      if (j === 0) { // the name: the same, its swatch in the theme's colours
        const sw = td.querySelector(".swatch");
        if (sw) markSwatch(sw, style({ label: r[c.field] }));
        return;
      }
      const v = String(text(c, r[c.field]));
      if (td.textContent !== v) td.textContent = v;
    }));
    return;
  }
  body.replaceChildren(...rows.map((r) => {
    const tr = document.createElement("tr");
    for (const c of t.columns) {
      const td = document.createElement(c.field === "" ? "th" : "td");
      const v = r[c.field];
      td.textContent = text(c, v);
      if (c.field === "" && t.rows === "map") {
        td.scope = "row";
        const sw = document.createElement("span");
        sw.className = "swatch";
        sw.setAttribute("aria-hidden", "true");
        markSwatch(sw, style({ label: v }));
        td.prepend(sw);
      }
      tr.append(td);
    }
    return tr;
  }));
}

// markSwatch gives a row's swatch its series' colour and dash (s: palette style).
function markSwatch(sw, s) {
  const line = s.dash.length ? (s.dash[0] <= 2 ? "dotted" : "dashed") : "solid";
  if (sw.dataset.mark === s.colour + " " + line) return; // (the style reads back as rgb())
  sw.dataset.mark = s.colour + " " + line;
  sw.style.borderTopColor = s.colour;
  sw.style.borderTopStyle = line;
}

// renderTable fills the lab page's table t from the results on show.
export function renderTable(state, results, style, t) {
  const body = document.querySelector(`#table-${t.id} tbody`);
  if (!body) return;
  const key = state.params.get(state.spec.view.key);
  fillRows(body, t, results.summary[t.key], key ? key.options : [], style, labeller(state.spec));
  // Final numbers without a row: a note saying why, not a table of headers.
  const settled = state.run.phase === "done" && !state.stale();
  if (settled || body.rows.length) emptyNote(document.getElementById(`table-${t.id}`), t.empty, settled && !body.rows.length);
}

// fitTables keeps the lab page's tables readable at any width: a headline table wider than its
// column spans the headline's columns (class "wide"), and while a table's box hides columns
// to the right, its "More columns →" cue names them and scrolls to them, and its right edge
// fades out (class "overflows").
export function fitTables() {
  const sections = [...document.querySelectorAll("#lab .table")];
  const fit = () => {
    const pinned = document.querySelector(".headline > .pinned");
    for (const sec of sections) {
      const box = sec.querySelector(".scroll");
      const table = box && box.querySelector("table");
      if (!table) continue;
      // The table's own width against the first headline column's: wider, it spans both.
      if (sec.parentElement?.classList.contains("headline") && pinned) {
        const wide = table.offsetWidth > pinned.clientWidth + 1;
        if (sec.classList.contains("wide") !== wide) sec.classList.toggle("wide", wide);
      }
      cue(sec, box);
    }
  };
  const cue = (sec, box) => {
    const note = sec.querySelector(".more-columns");
    if (!note) return;
    const edge = box.getBoundingClientRect().right;
    const hidden = [...box.querySelectorAll("thead th")].filter((th) => th.getBoundingClientRect().right > edge + 1).map((th) => th.textContent.trim());
    const names = hidden.length ? `${hidden.length} more: ${hidden.join(", ")}` : "";
    const span = note.querySelector(".more-columns-names");
    if (span.textContent !== names) span.textContent = names;
    if (note.hidden !== !hidden.length) note.hidden = !hidden.length;
    // The edge a column is cut at fades out, so that a part of one reads as more to come.
    if (sec.classList.contains("overflows") !== hidden.length > 0) sec.classList.toggle("overflows", hidden.length > 0);
  };
  const observer = new ResizeObserver(() => requestAnimationFrame(fit));
  for (const sec of sections) {
    const box = sec.querySelector(".scroll");
    if (!box) continue;
    observer.observe(box);
    observer.observe(box.querySelector("table"));
    box.addEventListener("scroll", () => cue(sec, box), { passive: true });
    sec.querySelector(".more-columns-go")?.addEventListener("click", () => box.scrollBy(box.clientWidth * 0.8, 0));
  }
  const pinned = document.querySelector(".headline > .pinned");
  if (pinned) {
    observer.observe(pinned);
    // On a phone the first headline chart stays pinned at the top while the page scrolls, but
    // only while it takes at most half the screen: a taller one (the rate limiter's eight
    // panels) would cover the tables and their cues below it, so it scrolls with the page.
    const unpin = () => {
      const tall = pinned.offsetHeight > innerHeight / 2;
      if (pinned.classList.contains("unpinned") !== tall) pinned.classList.toggle("unpinned", tall);
    };
    new ResizeObserver(unpin).observe(pinned);
    addEventListener("resize", unpin);
  }
}
