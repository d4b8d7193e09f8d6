// The compare view (/compare?a=…&b=…): two scenarios of one lab, fetched from the JSON API.
// Line charts draw both on one set of axes, A solid and B dashed, each series in its usual
// colour; histograms and small multiples draw A and B as panels side by side on shared axes.
// The summary tables of A and B sit next to each other. window.__compare is for the browser
// tests.
import uPlot from "../vendor/uPlot.esm.js";
import { styler, ink, isDark } from "./palette.js";
import { cell } from "./tables.js";
import { duration, durationUnit, number, sig } from "./format.js";
import { formatParam } from "./state.js";
import { timeFactor } from "./charts.js";

const FONT = '14px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const LABEL_FONT = 'bold 14px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const B_DASH = [7, 4];
const GREY = ["#5f5f5f", "#a3a3a3"];

const spec = JSON.parse(document.getElementById("compare-spec").textContent);
const status = document.getElementById("compare-status");
const key = spec.params.find((p) => p.name === spec.view.key);
const style = styler(key ? key.options : []);
const probe = (window.__compare = { ready: false, error: "", plots: [], a: null, b: null });

async function load(url, side) {
  const r = await fetch(url);
  const body = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw new Error(`Scenario ${side}: ${body.error || "HTTP " + r.status}`);
  return body;
}

try {
  const [a, b] = await Promise.all([load(status.dataset.a, "A"), load(status.dataset.b, "B")]);
  probe.a = a;
  probe.b = b;
  draw(a, b);
  status.textContent = "A (solid) and B (dashed), final.";
  probe.ready = true;
} catch (err) {
  status.textContent = err.message;
  status.classList.add("error");
  probe.error = err.message;
}

function draw(a, b) {
  for (const chart of spec.view.charts) drawChart(chart, a, b);
  for (const t of spec.view.tables) {
    for (const [side, res] of [["A", a], ["B", b]]) {
      const body = document.querySelector(`#table-${CSS.escape(t.id)} tbody[data-side="${side}"]`);
      if (body) fillTable(body, t, res.summary[t.key]);
    }
  }
  // Titles name the values of both scenarios ("At N = 30 (A), 50 (B)").
  for (const h of document.querySelectorAll("#compare h2[data-title]")) {
    h.textContent = h.dataset.title.replace(/\{(\w+)\}/g, (m, name) => {
      const p = spec.params.find((q) => q.name === name);
      if (!p) return m;
      const va = formatParam(p, a.params[name]), vb = formatParam(p, b.params[name]);
      return va === vb ? va : `${va} (A), ${vb} (B)`;
    });
  }
}

function seriesOf(res, chart) { return res.series.filter((s) => s.chart === chart.id && !s.of); }

function colourOf(s) {
  if (s.tone) return GREY[isDark() ? 1 : 0];
  return style(s.label || s.name).colour;
}

function drawChart(chart, a, b) {
  const section = document.getElementById(`chart-${chart.id}`);
  const box = section?.querySelector(".plots");
  if (!box) return;
  const sa = seriesOf(a, chart), sb = seriesOf(b, chart);
  const bars = chart.kind === "bars";
  const range = extent([...sa, ...sb], bars, chart);
  legend(section, [...sa, ...sb], bars);
  if (!bars && !chart.split) {
    const list = [...sa.map((s) => ({ s, side: "A" })), ...sb.map((s) => ({ s, side: "B" }))];
    const holder = cellDiv(box, "");
    plot(holder, Math.max(260, box.clientWidth), 280, chart, list, range, false, true);
    return;
  }
  // Side-by-side panels: a row per group (small multiples) or one row, A left and B right.
  box.classList.add("cmp-grid");
  const groupOf = (s) => (chart.split ? s.group || s.label || s.name : "");
  const groups = [...new Set([...sa, ...sb].filter((s) => s.group !== "*").map(groupOf))];
  groups.sort((x, y) => style(x).index - style(y).index);
  const width = Math.max(200, Math.floor((box.clientWidth - 16) / 2));
  const head = document.createElement("div");
  head.className = "cmp-head";
  head.innerHTML = "<span>A</span><span>B</span>";
  box.append(head);
  groups.forEach((g, i) => {
    for (const [side, list] of [["A", sa], ["B", sb]]) {
      const mine = list.filter((s) => groupOf(s) === g || s.group === "*").map((s) => ({ s, side }));
      const holder = cellDiv(box, chart.split ? `${side}: ${g}` : "");
      plot(holder, width, chart.split ? 150 : 260, chart, mine, range, bars, i === groups.length - 1 || !chart.split);
    }
  });
}

function cellDiv(box, title) {
  const holder = document.createElement("div");
  holder.className = "plot";
  if (title) {
    const p = document.createElement("p");
    p.className = "panel-title";
    p.textContent = title;
    holder.append(p);
  }
  box.append(holder);
  return holder;
}

function legend(section, series, bars) {
  const el = section.querySelector(".legend");
  const seen = new Map();
  for (const s of series) if (!seen.has(s.label || s.name)) seen.set(s.label || s.name, s);
  const items = [...seen.values()].map((s) => {
    const li = document.createElement("li");
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.setAttribute("aria-hidden", "true");
    sw.style.borderTopColor = colourOf(s);
    li.append(sw, s.label || s.name);
    return li;
  });
  if (!bars && !section.classList.contains("split")) {
    const li = document.createElement("li");
    li.className = "cmp-key";
    li.textContent = "A solid, B dashed";
    items.push(li);
  }
  el.replaceChildren(...items);
}

function plot(holder, width, height, chart, list, range, bars, xAxis) {
  const xs = [...new Set(list.flatMap((m) => m.s.x))].sort((p, q) => p - q);
  const cols = list.map((m) => {
    const at = new Map(m.s.x.map((x, i) => [x, m.s.y[i]]));
    return xs.map((x) => (at.has(x) ? at.get(x) : null));
  });
  const { fg, grid } = ink();
  const axisInk = { stroke: fg, grid: { stroke: grid }, ticks: { stroke: grid } };
  const xDur = timeFactor(chart.x_unit), yDur = timeFactor(chart.y_unit);
  const tick = (f, log, pct) => (u, splits) => {
    if (f) {
      const unit = durationUnit(Math.max(...splits.map(Math.abs).filter(isFinite)) * f);
      return splits.map((v) => (v == null ? "" : log ? duration(v * f, 2) : sig((v * f) / unit.per, 3) + " " + unit.name));
    }
    return splits.map((v) => (v == null ? "" : number(v) + (pct ? "%" : "")));
  };
  const series = [{ label: chart.x_label }];
  for (const m of list) {
    const c = colourOf(m.s);
    series.push({
      label: `${m.side} ${m.s.label || m.s.name}`,
      stroke: c,
      fill: bars ? c + "55" : undefined,
      width: bars ? 1 : 2.25,
      dash: bars ? undefined : m.side === "B" ? B_DASH : m.s.style === "dashed" ? [2, 3] : [],
      spanGaps: true,
      paths: bars ? uPlot.paths.bars({ size: [1, Infinity], align: chart.int_x ? 0 : 1, gap: 0 }) : chart.kind === "steps" ? uPlot.paths.stepped({ align: 1 }) : undefined,
      points: { show: false },
    });
  }
  new uPlot({
    width, height,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: {
      x: { time: false, distr: chart.log_x ? 3 : 1, range: () => range.x },
      y: { distr: chart.log_y ? 3 : 1, range: () => range.y },
    },
    axes: [
      xAxis
        ? { ...axisInk, label: chart.x_label, font: FONT, labelFont: LABEL_FONT, values: tick(xDur, chart.log_x, chart.x_unit === "%"), labelSize: 22, size: 36 }
        : { ...axisInk, font: FONT, values: (u, splits) => splits.map(() => ""), size: 4, ticks: { show: false } },
      { ...axisInk, label: chart.y_label, font: FONT, labelFont: LABEL_FONT, values: tick(yDur, chart.log_y, chart.y_unit === "%"), size: 70, labelSize: 22 },
    ],
    series,
  }, [xs, ...cols], holder);
  holder.setAttribute("role", "img");
  holder.setAttribute("aria-label", `${chart.title}: ${list.map((m) => `${m.side} ${m.s.label || m.s.name}`).join(", ")}`);
  probe.plots.push({ chart: chart.id, series: list.map((m) => m.side + " " + m.s.name), x: range.x, y: range.y });
}

// extent is the axes that hold every series of both scenarios.
function extent(series, bars, chart) {
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (const s of series) {
    const w = bars && s.x.length >= 2 ? s.x[1] - s.x[0] : bars ? 1 : 0;
    const [left, right] = chart.int_x ? [w / 2, w / 2] : [0, w];
    for (const x of s.x) { x0 = Math.min(x0, x - left); x1 = Math.max(x1, x + right); }
    for (const y of s.y) {
      if (y == null || !isFinite(y) || (chart.log_y && y <= 0)) continue;
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
    }
  }
  if (!isFinite(x0)) return { x: [0, 1], y: [0, 1] };
  if (!isFinite(y0)) { y0 = chart.log_y ? 1 : 0; y1 = chart.log_y ? 10 : 1; }
  if (x0 === x1) { x0 -= 1; x1 += 1; }
  if (chart.log_y) {
    const lo = Math.max(y0, 1e-9), hi = Math.max(y1, lo * 10);
    return { x: [x0, x1], y: [10 ** Math.floor(Math.log10(lo)), 10 ** Math.ceil(Math.log10(hi))] };
  }
  y0 = Math.min(0, y0);
  if (y0 === y1) y1 = y0 === 0 ? 1 : y0 * 1.1;
  return { x: [x0, x1], y: [y0, y1 * 1.05] };
}

// fillTable writes a summary table's rows, as js/tables.js does on the lab page.
function fillTable(body, t, data) {
  let rows = [];
  if (data !== undefined && t.rows === "map") {
    const order = key ? key.options : [];
    const rank = (k) => (order.indexOf(k) < 0 ? order.length : order.indexOf(k));
    rows = Object.keys(data).sort((p, q) => rank(p) - rank(q) || (p < q ? -1 : p > q ? 1 : 0)).map((k) => ({ "": k, ...data[k] }));
  } else if (data !== undefined) rows = data;
  body.replaceChildren(...rows.map((r) => {
    const tr = document.createElement("tr");
    for (const c of t.columns) {
      const td = document.createElement(c.field === "" ? "th" : "td");
      td.textContent = cell(c, r[c.field]);
      if (c.field === "" && t.rows === "map") {
        td.scope = "row";
        const sw = document.createElement("span");
        sw.className = "swatch";
        sw.setAttribute("aria-hidden", "true");
        sw.style.borderTopColor = style(r[c.field]).colour;
        td.prepend(sw);
      }
      tr.append(td);
    }
    return tr;
  }));
}
