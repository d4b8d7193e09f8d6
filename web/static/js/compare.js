// The compare view (/compare?a=…&b=…): two scenarios of one lab, fetched from the JSON API and
// drawn by the lab page's renderer (js/render.js). Line charts draw both on one set of axes, A
// solid and B dashed, each series in its usual colour; histograms and small multiples draw A
// and B as panels side by side on shared axes, histograms of both at one bin width, named on
// the y axis. The summary tables of A and B sit next to each other. The server fills the
// titles with both scenarios' values. window.__compare is for the browser tests.
import { styler } from "./palette.js";
import { fillRows } from "./tables.js";
import { Renderer, plotHeight, commonBins, extent, axes } from "./render.js";

const B_DASH = [7, 4];

const spec = JSON.parse(document.getElementById("compare-spec").textContent);
const status = document.getElementById("compare-status");
const key = spec.params.find((p) => p.name === spec.view.key);
const options = key ? key.options : [];
const style = styler(spec.palette, options);
const renderer = new Renderer();
const probe = (window.__compare = { ready: false, error: "", plots: [], a: null, b: null, renderer });

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
      if (body) fillRows(body, t, res.summary[t.key], options, style);
    }
  }
}

function drawChart(chart, a, b) {
  const section = document.getElementById(`chart-${chart.id}`);
  const box = section?.querySelector(".plots");
  if (!box) return;
  const bars = chart.kind === "bars";
  const title = section.querySelector("h2")?.textContent || chart.title;
  const of = (res) => res.series.filter((s) => s.chart === chart.id && !s.of);
  const list = [...of(a).map((s) => ({ ...s, side: "A" })), ...of(b).map((s) => ({ ...s, side: "B" }))];
  // Every series in its colour; B dashed (lines), A's own dashed estimates dotted.
  let series = list.map((s) => {
    const st = style(s, list);
    return { ...s, colour: st.colour, dash: s.side === "B" ? B_DASH : s.style === "dashed" ? [2, 3] : [] };
  });
  // Histograms of A and B at one bin width, so that equal bars mean equal counts.
  let per = "";
  if (bars) ({ series, per } = commonBins(series, chart.x_unit));
  const ext = extent(chart, series);
  const range = ext.x ? axes(chart, ext) : { x: [0, 1], y: [0, 1] };
  const seen = new Map();
  for (const s of series) if (!seen.has(s.label || s.name)) seen.set(s.label || s.name, { label: s.label || s.name, colour: s.colour, dash: s.dash });
  const items = [...seen.values()].map((it) => ({ ...it, dash: bars ? [] : it.dash }));
  if (!bars && !chart.split) items.push({ text: "A solid, B dashed" });
  renderer.legend(chart, section.querySelector(".legend"), items);

  const named = (ss) => ss.map((s) => ({ ...s, name: `${s.side} ${s.name}`, label: `${s.side} ${s.label || s.name}` }));
  let panels, columns = 1, width;
  if (!bars && !chart.split) {
    panels = [{ key: "", series: named(series) }];
    width = Math.max(260, box.clientWidth);
  } else {
    // Side-by-side panels: a row per group (small multiples) or one row, A left and B right.
    box.classList.add("cmp-grid");
    const head = document.createElement("div");
    head.className = "cmp-head";
    head.innerHTML = "<span>A</span><span>B</span>";
    box.append(head);
    const groupOf = (s) => (chart.split ? s.group || s.label || s.name : "");
    const groups = [...new Set(series.filter((s) => s.group !== "*").map(groupOf))];
    groups.sort((x, y) => style({ label: x }, []).index - style({ label: y }, []).index);
    panels = groups.flatMap((g) => ["A", "B"].map((side) => ({
      key: side + "\u0000" + g,
      title: chart.split ? `${side}: ${g}` + (per ? ` (${chart.y_label} per ${per})` : "") : undefined,
      series: named(series.filter((s) => s.side === side && (groupOf(s) === g || s.group === "*"))),
    })));
    columns = 2;
    width = Math.max(200, Math.floor((box.clientWidth - 16) / 2));
  }
  for (const p of panels) p.name = `${title}: ${p.series.map((s) => s.label).join(", ")}`;
  renderer.draw(chart, box, {
    panels,
    columns,
    range: () => range,
    width,
    height: plotHeight(chart, panels.length / columns, { compare: true }),
    title,
    yUnit: per ? `${chart.y_label} per ${per}` : chart.y_label,
    yLabel: chart.split ? "" : per ? `${chart.y_label} per ${per}` : chart.y_label, // small multiples: in their titles
    mark: null,
    describe: true,
    lineLabels: false,
    points: false,
  });
  for (const p of panels) probe.plots.push({ chart: chart.id, series: p.series.map((s) => s.name), x: range.x, y: range.y, per });
}
