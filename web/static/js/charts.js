// Charts, drawn from the lab's view alone. Each chart keeps its series in the view key's order
// and style (colour and dash), so that "the second line" means the same line for everyone;
// small multiples (Split) keep that order and share one x axis, y axis and bin width by
// default; axes only grow while a run refines or a slider moves, and fit the data again once
// the scenario asked for is final. Charts are named for screen readers and carry a short text
// summary of what they show.
import uPlot from "../vendor/uPlot.esm.js";
import { sig, duration, durationUnit, number, paramValue } from "./format.js";
import { pictureValues } from "./status.js";
import { isDark, ink } from "./palette.js";

const SMALL_FONT = '14px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const SMALL_LABEL_FONT = 'bold 14px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const BIG_FONT = '19px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const BIG_LABEL_FONT = 'bold 19px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
// Tick steps for duration axes (milliseconds): whole seconds, minutes and hours.
const MS_INCRS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 250, 500,
  1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 108e5, 216e5, 432e5, 864e5];
// Time units a chart's x_unit or y_unit may name, in milliseconds.
const TIME_UNITS = { "µs": 1e-3, us: 1e-3, ms: 1, s: 1e3, min: 6e4, h: 3.6e6 };
export const timeFactor = (unit) => TIME_UNITS[unit] || 0;

// References (series beside the compared ones): greys with at least 3:1 contrast on white.
// On the dark theme, lighter greys with at least 3:1 contrast on the dark page.
const REF_COLOURS = ["#5f5f5f", "#8a8a8a"];
const REF_COLOURS_DARK = ["#a3a3a3", "#7d7d7d"];
const REF_DASHES = [[], [2, 3], [12, 4]];

const INT_INCRS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1e3, 2e3, 2500, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6];

export class Charts {
  constructor(state, results, style) {
    this.state = state;
    this.results = results;
    this.style = style;
    this.plots = new Map(); // chart id + "\u0000" + panel → {u, sig, holder}
    this.ranges = new Map(); // chart id (or id/panel) → {x, y}: the axes as far as they have grown
    this.byId = new Map(state.spec.view.charts.map((c) => [c.id, c]));
    const key = state.params.get(state.spec.view.key);
    this.keyCount = key ? key.options.length : 0;
    this.refs = new Map(); // reference series' labels, in order of first sight
    this.fill = 0; // in presentation mode, the height of the pinned headline chart (px)
    // Widths of the charts' boxes (a panel's, for small multiples), read when the layout is
    // fresh: reading layout while drawing would force the browser to lay out the page again
    // at every frame.
    this.widths = new Map();
    this.observer = new ResizeObserver((entries) => {
      for (const e of entries) {
        const id = e.target.closest(".chart")?.dataset.chart;
        const chart = id && this.byId.get(id);
        if (!chart) continue;
        const w = Math.max(200, Math.floor(chart.split ? panelWidth(e.target) : e.contentRect.width));
        if (this.widths.get(id) === w) continue;
        this.widths.set(id, w);
        this.draw(id);
      }
    });
    for (const c of state.spec.view.charts) {
      const box = this.box(c.id);
      if (box) this.observer.observe(box);
    }
    const toggles = [...document.querySelectorAll("input.shared-axes")];
    for (const t of toggles) {
      t.checked = state.view.sharedAxes;
      t.addEventListener("change", () => {
        state.view.sharedAxes = t.checked;
        for (const o of toggles) o.checked = t.checked;
        this.ranges.clear();
        this.drawAll();
      });
    }
  }

  // styleFor is a series' style in a chart: the key's style for the things the lab compares;
  // beside them, any other series (an exact count, a limit, the offered load) is a reference,
  // drawn in grey with its own dash; in a chart of no compared things, the next styles.
  styleFor(chart, label) {
    const st = this.style(label);
    if (st.index < this.keyCount) return st;
    const compared = this.results.ofChart(chart.id).some((s) => this.style(s.label).index < this.keyCount);
    if (!compared) return st;
    if (!this.refs.has(label)) this.refs.set(label, this.refs.size);
    const i = this.refs.get(label);
    const refs = isDark() ? REF_COLOURS_DARK : REF_COLOURS;
    return { index: st.index, colour: refs[i % refs.length], dash: REF_DASHES[i % REF_DASHES.length] };
  }

  // setFill sets the height of the pinned headline chart (0: the usual height) and redraws.
  setFill(h) {
    if (this.fill === h) return;
    this.fill = h;
    this.restyle();
  }

  // restyle draws every chart afresh in the colours of the theme now on show.
  restyle() {
    for (const p of this.plots.values()) { p.u.destroy(); p.holder.remove(); }
    this.plots.clear();
    for (const el of document.querySelectorAll(".chart .legend")) delete el.dataset.sig;
    this.drawAll();
  }

  box(id) { return document.querySelector(`#chart-${CSS.escape(id)} .plots`); }
  drawAll() { for (const c of this.state.spec.view.charts) this.draw(c.id); }

  // settled reports whether the numbers on show are final for the scenario asked for: then
  // axes fit the data again instead of only growing.
  settled() {
    const run = this.state.run;
    return run.phase === "done" && !this.state.stale();
  }

  // panels returns the chart's panels in a stable order: [{key, title, series: [...]}].
  panels(chart) {
    const list = this.results.ofChart(chart.id);
    const rank = (s) => this.style(s.label).index;
    const byRank = (a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    list.sort(byRank);
    if (!chart.split) return list.length ? [{ key: "", title: "", series: list }] : [];
    const everywhere = list.filter((s) => s.group === "*");
    const groups = new Map();
    for (const s of list) {
      if (s.group === "*") continue;
      const g = s.group || s.label || s.name;
      if (!groups.has(g)) groups.set(g, []);
      groups.get(g).push(s);
    }
    return [...groups.entries()]
      .sort((a, b) => this.style(a[0]).index - this.style(b[0]).index || (a[0] < b[0] ? -1 : 1))
      .map(([g, series]) => ({ key: g, title: g, series: [...series, ...everywhere] }));
  }

  draw(id) {
    const chart = this.byId.get(id);
    const box = this.box(id);
    if (!chart || !box) return;
    const bars = chart.kind === "bars";
    const shared = chart.split && this.state.view.sharedAxes;
    let panels = this.panels(chart);

    // Histograms in small multiples share one bin width: the widest, when the others divide it.
    let binNote = "";
    if (bars && shared && panels.length > 1) {
      const widths = panels.flatMap((p) => p.series.map(binWidth)).filter((w) => w > 0);
      const W = Math.max(0, ...widths);
      if (W > 0 && widths.every((w) => Math.abs(W / w - Math.round(W / w)) < 1e-6)) {
        panels = panels.map((p) => ({ ...p, series: p.series.map((s) => rebin(s, W)) }));
        binNote = timeFactor(chart.x_unit) ? duration(W * timeFactor(chart.x_unit)) : sig(W);
      }
    }

    const values = this.state.run.picture ? pictureValues(this.state, this.state.run.picture) : this.state.scenario;
    const markP = chart.mark ? this.state.params.get(chart.mark) : null;
    const mark = markP ? Number(values[chart.mark]) : NaN;

    // Extents of the data, per panel and over all panels.
    const extents = panels.map((p) => extent(p.series, bars, chart, this.results));
    const all = merge(extents);
    const fit = this.settled();
    this.fitNow = fit;
    const keep = new Set();
    const note = document.querySelector(`#chart-${CSS.escape(id)} .chart-note`);
    let noteText = "";
    if (isFinite(mark) && all.x && (mark < all.x[0] || mark > all.x[1])) {
      noteText = `Computed for ${chart.x_label} from ${number(all.x[0])} to ${number(all.x[1])}: the chosen ${markP.label} = ${paramValue(markP, values[chart.mark])} lies outside that range.`;
    }
    if (note && note.textContent !== noteText) note.textContent = noteText;

    // Read the layout once, before writing to the page (reading it between writes forces the
    // browser to lay the page out again for every panel).
    if (!this.widths.has(id)) this.widths.set(id, Math.max(200, Math.floor(chart.split ? panelWidth(box) : box.clientWidth)));
    const width = this.widths.get(id);
    const count = panels.length;
    panels.forEach((panel, pi) => {
      const key = id + "\u0000" + panel.key;
      keep.add(key);
      const ext = shared || !chart.split ? all : extents[pi];
      const rkey = chart.split && !shared ? key : id;
      const r = this.grow(rkey, ext, fit, isFinite(mark) ? mark : null, chart, bars);
      this.panel(chart, box, key, panel, r, bars, binNote, mark, markP, values, pi, pi === panels.length - 1, width, count);
    });
    for (const [key, p] of this.plots) {
      if (key.startsWith(id + "\u0000") && !keep.has(key)) {
        p.u.destroy();
        p.holder.remove();
        this.plots.delete(key);
      }
    }
    // Keep the panels in their declared order in the page.
    const order = panels.map((p) => this.plots.get(id + "\u0000" + p.key)?.holder).filter(Boolean);
    order.forEach((h, i) => { if (box.children[i] !== h) box.insertBefore(h, box.children[i] || null); });
    this.legend(chart, panels);
  }

  // grow returns the axes of a chart: the data's extent when the numbers are final, else the
  // union of the extent and the axes drawn before, so axes do not jump while numbers refine.
  grow(key, ext, fit, mark, chart, bars) {
    if (!ext.x) return this.ranges.get(key) || { x: [0, 1], y: [0, 1] };
    let x = [...ext.x], y = [...ext.y];
    if (mark !== null) x = [Math.min(x[0], mark), Math.max(x[1], mark)];
    if (!chart.log_y && !bars) y[0] = Math.min(0, y[0]);
    if (bars) y[0] = Math.min(0, y[0]);
    const old = this.ranges.get(key);
    if (old && !fit) {
      x = [Math.min(x[0], old.x[0]), Math.max(x[1], old.x[1])];
      y = [Math.min(y[0], old.y[0]), Math.max(y[1], old.y[1])];
    }
    const r = { x, y };
    this.ranges.set(key, r);
    return r;
  }

  panel(chart, box, key, panel, r, bars, binNote, mark, markP, values, pi, last, width, count) {
    const series = panel.series;
    // One x for all series: theirs when they share it (the common case, and cheap), else the
    // union with gaps.
    const shared = series.every((s) => sameX(s.x, series[0].x));
    const xs = shared ? series[0]?.x || [] : [...new Set(series.flatMap((s) => s.x))].sort((a, b) => a - b);
    const cols = [];
    const meta = [];
    for (const s of series) {
      cols.push(shared ? s.y : align(xs, s));
      meta.push({ s, band: false });
    }
    // Bands (the spread of a mean) as pairs of invisible series filled between.
    const bandsOpt = [];
    if (!bars) {
      series.forEach((s) => {
        const b = this.results.bandsOf(s.name);
        if (b.lo && b.hi) {
          cols.push(sameX(b.hi.x, xs) ? b.hi.y : align(xs, b.hi), sameX(b.lo.x, xs) ? b.lo.y : align(xs, b.lo));
          meta.push({ s, band: "hi" }, { s, band: "lo" });
          bandsOpt.push({ series: [meta.length - 1, meta.length], fill: this.styleFor(chart, s.label).colour + "26" });
        }
      });
    }
    const data = [xs, ...cols];
    const sigKey = meta.map((m) => m.s.name + (m.band || "")).join("|") + (bars ? "b" : "") + (chart.split && last ? "L" : "");
    const phone = innerWidth <= 760;
    // Small multiples: one x axis, under the last panel.
    let height = chart.split ? (count > 3 ? 78 : 110) + (last ? 46 : 8) : phone && box.closest(".pinned") ? 190 : 250;
    // Presentation mode: the pinned chart fills the screen (its panels share the height).
    if (this.fill && box.closest(".pinned")) height = chart.split ? Math.max(80, Math.floor((this.fill - 46) / count - 28)) + (last ? 46 : 8) : this.fill;
    let p = this.plots.get(key);
    if (p && p.sig !== sigKey) {
      p.u.destroy();
      p.holder.remove();
      this.plots.delete(key);
      p = null;
    }
    const ctx = { r, mark, markP, values, chart };
    if (!p) {
      const holder = document.createElement("div");
      holder.className = "plot";
      holder.setAttribute("role", "img");
      const title = document.createElement("p");
      title.className = "panel-title";
      if (chart.split) holder.append(title);
      const desc = document.createElement("p");
      desc.className = "sr-only";
      desc.id = `desc-${chart.id}-${pi}-${Math.random().toString(36).slice(2, 8)}`;
      holder.append(desc);
      holder.setAttribute("aria-describedby", desc.id);
      box.append(holder);
      const opts = this.options(chart, meta, bandsOpt, width, height, bars, ctx, !chart.split || last);
      const u = new uPlot(opts, data, holder);
      p = { u, sig: sigKey, holder, title, desc, ctx: opts._ctx };
      this.plots.set(key, p);
    } else {
      Object.assign(p.ctx, ctx);
      if (p.u.width !== width || p.u.height !== height) p.u.setSize({ width, height });
      p.u.setData(data);
    }
    const yUnit = binNote ? `${chart.y_label} per ${binNote}` : series[0]?.y_unit || chart.y_label;
    const set = (el, text) => { if (el.textContent !== text) el.textContent = text; };
    if (chart.split) set(p.title, `${panel.title} (${yUnit})`);
    const name = chart.split ? `${chart.title}: ${panel.title}` : chart.title;
    if (p.holder.getAttribute("aria-label") !== name) p.holder.setAttribute("aria-label", name);
    // The text summary follows the final numbers (not every frame of a refinement).
    if (this.fitNow || !p.desc.textContent) set(p.desc, describe(chart, series, bars, yUnit));
  }

  options(chart, meta, bands, width, height, bars, ctx0, xAxis) {
    const ctx = { ...ctx0 };
    const style = (label) => this.styleFor(chart, label);
    // Time axes: ticks at whole seconds, minutes…, written in one unit per axis (per tick on
    // a log axis), whatever unit the series carry.
    const xDur = timeFactor(chart.x_unit), yDur = timeFactor(chart.y_unit);
    const tick = (f, log, pct) => (u, splits) => {
      if (f) {
        const unit = durationUnit(Math.max(...splits.map(Math.abs).filter(isFinite)) * f);
        return splits.map((v) => (v == null ? "" : log ? duration(v * f, 2) : sig((v * f) / unit.per, 3) + " " + unit.name));
      }
      return splits.map((v) => (v == null ? "" : number(v) + (pct ? "%" : "")));
    };
    const series = [{ label: chart.x_label }];
    for (const m of meta) {
      const st = style(m.s.label);
      if (m.band) {
        series.push({ label: m.s.label + " " + m.band, stroke: st.colour + "00", width: 0, points: { show: false }, spanGaps: true });
        continue;
      }
      const dash = m.s.style === "dashed" ? [6, 4] : st.dash;
      series.push({
        label: m.s.label || m.s.name,
        stroke: st.colour,
        fill: bars ? st.colour + "55" : undefined,
        width: bars ? 1 : 2.25,
        dash: bars ? undefined : dash,
        spanGaps: true,
        // Histograms of whole values (IntX) centre each bar on its value; others start it there.
        paths: bars ? uPlot.paths.bars({ size: [1, Infinity], align: chart.int_x ? 0 : 1, gap: 0 }) : chart.kind === "steps" ? uPlot.paths.stepped({ align: 1 }) : undefined,
        points: { show: !bars, size: 5, fill: st.colour, filter: (u, si, show) => (show && u.data[0].length <= 40 ? null : []) },
      });
    }
    const { fg, grid } = ink();
    // Presentation mode: larger type on the axes, for the back of the room.
    const FONT = this.fill ? BIG_FONT : SMALL_FONT, LABEL_FONT = this.fill ? BIG_LABEL_FONT : SMALL_LABEL_FONT;
    const z = (n) => Math.round(n * (this.fill ? 1.35 : 1));
    const axisInk = { stroke: fg, grid: { stroke: grid }, ticks: { stroke: grid } };
    const intIncrs = (on, f) => (f ? MS_INCRS.map((x) => x / f) : on ? INT_INCRS : undefined);
    const opts = {
      width, height,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: {
        x: { time: false, distr: chart.log_x ? 3 : 1, range: () => ctx.r.x },
        y: { distr: chart.log_y ? 3 : 1, range: () => logSafe(ctx.r.y, chart.log_y) },
      },
      axes: [
        xAxis
          ? { ...axisInk, label: chart.x_label, font: FONT, labelFont: LABEL_FONT, values: tick(xDur, chart.log_x, chart.x_unit === "%"), incrs: intIncrs(chart.int_x, chart.log_x ? 0 : xDur), labelSize: z(22), size: z(36) }
          : { ...axisInk, font: FONT, values: (u, splits) => splits.map(() => ""), incrs: intIncrs(chart.int_x, chart.log_x ? 0 : xDur), size: 4, ticks: { show: false } },
        chart.split
          ? { ...axisInk, font: FONT, values: tick(yDur, chart.log_y, chart.y_unit === "%"), incrs: intIncrs(chart.int_y, chart.log_y ? 0 : yDur), size: z(60) }
          : { ...axisInk, label: chart.y_label, font: FONT, labelFont: LABEL_FONT, values: tick(yDur, chart.log_y, chart.y_unit === "%"), incrs: intIncrs(chart.int_y, chart.log_y ? 0 : yDur), size: z(70), labelSize: z(22) },
      ],
      series,
      bands,
      plugins: [markPlugin(ctx), labelsPlugin(chart, meta, style, bars), readoutPlugin(chart, meta, style)],
    };
    opts._ctx = ctx;
    return opts;
  }

  // legend lists the chart's series with their colour and dash.
  legend(chart, panels) {
    const el = document.querySelector(`#chart-${CSS.escape(chart.id)} .legend`);
    if (!el) return;
    const sig = panels.map((p) => p.series.map((s) => s.label + "|" + s.style).join(",")).join(";");
    if (el.dataset.sig === sig) return;
    el.dataset.sig = sig;
    const seen = new Map();
    for (const p of panels) for (const s of p.series) if (!seen.has(s.label)) seen.set(s.label, s);
    const items = [...seen.values()].map((s) => {
      const st = this.styleFor(chart, s.label);
      const dash = s.style === "dashed" ? [6, 4] : st.dash;
      const mark = chart.kind === "bars"
        ? `<rect x="6" y="0" width="16" height="10" fill="${st.colour}55" stroke="${st.colour}"/>`
        : `<line x1="1" y1="5" x2="27" y2="5" stroke="${st.colour}" stroke-width="3" stroke-dasharray="${dash.join(" ")}"/>`;
      return `<li><svg width="28" height="10" aria-hidden="true">${mark}</svg>${escapeHTML(s.label || s.name)}</li>`;
    });
    const html = chart.split && (chart.kind === "bars") ? "" : items.join("");
    if (el.innerHTML !== html) el.innerHTML = html;
  }
}

function escapeHTML(s) { return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]); }

function panelWidth(box) {
  const cs = getComputedStyle(box);
  const cols = cs.gridTemplateColumns && cs.gridTemplateColumns !== "none" ? cs.gridTemplateColumns.split(" ").length : 1;
  const gap = parseFloat(cs.columnGap) || 0;
  return (box.clientWidth - gap * (cols - 1)) / cols;
}

function binWidth(s) { return s.x.length >= 2 ? s.x[1] - s.x[0] : 0; }

function sameX(a, b) {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// rebin sums a histogram's counts (x ascending) into bins of width W.
const rebinned = new WeakMap(); // series record → {W, out}
function rebin(s, W) {
  const w = binWidth(s);
  if (!w || Math.abs(w - W) < 1e-9) return s;
  const memo = rebinned.get(s);
  if (memo && memo.W === W && memo.n === s.x.length) return memo.out;
  const x = [], y = [];
  for (let i = 0; i < s.x.length; i++) {
    const b = Math.floor(s.x[i] / W + 1e-9) * W;
    if (x.length && x[x.length - 1] === b) y[y.length - 1] += s.y[i] || 0;
    else { x.push(b); y.push(s.y[i] || 0); }
  }
  const out = { ...s, x, y: y.map((v) => Number(v.toPrecision(6))) };
  rebinned.set(s, { W, n: s.x.length, out });
  return out;
}

function align(xs, s) {
  const m = new Map(s.x.map((x, i) => [x, s.y[i]]));
  return xs.map((x) => (m.has(x) ? m.get(x) : null));
}

function extent(series, bars, chart, results) {
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (const s of series) {
    const w = bars ? binWidth(s) || 1 : 0;
    const [left, right] = chart.int_x ? [w / 2, w / 2] : [0, w];
    const ys = [s.y];
    const b = results.bandsOf(s.name);
    if (!bars && b.lo && b.hi) ys.push(b.lo.y, b.hi.y);
    s.x.forEach((x) => { x0 = Math.min(x0, x - left); x1 = Math.max(x1, x + right); });
    for (const arr of ys) for (const y of arr) {
      if (y == null || !isFinite(y) || (chart.log_y && y <= 0)) continue;
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
    }
  }
  if (!isFinite(x0)) return {};
  if (!isFinite(y0)) { y0 = chart.log_y ? 1 : 0; y1 = chart.log_y ? 10 : 1; }
  if (x0 === x1) { x0 -= 1; x1 += 1; }
  if (y0 === y1) { y1 = y0 === 0 ? 1 : y0 * 1.1; }
  return { x: [x0, x1], y: [y0, y1 * (chart.log_y ? 1 : 1.05)] };
}

function merge(exts) {
  const have = exts.filter((e) => e.x);
  if (!have.length) return {};
  return {
    x: [Math.min(...have.map((e) => e.x[0])), Math.max(...have.map((e) => e.x[1]))],
    y: [Math.min(...have.map((e) => e.y[0])), Math.max(...have.map((e) => e.y[1]))],
  };
}

function logSafe(y, log) {
  if (!log) return y;
  const lo = Math.max(y[0], 1e-9), hi = Math.max(y[1], lo * 10);
  return [10 ** Math.floor(Math.log10(lo)), 10 ** Math.ceil(Math.log10(hi))];
}

// describe is a chart's short text summary for screen readers.
function describe(chart, series, bars, yUnit) {
  const fx = (x) => (timeFactor(chart.x_unit) ? duration(x * timeFactor(chart.x_unit)) : number(x) + (chart.x_unit === "%" ? "%" : ""));
  const fy = (y) => (timeFactor(chart.y_unit) ? duration(y * timeFactor(chart.y_unit)) : number(y) + (chart.y_unit === "%" ? "%" : ""));
  const parts = series.map((s) => {
    const pts = s.x.map((x, i) => [x, s.y[i]]).filter((p) => p[1] != null);
    if (!pts.length) return `${s.label}: no data`;
    const peak = pts.reduce((a, b) => (b[1] > a[1] ? b : a));
    if (bars) {
      const total = pts.reduce((a, p) => a + p[1], 0);
      return `${s.label}: ${number(total)} in all, most (${number(peak[1])}) at ${fx(peak[0])}, last at ${fx(pts[pts.length - 1][0])}`;
    }
    const a = pts[0], b = pts[pts.length - 1];
    return `${s.label}: ${fy(a[1])} at ${chart.x_label} ${fx(a[0])}, ${fy(b[1])} at ${fx(b[0])}`;
  });
  return `${chart.title}, ${chart.y_label}${yUnit && yUnit !== chart.y_label ? " (" + yUnit + ")" : ""} against ${chart.x_label}. ${parts.join("; ")}.`;
}

// markPlugin draws the chosen value of the chart's Mark parameter as a labelled dashed line.
function markPlugin(ctx) {
  return {
    hooks: {
      draw: (u) => {
        if (ctx.mark === null || !isFinite(ctx.mark) || !ctx.markP) return;
        const cx = u.valToPos(ctx.mark, "x", true);
        const c = u.ctx, dpr = devicePixelRatio;
        c.save();
        const { fg, mark } = ink();
        c.strokeStyle = mark;
        c.setLineDash([4 * dpr, 4 * dpr]);
        c.lineWidth = 1.5 * dpr;
        c.beginPath();
        c.moveTo(cx, u.bbox.top);
        c.lineTo(cx, u.bbox.top + u.bbox.height);
        c.stroke();
        c.setLineDash([]);
        c.fillStyle = fg;
        c.font = `${13 * dpr}px system-ui, sans-serif`;
        const text = `${ctx.markP.label} = ${paramValue(ctx.markP, ctx.values[ctx.markP.name])}`;
        const w = c.measureText(text).width;
        const left = cx + 4 * dpr + w > u.bbox.left + u.bbox.width;
        c.textAlign = left ? "right" : "left";
        c.fillText(text, left ? cx - 4 * dpr : cx + 4 * dpr, u.bbox.top + 14 * dpr);
        c.restore();
      },
    },
  };
}

// labelsPlugin writes each line's name at its right end, so lines can be told apart without
// the legend or colour.
function labelsPlugin(chart, meta, style, bars) {
  return {
    hooks: {
      draw: (u) => {
        if (bars || chart.split) return;
        const dpr = devicePixelRatio, c = u.ctx;
        const labels = [];
        meta.forEach((m, i) => {
          if (m.band) return;
          const ys = u.data[i + 1];
          let k = ys.length - 1;
          while (k >= 0 && ys[k] == null) k--;
          if (k < 0) return;
          labels.push({ text: m.s.label || m.s.name, colour: style(m.s.label).colour, x: u.valToPos(u.data[0][k], "x", true), y: u.valToPos(ys[k], "y", true) });
        });
        labels.sort((a, b) => a.y - b.y);
        const gap = 15 * dpr;
        for (let i = 1; i < labels.length; i++) if (labels[i].y - labels[i - 1].y < gap) labels[i].y = labels[i - 1].y + gap;
        c.save();
        c.font = `bold ${12 * dpr}px system-ui, sans-serif`;
        c.textAlign = "right";
        c.lineWidth = 3 * dpr;
        c.strokeStyle = ink().bg;
        for (const l of labels) {
          const y = Math.min(Math.max(l.y - 5 * dpr, u.bbox.top + 10 * dpr), u.bbox.top + u.bbox.height - 2 * dpr);
          c.strokeText(l.text, l.x - 6 * dpr, y);
          c.fillStyle = l.colour;
          c.fillText(l.text, l.x - 6 * dpr, y);
        }
        c.restore();
      },
    },
  };
}

// readoutPlugin shows the values under the pointer: x, then each series' y in its colour.
function readoutPlugin(chart, meta, style) {
  let tip;
  const fx = (x) => (timeFactor(chart.x_unit) ? duration(x * timeFactor(chart.x_unit)) : number(x) + (chart.x_unit === "%" ? "%" : ""));
  const fy = (y) => (timeFactor(chart.y_unit) ? duration(y * timeFactor(chart.y_unit)) : number(y) + (chart.y_unit === "%" ? "%" : ""));
  return {
    hooks: {
      init: (u) => {
        tip = document.createElement("div");
        tip.className = "readout";
        tip.setAttribute("aria-hidden", "true");
        tip.hidden = true;
        u.over.append(tip);
      },
      setCursor: (u) => {
        const i = u.cursor.idx;
        if (i == null || u.cursor.left < 0) { tip.hidden = true; return; }
        // Built node by node: the page's content security policy allows no inline styles.
        const head = document.createElement("b");
        head.textContent = `${chart.x_label} ${fx(u.data[0][i])}`;
        const rows = [head];
        meta.forEach((m, k) => {
          const y = u.data[k + 1][i];
          if (m.band || y == null) return;
          const row = document.createElement("div");
          const name = document.createElement("span");
          name.textContent = m.s.label || m.s.name;
          name.style.color = style(m.s.label).colour;
          row.append(name, " " + fy(y));
          rows.push(row);
        });
        tip.replaceChildren(...rows);
        tip.hidden = false;
        const left = u.cursor.left, right = left > u.over.clientWidth / 2;
        tip.style.left = right ? "" : left + 12 + "px";
        tip.style.right = right ? u.over.clientWidth - left + 12 + "px" : "";
        tip.style.top = "4px";
      },
    },
  };
}
