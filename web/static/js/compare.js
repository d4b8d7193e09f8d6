// The compare view (/compare?a=…&b=…): two scenarios of one lab, each edited with the lab
// page's own controls (js/controls.js, rendered by the server from the same declarations) and
// each run on its own stream as the lab page runs its scenario (js/state.js, js/stream.js:
// the newest request wins). Both are drawn by the lab page's renderer (js/render.js). Line
// charts draw both on one set of axes, each series in its usual colour and dash, B's with
// hollow marks;
// histograms and small multiples draw A and B as panels side by side on shared axes,
// histograms of both at one bin width, named on the y axis. The summary tables of A and B sit
// next to each other. The address follows both scenarios (a gesture is one history entry, as
// on the lab page), the controls of B whose value differs from A's are marked, and a line
// says how B differs. window.__compare is for the browser tests.
import { styler } from "./palette.js";
import { fillRows } from "./tables.js";
import { paramValue, labeller } from "./format.js";
import { same } from "./params.js";
import { State } from "./state.js";
import { Stream } from "./stream.js";
import { Results } from "./results.js";
import { wireControls } from "./controls.js";
import { wireHistory } from "./history.js";
import { Renderer, plotHeight, commonBins, extent, axes, sweepOffNote, axisGroups, emptyNote } from "./render.js";

const spec = JSON.parse(document.getElementById("compare-spec").textContent);
const label = labeller(spec); // an option's name (a series, a panel, a table row) → what people read
const start = JSON.parse(document.getElementById("compare-state").textContent);
const status = document.getElementById("compare-status");
const diffLine = document.getElementById("compare-diff");
const key = spec.params.find((p) => p.name === spec.view.key);
const options = key ? key.options : [];
const style = styler(spec);
const renderer = new Renderer();
const probe = (window.__compare = { ready: false, error: "", plots: [], a: null, b: null, renderer, draws: 0, diff: [] });

// A side of the comparison: the lab page's state, controls, stream and results.
function side(name) {
  const state = new State(spec, start[name], []);
  const results = new Results();
  const stream = new Stream(state, results);
  const form = document.getElementById("controls-" + name);
  wireControls(state, form);
  results.addEventListener("draw", schedule);
  state.on("run", schedule);
  state.on("request", () => { probe.ready = false; });
  return { name, label: name.toUpperCase(), state, results, stream, form };
}
const A = side("a"), B = side("b");
const sides = [A, B];

// The page URL of a side's scenario, and the compare URL of both (the lab page's "Compare…"
// link writes it the same way: each URL escaped).
const pageOf = (q) => "/" + spec.name + (q ? "?" + q : "");
const compareURL = (a, b) => `/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`;
const queryOf = (u) => (u.indexOf("?") < 0 ? "" : u.slice(u.indexOf("?") + 1));

// The address and history follow both scenarios as the lab page's follow its one
// (js/history.js): a gesture on either side (a slider from press to release, a typed value, a
// click) is one history entry; the address holds each side's last scenario the server ran, so
// a side's change keeps the other's part as it is there (not a value of it the server refused
// or has yet to run).
const inAddress = (s) => queryOf(new URLSearchParams(location.search).get(s.name) || "");
for (const s of sides) {
  wireHistory(s.state, {
    address: (q) => (s === A ? compareURL(pageOf(q), pageOf(inAddress(B))) : compareURL(pageOf(inAddress(A)), pageOf(q))),
    query: () => inAddress(s),
  });
  s.state.on("values", ({ source }) => {
    mark();
    links();
    if (source === "history" && s === B) openDiffering();
  });
  s.state.on("address", links);
}

// links keeps the scenarios' links and the URLs' form on the scenarios shown.
function links() {
  for (const s of sides) {
    const url = pageOf(inAddress(s));
    document.getElementById("cmp-open-" + s.name)?.setAttribute("href", url);
    const box = document.getElementById("cmp-" + s.name);
    if (box && box !== document.activeElement) box.value = url;
    status.dataset[s.name] = "/api/v1" + url;
  }
}

// mark marks the controls whose values differ between A and B and says how B differs from A:
// "B differs from A in: base 10 ms → 50 ms".
function mark() {
  const diff = spec.params.filter((p) => !same(p, A.state.values[p.name], B.state.values[p.name]));
  const names = new Set(diff.map((p) => p.name));
  for (const s of sides) {
    for (const ctl of s.form.querySelectorAll(".control[data-param]")) ctl.classList.toggle("differs", names.has(ctl.dataset.param));
  }
  probe.diff = diff.map((p) => p.name);
  const text = diff.length
    ? "B differs from A in: " + diff.map((p) => `${p.name} ${paramValue(p, A.state.values[p.name])} → ${paramValue(p, B.state.values[p.name])}`).join("; ")
    : "B is the same scenario as A: change one of B’s controls to compare.";
  if (diffLine.textContent !== text) diffLine.textContent = text;
}

// openDiffering opens the folded groups that hold a control whose values differ.
function openDiffering() {
  for (const s of sides) for (const d of s.form.querySelectorAll("details.group")) if (d.querySelector(".control.differs")) d.open = true;
}

// The charts, tables, titles and status redraw once per animation frame when either side has
// news.
let queued = false;
function schedule() {
  if (queued) return;
  queued = true;
  requestAnimationFrame(() => {
    queued = false;
    update();
  });
}

function update() {
  const bad = sides.find((s) => s.state.run.phase === "error" || Object.keys(s.state.errors).length);
  const final = sides.every((s) => s.state.run.phase === "done" && !s.state.stale());
  const [a, b] = sides.map((s) => ({ series: Object.values(s.results.series), summary: s.results.summary, params: s.state.run.shown?.params }));
  if (a.series.length && b.series.length) {
    probe.a = a;
    probe.b = b;
    draw(a, b, final);
    probe.draws++;
  }
  titles();
  if (bad) {
    const msg = bad.state.run.message && bad.state.run.phase === "error" ? bad.state.run.message : Object.values(bad.state.errors)[0];
    const stopped = bad.state.run.phase === "error" && bad.state.run.stopped; // its numbers on show are partial
    status.textContent = stopped ? `Scenario ${bad.label}, stopped partway (its numbers are partial): ${msg}` : `Scenario ${bad.label}: ${msg}`;
    probe.error = status.textContent;
  } else {
    probe.error = "";
    const waiting = sides.filter((s) => !(s.state.run.phase === "done" && !s.state.stale()));
    const trouble = sides.find((s) => ["busy", "lost", "idle"].includes(s.state.run.phase));
    status.textContent = trouble ? trouble.state.run.message || "Reconnecting…"
      : final ? "A (plain lines) and B (lines with ○ marks), final."
      : `Computing ${waiting.map((s) => s.label).join(" and ")}…`;
  }
  status.classList.toggle("error", !!bad);
  probe.ready = final && !bad && probe.draws > 0;
}

// titles fills the charts' and tables' titles with both scenarios' values: "At N = 30 (A),
// 80 (B)", or "At N = 30" when they agree (the server writes them so first).
function titles() {
  const value = (name) => {
    const p = A.state.params.get(name);
    if (!p) return `{${name}}`;
    const a = A.state.scenario[name], b = B.state.scenario[name];
    return same(p, a, b) ? a : `${a} (A), ${b} (B)`;
  };
  for (const h of document.querySelectorAll(".compare h2[data-title]")) {
    const t = h.dataset.title.replace(/\{(\w+)\}/g, (m, name) => value(name));
    if (h.textContent !== t) h.textContent = t;
  }
}

function draw(a, b, final) {
  probe.plots = [];
  for (const chart of spec.view.charts) drawChart(chart, a, b, final);
  for (const t of spec.view.tables) {
    let rows = 0;
    for (const [side, res] of [["A", a], ["B", b]]) {
      const body = document.querySelector(`#table-${CSS.escape(t.id)} tbody[data-side="${side}"]`);
      if (!body) continue;
      fillRows(body, t, res.summary[t.key], options, style, label);
      rows += body.rows.length;
      // A side without a row says so in its caption, its headers out of the way.
      const table = body.closest("table");
      const none = final && !body.rows.length;
      table.classList.toggle("empty", none);
      const caption = none ? `${side}: nothing to show` : side;
      if (table.caption && table.caption.textContent !== caption) table.caption.textContent = caption;
    }
    emptyNote(document.getElementById(`table-${t.id}`), t.empty, final && rows === 0);
  }
}

function drawChart(chart, a, b, final) {
  const section = document.getElementById(`chart-${chart.id}`);
  const box = section?.querySelector(".plots");
  if (!box) return;
  const bars = chart.kind === "bars";
  const title = section.querySelector("h2")?.textContent || chart.title;
  const of = (res) => res.series.filter((s) => s.chart === chart.id && !s.of);
  const list = [...of(a).map((s) => ({ ...s, side: "A" })), ...of(b).map((s) => ({ ...s, side: "B" }))];
  // A sweep off in A or B: say so, with a button that turns it on there.
  const p = chart.needs ? A.state.params.get(chart.needs) : null;
  const off = sweepOffNote(section, chart, p, sides.map((s) => ({ name: s.label, off: !!p && s.state.scenario[p.name] === "off",
    turnOn: () => s.state.setScenario({ [p.name]: p.on }, "user", { partial: true, moved: p.name, commit: true }) })));
  // Final numbers that give the chart nothing to draw on either side: a note saying why.
  const empty = !off && final && !list.some((s) => s.x.length > 0);
  emptyNote(section, chart.empty, empty);
  box.hidden = (off && !list.length) || empty;
  section.classList.toggle("bare", box.hidden);
  // Every series in its style, as on the lab page (so that no two of a side look alike); B's
  // lines also carry hollow marks.
  let series = list.map((s) => {
    const st = style(s, list);
    return { ...s, colour: st.colour, dash: st.dash, marks: s.side === "B" };
  });
  // Histograms of A and B at one bin width, so that equal bars mean equal counts — unless one
  // axis would squeeze one of them into a sliver (render.js axisGroups): then each is drawn on
  // its own axis, at its own bins.
  let per = "";
  const sides2 = ["A", "B"].map((side) => series.filter((s) => s.side === side));
  const group = bars || chart.split ? axisGroups(chart, sides2.map((ss) => extent(chart, ss))) : [0, 0];
  const apart = group[0] !== group[1];
  const perSide = { A: "", B: "" };
  if (bars && !apart) ({ series, per } = commonBins(series, chart.x_unit));
  if (bars && apart) {
    series = ["A", "B"].flatMap((side) => {
      const b = commonBins(series.filter((s) => s.side === side), chart.x_unit);
      perSide[side] = b.per;
      return b.series;
    });
  }
  const ext = extent(chart, series);
  const range = ext.x ? axes(chart, ext) : { x: [0, 1], y: [0, 1] };
  const rangeOf = apart ? Object.fromEntries(["A", "B"].map((side) => {
    const e = extent(chart, series.filter((s) => s.side === side));
    return [side, e.x ? axes(chart, e) : range];
  })) : { A: range, B: range };
  const seen = new Map();
  for (const s of series) if (!seen.has(s.label || s.name)) seen.set(s.label || s.name, { label: label(s.label || s.name, chart.id), colour: s.colour, dash: s.dash });
  const items = [...seen.values()].map((it) => ({ ...it, dash: bars ? [] : it.dash }));
  if (!bars && !chart.split) items.push({ text: "A plain, B with ○ marks" });
  renderer.legend(chart, section.querySelector(".legend"), items);

  const named = (ss) => ss.map((s) => ({ ...s, name: `${s.side} ${s.name}`, label: `${s.side} ${label(s.label || s.name, chart.id)}` }));
  let panels, columns = 1, width;
  if (!bars && !chart.split) {
    panels = [{ key: "", series: named(series) }];
    width = Math.max(260, box.clientWidth);
  } else {
    // Side-by-side panels: a row per group (small multiples) or one row, A left and B right.
    box.classList.add("cmp-grid");
    if (!box.querySelector(".cmp-head")) {
      const head = document.createElement("div");
      head.className = "cmp-head";
      head.innerHTML = "<span>A</span><span>B</span>";
      box.prepend(head);
    }
    const groupOf = (s) => (chart.split ? s.group || s.label || s.name : "");
    const groups = [...new Set(series.filter((s) => s.group !== "*").map(groupOf))];
    groups.sort((x, y) => style({ label: x, chart: chart.id }, []).index - style({ label: y, chart: chart.id }, []).index);
    const perOf = (side) => (apart ? perSide[side] : per);
    panels = groups.flatMap((g) => ["A", "B"].map((side) => ({
      key: side + "\u0000" + g,
      side,
      title: chart.split || apart ? `${side}: ${label(g, chart.id)}` + (perOf(side) ? ` (${chart.y_label} per ${perOf(side)})` : "") : undefined,
      series: named(series.filter((s) => s.side === side && (groupOf(s) === g || s.group === "*"))),
    })));
    columns = 2;
    width = Math.max(200, Math.floor((box.clientWidth - 16) / 2));
  }
  for (const p of panels) p.name = `${title}: ${p.series.map((s) => s.label).join(", ")}`;
  renderer.draw(chart, box, {
    panels,
    columns,
    range: (pi) => (panels[pi].side ? rangeOf[panels[pi].side] : range),
    width,
    height: plotHeight(chart, panels.length / columns, { compare: true }),
    title,
    yUnit: per ? `${chart.y_label} per ${per}` : chart.y_label,
    yLabel: chart.split || apart ? "" : per ? `${chart.y_label} per ${per}` : chart.y_label, // small multiples: in their titles
    mark: null,
    describe: final,
    lineLabels: false,
    points: false,
  });
  for (const p of panels) {
    const r = p.side ? rangeOf[p.side] : range;
    probe.plots.push({ chart: chart.id, series: p.series.map((s) => s.name), x: r.x, y: r.y, per: p.side && apart ? perSide[p.side] : per });
  }
}

// Both scenarios as the server rendered them; each stream sends its own once connected.
for (const s of sides) s.state.setScenario(start[s.name], "boot");
mark();
openDiffering();
for (const s of sides) s.stream.connect();
