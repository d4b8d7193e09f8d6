// Summary tables: a map of rows by name (in the order of the view's key parameter, each row
// marked with its series' colour and dash) or a list of rows. The lab page and the compare
// view fill them with fillRows.
import { group, duration, percent } from "./format.js";

// cell writes a column's value by its unit (lab.Unit): durations in their largest unit,
// percentages never rounded onto 0 or ±100, bytes with "B".
export function cell(c, v) {
  if (typeof v !== "number") return v ?? "";
  if (c.unit === "ms") return duration(v, 4);
  if (c.unit === "%") return percent(v, c.digits);
  return group(v, c.digits) + (c.unit ? " " + c.unit : "");
}

// fillRows writes summary entry data into a table body as table t declares it; keyOptions
// order a map table's rows, style marks them.
export function fillRows(body, t, data, keyOptions, style) {
  let rows = [];
  if (data !== undefined && t.rows === "map") {
    const rank = (k) => (keyOptions.indexOf(k) < 0 ? keyOptions.length : keyOptions.indexOf(k));
    rows = Object.keys(data).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0)).map((k) => ({ "": k, ...data[k] }));
  } else if (data !== undefined) rows = data;
  body.replaceChildren(...rows.map((r) => {
    const tr = document.createElement("tr");
    for (const c of t.columns) {
      const td = document.createElement(c.field === "" ? "th" : "td");
      const v = r[c.field];
      td.textContent = cell(c, v);
      if (c.field === "" && t.rows === "map") {
        td.scope = "row";
        const s = style({ label: v });
        const sw = document.createElement("span");
        sw.className = "swatch";
        sw.setAttribute("aria-hidden", "true");
        sw.style.borderTopColor = s.colour;
        sw.style.borderTopStyle = s.dash.length ? (s.dash[0] <= 2 ? "dotted" : "dashed") : "solid";
        td.prepend(sw);
      }
      tr.append(td);
    }
    return tr;
  }));
}

// renderTable fills the lab page's table t from the results on show.
export function renderTable(state, results, style, t) {
  const body = document.querySelector(`#table-${t.id} tbody`);
  if (!body) return;
  const key = state.params.get(state.spec.view.key);
  fillRows(body, t, results.summary[t.key], key ? key.options : [], style);
}
