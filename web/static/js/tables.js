// Summary tables: a map of rows by name (in the order of the view's key parameter, each row
// marked with its series' colour and dash) or a list of rows.
import { group, duration, percent } from "./format.js";

export function cell(c, v) {
  if (typeof v !== "number") return v ?? "";
  if (c.unit === "ms") return duration(v, 4);
  if (c.unit === "%") return percent(v, c.digits);
  return group(v, c.digits) + (c.unit ? " " + c.unit : "");
}

export function renderTable(state, results, style, t) {
  const body = document.querySelector(`#table-${t.id} tbody`);
  if (!body) return;
  const data = results.summary[t.key];
  let rows;
  if (data === undefined) rows = [];
  else if (t.rows === "map") {
    const key = state.params.get(state.spec.view.key);
    const order = key ? key.options : [];
    const rank = (k) => (order.indexOf(k) < 0 ? order.length : order.indexOf(k));
    rows = Object.keys(data).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0)).map((k) => ({ "": k, ...data[k] }));
  } else rows = data;
  body.replaceChildren(...rows.map((r) => {
    const tr = document.createElement("tr");
    for (const c of t.columns) {
      const td = document.createElement(c.field === "" ? "th" : "td");
      const v = r[c.field];
      td.textContent = cell(c, v);
      if (c.field === "" && t.rows === "map") {
        td.scope = "row";
        const s = style(v);
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
