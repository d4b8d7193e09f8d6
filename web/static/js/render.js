// The one chart renderer. The lab page and its embed view (js/charts.js) and the compare view
// (js/compare.js) hand it a chart's panels — series already styled, axes already chosen — and
// it draws them with uPlot: one layout rule for every panel (equal plot heights, the x axis
// under the last row only), one way to write each unit on axes, readouts and text summaries,
// one legend, one way to bring histograms to a common bin width. The PNG export (js/export.js)
// copies what it drew.
import uPlot from "../vendor/uPlot.esm.js";
import { sig, duration, durationUnit, number, group } from "./format.js";
import { ink } from "./palette.js";

const FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
// Tick steps for duration axes (milliseconds): whole seconds, minutes and hours.
// Past a day, whole days, weeks and then 1-2-5 multiples of 100 days: a week-long run, or a
// histogram running to days at a cap of hours, keeps its tick labels.
const DAY = 864e5;
const MS_INCRS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 250, 500,
  1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 108e5, 216e5, 432e5, DAY,
  2 * DAY, 7 * DAY, 14 * DAY, 28 * DAY, 56 * DAY, ...[1, 2, 5, 10, 20, 50, 100, 200, 500].map((k) => k * 100 * DAY)];
const INT_INCRS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1e3, 2e3, 2500, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6];
// Units (lab.Unit) that are durations, in milliseconds.
const TIME_UNITS = { "µs": 1e-3, ms: 1, s: 1e3 };
export const timeFactor = (unit) => TIME_UNITS[unit] || 0;

// format returns how a number of unit is written for people: durations in their largest unit,
// percentages and bytes with their sign, other numbers compactly.
export function format(unit) {
  const f = timeFactor(unit);
  if (f) return (v) => duration(v * f);
  if (unit === "%") return (v) => number(v) + "%";
  if (unit === "B") return (v) => group(v) + " B";
  return (v) => number(v);
}

// ticks returns uPlot's tick writer for an axis of unit: a duration axis in one unit (per tick
// on a log axis), whatever unit its series carry.
function ticks(unit, log) {
  const f = timeFactor(unit), fmt = format(unit);
  return (u, splits) => {
    if (f && !log) {
      const du = durationUnit(Math.max(...splits.map(Math.abs).filter(isFinite)) * f);
      return splits.map((v) => (v == null ? "" : sig((v * f) / du.per, 3) + " " + du.name));
    }
    if (f) return splits.map((v) => (v == null ? "" : duration(v * f, 2)));
    return splits.map((v) => (v == null ? "" : fmt(v)));
  };
}

const incrs = (whole, unit, log) => {
  const f = log ? 0 : timeFactor(unit);
  return f ? MS_INCRS.map((x) => x / f) : whole ? INT_INCRS : undefined;
};

// The panel layout, one rule for every chart: every plot of a chart has the same height, and
// only a panel with no panel below it (the last row) carries the x axis (its ticks and label)
// below the plot; those above have a stub of ticks. Heights are CSS pixels; z scales them in
// projector view.
const PADDING = [10, 16, 0, 0]; // top, right, bottom, left: fixed, so no panel's plot depends on its axes
const X_AXIS = { size: 36, label: 22 };
const X_STUB = 4;
// Least room between two ticks in projector view (CSS px, before zoom; elsewhere uPlot's 50 and
// 30): a wide histogram does not label every whole number, a tall axis carries no thirty ticks.
const PROJECTED_SPACE = { x: 80, y: 50 };

// Fewest ticks an axis keeps where its labels fit (a small multiple's panel, projected, had
// one y tick, "0", and one x tick at the projector's wider spacing): the least spacing is the
// preferred one unless that could leave fewer, and never less than its labels need. uPlot
// rounds a step up to the next of its increments (up to 2.5 times larger), so an axis of
// length d keeps n ticks with a least spacing of d / (2.5 n).
const MIN_TICKS = { x: 3, y: 2 };

// tickSpace returns uPlot's space functions (least pixels between two ticks) for the x and y
// axes of chart: the preferred spacing (pref, by axis), shrunk on a short axis so that it
// carries MIN_TICKS, but never below what its labels take (x: the widest label of the range's
// ends in font, with a gap as wide as a character; y: the labels' height, fontPx, with a gap).
function tickSpace(chart, pref, font, fontPx) {
  return (axis) => (u, i, min, max, dim) => {
    // A tick's label is a round number about as long as the range's ends rounded to one
    // significant digit ("10 s" on an axis to 19.8 s).
    const ends = [roundDown(max), min < 0 ? roundDown(min) : 0];
    const need = axis === "x" ? Math.max(...ends.map((v) => textWidth(labelAt(chart, "x", min, max, v), font))) + fontPx : fontPx * 1.5;
    return Math.max(need, Math.min(pref[axis], dim / (2.5 * MIN_TICKS[axis])));
  };
}

// roundDown is v rounded towards zero to one significant digit.
function roundDown(v) {
  if (!isFinite(v) || v === 0) return v;
  const p = 10 ** Math.floor(Math.log10(Math.abs(v)));
  return Math.trunc(v / p) * p;
}

// labelAt writes v as a tick on an axis running from min to max.
function labelAt(chart, axis, min, max, v) {
  const unit = axis === "x" ? chart.x_unit : chart.y_unit, log = axis === "x" ? chart.log_x : chart.log_y;
  return ticks(unit, log)(null, [min, v, max])[1] || "";
}

// lastXLabel is the width, in font, of the x axis's label at the end of range r.
function lastXLabel(chart, r, font) {
  if (!r || !isFinite(r[1])) return 0;
  const [lo, hi] = logSafe(r, chart.log_x);
  return textWidth(labelAt(chart, "x", lo, hi, hi), font);
}

let measurer;
// textWidth is the width of text in font, CSS pixels.
function textWidth(text, font) {
  measurer ??= document.createElement("canvas").getContext("2d");
  measurer.font = font;
  return measurer.measureText(text).width;
}

// zoom is how much a projected chart (fill > 0) scales its type, lines and tick spacing: as
// much as projector view scales the page's type (html.presenting sets the root font size for
// the screen), at least 1.35.
export function zoom(fill) {
  if (!fill) return 1;
  const root = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  return Math.max(1.35, root / 16);
}

// plotHeight is the height of each plot of a chart: small multiples are shorter the more
// there are; in projector view (fill, the height the projected chart may take) its rows of
// panels (count) share it, less the x axes under them (axisRows: two when a panel of the row
// above the last has none below it). compact is a phone's pinned chart.
export function plotHeight(chart, count, { fill = 0, compact = false, compare = false, axisRows = 1 } = {}) {
  const z = zoom(fill);
  const axis = xAxisHeight(true, z);
  if (fill) return chart.split ? Math.max(80, Math.floor((fill - axis * axisRows) / Math.max(1, count) - 28 * z - PADDING[0])) : fill - axis - PADDING[0];
  if (chart.split) return compare ? 100 : count > 3 ? 46 : 100;
  return (compare ? 280 : compact ? 190 : 250) - axis - PADDING[0];
}

// xAxisHeight is the height of a panel's x axis: shown true, ticks and label; "ticks", ticks
// only (a small multiple's axis above the last panel: the last names it); false, a stub.
function xAxisHeight(shown, z) {
  if (!shown) return X_STUB;
  return Math.round(X_AXIS.size * z) + (shown === "ticks" ? 0 : Math.round(X_AXIS.label * z));
}

// binWidth is a histogram series' bin width: the one it declares (lab.Series.Width), else its
// x step.
export function binWidth(s) { return s.width > 0 ? s.width : s.x.length >= 2 ? s.x[1] - s.x[0] : 0; }

// commonBins brings histograms to one bin width, so that bars of equal height mean the same
// count: the widest, when every other divides it (the bins add up exactly), else counts per
// unit of x. It returns the series, changed or not, and the width's name for the y unit
// ("50 ms" in "writes per 50 ms"), "" on an axis of plain counts.
export function commonBins(series, xUnit) {
  const widths = series.map(binWidth).filter((w) => w > 0);
  if (!widths.length) return { series, per: "" };
  const W = Math.max(...widths);
  const f = timeFactor(xUnit);
  // A width of a unit is named ("per 50 ms", "per 2%"); bins of plain counts go without.
  const name = (w) => (f ? duration(w * f) : xUnit ? sig(w) + xUnit : "");
  if (widths.every((w) => Math.abs(W / w - Math.round(W / w)) < 1e-6)) {
    if (widths.every((w) => Math.abs(w - W) < 1e-9)) return { series, per: name(W) };
    return { series: series.map((s) => rebin(s, W)), per: name(W) };
  }
  const one = f ? 1 / f : 1; // per millisecond of a duration axis, else per unit
  return { series: series.map((s) => density(s, one)), per: name(one) };
}

// rebin sums a histogram's counts (x ascending) into bins of width W.
const rebinned = new WeakMap(); // series → {W, n, out}
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
  const out = { ...s, x, y: y.map((v) => Number(v.toPrecision(6))), width: W };
  rebinned.set(s, { W, n: s.x.length, out });
  return out;
}

// density turns a histogram's counts into counts per width one of x.
function density(s, one) {
  const w = binWidth(s);
  if (!w) return s;
  return { ...s, y: s.y.map((v) => (v == null ? v : Number(((v * one) / w).toPrecision(6)))), width: w };
}

// extent is the box that holds series (and their bands): bars take their bin's width.
export function extent(chart, series, bands = []) {
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  const bars = chart.kind === "bars";
  const ys = (arr) => {
    for (const y of arr) {
      if (y == null || !isFinite(y) || (chart.log_y && y <= 0)) continue;
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
    }
  };
  for (const s of series) {
    const w = bars ? binWidth(s) || 1 : 0;
    const [left, right] = chart.int_x ? [w / 2, w / 2] : [0, w];
    for (const x of s.x) {
      if (chart.log_x && !(x > 0)) continue; // no place on a log axis
      x0 = Math.min(x0, x - left); x1 = Math.max(x1, x + right);
    }
    ys(s.y);
  }
  if (!bars) for (const b of bands) { ys(b.lo.y); ys(b.hi.y); }
  if (!isFinite(x0)) return {};
  if (!isFinite(y0)) { y0 = chart.log_y ? 1 : 0; y1 = chart.log_y ? 10 : 1; }
  if (x0 === x1) { x0 -= 1; x1 += 1; }
  if (y0 === y1) { y1 = y0 === 0 ? 1 : y0 * 1.1; }
  return { x: [x0, x1], y: [y0, y1 * (chart.log_y ? 1 : 1.05)] };
}

// SQUEEZE is how much of a shared axis a small multiple's data must fill at least (1/SQUEEZE):
// a panel whose data one axis would squeeze further (a strategy done in 2 s beside one that
// runs for an hour) is drawn on an axis of its own, with the panels like it.
export const SQUEEZE = 4;

// axisGroups sorts the panels of a small multiple (their extents) into groups that share an x
// axis: each panel's data fills at least 1/SQUEEZE of its group's axis. It returns each panel's
// group, numbered in the panels' order; panels without data join the first group. On a log
// axis every panel shares one.
export function axisGroups(chart, exts) {
  const out = exts.map(() => -1);
  const span = (e) => e.x[1] - e.x[0];
  const order = exts.map((e, i) => i).filter((i) => exts[i].x);
  if (chart.log_x) return exts.map(() => 0);
  order.sort((a, b) => span(exts[b]) - span(exts[a]) || a - b);
  const groups = []; // {members, x}
  for (const i of order) {
    const e = exts[i];
    const fits = (g) => {
      const x = [Math.min(g.x[0], e.x[0]), Math.max(g.x[1], e.x[1])];
      return [...g.members, i].every((m) => span(exts[m]) * SQUEEZE >= x[1] - x[0]);
    };
    let g = groups.find(fits);
    if (!g) groups.push((g = { members: [], x: [...e.x] }));
    g.members.push(i);
    g.x = [Math.min(g.x[0], e.x[0]), Math.max(g.x[1], e.x[1])];
  }
  // Number the groups in the order their first panel comes.
  const number = new Map();
  for (const [gi, g] of groups.entries()) for (const m of g.members) out[m] = gi;
  const first = out.find((g) => g >= 0) ?? 0;
  return out.map((g) => {
    const k = g < 0 ? first : g;
    if (!number.has(k)) number.set(k, number.size);
    return number.get(k);
  });
}

// merge is the box that holds every extent.
export function merge(exts) {
  const have = exts.filter((e) => e.x);
  if (!have.length) return {};
  return {
    x: [Math.min(...have.map((e) => e.x[0])), Math.max(...have.map((e) => e.x[1]))],
    y: [Math.min(...have.map((e) => e.y[0])), Math.max(...have.map((e) => e.y[1]))],
  };
}

// axes is the range to draw: y from zero unless the axis is logarithmic, and log axes on
// whole decades.
export function axes(chart, ext) {
  const y = [...ext.y];
  if (!chart.log_y) y[0] = Math.min(0, y[0]);
  return { x: [...ext.x], y };
}

function logSafe(y, log) {
  if (!log) return y;
  const lo = Math.max(y[0], 1e-9), hi = Math.max(y[1], lo * 10);
  return [10 ** Math.floor(Math.log10(lo)), 10 ** Math.ceil(Math.log10(hi))];
}

// Renderer draws charts into their sections. Its plots map (chart id + "\u0000" + panel key →
// {u, holder, …}) is what the browser tests read.
export class Renderer {
  constructor() {
    this.plots = new Map();
    this.fill = 0; // projector view: the height the projected chart fills, else 0
  }

  // draw draws a chart's panels into box, making, updating or removing uPlot instances:
  //   panels   [{key, title, name, series: [{name, label, x, y, colour, dash, style}], bands: [{of, lo, hi, colour}]}]
  //            title is shown above the plot (small multiples), name is its accessible name
  //   columns  panels per row (compare's A and B side by side); a panel with none below it has the x axis
  //   range    (panel index) → {x, y}: the axes, chosen by the caller (shared or not)
  //   width    of each panel; height: of each plot (plotHeight)
  //   title    the chart's title, filled (js/titles.js), for the text summaries
  //   yUnit    what y counts, as written in the summaries ("writes per 50 ms")
  //   yLabel   the y axis's label (single charts), mark: {value, text} or null
  //   describe whether to write the text summaries now (final numbers), else only the first time
  //   lineLabels, points: direct labels at the lines' ends; points on short lines
  //   xAxis    (panel index) → whether the panel carries its x axis's ticks and label (default:
  //            when no panel lies below it)
  draw(chart, box, m) {
    const keep = new Set();
    const xAxis = m.xAxis || ((pi) => pi + m.columns >= m.panels.length);
    m.panels.forEach((panel, pi) => {
      const key = chart.id + "\u0000" + panel.key;
      keep.add(key);
      this.panel(chart, box, key, panel, xAxis(pi), m, pi);
    });
    for (const [key, p] of this.plots) {
      if (key.startsWith(chart.id + "\u0000") && !keep.has(key)) {
        p.u.destroy();
        p.holder.remove();
        this.plots.delete(key);
      }
    }
    // Keep the panels in the order given, after whatever the box holds first (a header row).
    const holders = m.panels.map((p) => this.plots.get(chart.id + "\u0000" + p.key)?.holder).filter(Boolean);
    const skip = box.children.length - holders.length;
    holders.forEach((h, i) => { const at = box.children[skip + i]; if (at !== h) box.insertBefore(h, at || null); });
  }

  panel(chart, box, key, panel, xAxis, m, pi) {
    // Only the last row of panels names the x axis; an axis above it shows its ticks alone.
    if (xAxis && pi + (m.columns || 1) < (m.panels?.length || 1)) xAxis = "ticks";
    const series = panel.series;
    const bands = chart.kind === "bars" ? [] : panel.bands || [];
    // One x for all series: theirs when they share it (the common case, and cheap), else the
    // union with gaps.
    const shared = series.every((s) => sameX(s.x, series[0].x));
    const xs = shared ? series[0]?.x || [] : unionX(series);
    const cols = series.map((s) => (shared ? s.y : align(xs, s)));
    const bandOpts = [];
    for (const b of bands) {
      cols.push(sameX(b.hi.x, xs) ? b.hi.y : align(xs, b.hi), sameX(b.lo.x, xs) ? b.lo.y : align(xs, b.lo));
      bandOpts.push({ series: [cols.length - 1, cols.length], fill: b.colour + "26" });
    }
    const data = [xs, ...cols];
    const z = zoom(this.fill);
    const height = m.height + PADDING[0] + PADDING[2] + xAxisHeight(xAxis, z);
    // A new instance when what it draws changes (names, colours, dashes, the axis): uPlot
    // keeps series' styles from its creation.
    const sigKey = [chart.kind, xAxis, this.fill, ...series.map((s) => `${s.name}|${s.label}|${s.colour}|${(s.dash || []).join(",")}|${!!s.marks}`),
      ...bands.map((b) => b.of + "|" + b.colour)].join("\u0001");
    let p = this.plots.get(key);
    if (p && p.sig !== sigKey) {
      p.u.destroy();
      p.holder.remove();
      this.plots.delete(key);
      p = null;
    }
    const ctx = { r: m.range(pi), mark: m.mark, widths: series.map(binWidth) };
    if (!p) {
      const holder = document.createElement("div");
      holder.className = "plot";
      holder.setAttribute("role", "img");
      const title = document.createElement("p");
      title.className = "panel-title";
      if (panel.title !== undefined) holder.append(title);
      const desc = document.createElement("p");
      desc.className = "sr-only";
      desc.id = `desc-${chart.id}-${pi}-${Math.random().toString(36).slice(2, 8)}`;
      holder.append(desc);
      holder.setAttribute("aria-describedby", desc.id);
      box.append(holder);
      const opts = this.options(chart, series, bandOpts, m, m.width, height, xAxis, ctx);
      const u = new uPlot(opts, data, holder);
      p = { u, sig: sigKey, holder, title, desc, ctx };
      this.plots.set(key, p);
    } else {
      const resized = p.u.width !== m.width || p.u.height !== height;
      if (resized || !sameRange(p.ctx.r, ctx.r) || !sameMark(p.ctx.mark, ctx.mark) || !sameX(p.ctx.widths, ctx.widths) || !sameData(p.data, data)) {
        Object.assign(p.ctx, ctx);
        if (resized) p.u.setSize({ width: m.width, height });
        p.u.setData(data);
      } // else what it shows is what it would draw: a drag's panel that does not depend on the slider
    }
    p.data = data.map((col) => col.slice()); // a copy: the results grow their series in place
    const set = (el, text) => { if (el.textContent !== text) el.textContent = text; };
    if (panel.title !== undefined) set(p.title, panel.title);
    if (p.holder.getAttribute("aria-label") !== panel.name) p.holder.setAttribute("aria-label", panel.name);
    const markText = m.mark ? m.mark.text : ""; // the marked value, for tests and tools
    if ((p.holder.dataset.mark ?? "") !== markText) p.holder.dataset.mark = markText;
    if (m.describe || !p.desc.textContent) set(p.desc, describe(chart, m.title, series, m.yUnit));
  }

  options(chart, series, bands, m, width, height, xAxis, ctx) {
    const bars = chart.kind === "bars";
    // Projector view: larger type, thicker lines and wider-spaced ticks, for the back of the room.
    const zf = zoom(this.fill);
    ctx.zoom = zf;
    const opts = [{ label: chart.x_label }];
    for (const s of series) {
      opts.push({
        label: s.label || s.name,
        stroke: s.colour,
        fill: bars ? s.colour + "55" : undefined,
        width: (bars ? 1 : 2.25) * zf,
        dash: bars ? undefined : s.dash,
        spanGaps: true,
        // Histograms of whole values (IntX) centre each bar on its value; others start it there.
        paths: bars ? barsPath(ctx, !!chart.int_x) : chart.kind === "steps" ? uPlot.paths.stepped({ align: 1 }) : undefined,
        // Points on short lines; hollow marks, a dozen along the line, on a series that asks
        // for them (compare's B).
        points: s.marks && !bars
          ? { show: true, size: 8 * zf, width: 1.5 * zf, stroke: s.colour, fill: ink().bg, filter: (u, si) => marksAlong(u.data[si]) }
          : { show: !bars && !!m.points, size: 5 * zf, fill: s.colour, filter: (u, si, show) => (show && u.data[0].length <= 40 ? null : []) },
      });
    }
    for (const b of bands) {
      for (const bound of ["hi", "lo"]) opts.push({ label: bound, stroke: "#0000", width: 0, points: { show: false }, spanGaps: true });
    }
    const { fg, grid } = ink();
    const z = (n) => Math.round(n * zf);
    const font = `${z(14)}px ${FONT_FAMILY}`, labelFont = `bold ${z(14)}px ${FONT_FAMILY}`;
    const space = tickSpace(chart, this.fill ? { x: z(PROJECTED_SPACE.x), y: z(PROJECTED_SPACE.y) } : { x: 50, y: 30 }, font, z(14));
    const axisInk = { stroke: fg, grid: { stroke: grid }, ticks: { stroke: grid } };
    const xIncrs = incrs(chart.int_x, chart.x_unit, chart.log_x);
    const yIncrs = incrs(chart.int_y, chart.y_unit, chart.log_y);
    return {
      width, height,
      // Room on the right for half the last x tick's label, which sits on the plot's edge
      // ("30 s", "5 min" were clipped), in every panel (with its x axis or not) so that panels
      // on one x range line up.
      padding: [PADDING[0], () => Math.max(PADDING[1], Math.ceil(lastXLabel(chart, ctx.r.x, font) / 2) + 4), PADDING[2], PADDING[3]],
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: {
        x: { time: false, distr: chart.log_x ? 3 : 1, range: () => logSafe(ctx.r.x, chart.log_x) },
        y: { distr: chart.log_y ? 3 : 1, range: () => logSafe(ctx.r.y, chart.log_y) },
      },
      axes: [
        xAxis
          ? { ...axisInk, label: xAxis === "ticks" ? undefined : chart.x_label, font, labelFont, values: ticks(chart.x_unit, chart.log_x), incrs: xIncrs, space: space("x"), size: z(X_AXIS.size), labelSize: xAxis === "ticks" ? 0 : z(X_AXIS.label) }
          : { ...axisInk, font, values: (u, splits) => splits.map(() => ""), incrs: xIncrs, space: space("x"), size: X_STUB, ticks: { show: false } },
        m.yLabel
          ? { ...axisInk, label: m.yLabel, font, labelFont, values: ticks(chart.y_unit, chart.log_y), incrs: yIncrs, space: space("y"), size: z(70), labelSize: z(22) }
          : { ...axisInk, font, values: ticks(chart.y_unit, chart.log_y), incrs: yIncrs, space: space("y"), size: z(60) },
      ],
      series: opts,
      bands,
      // The lines' labels first: the mark's label finds a place clear of them.
      plugins: [labelsPlugin(chart, series, m.lineLabels, zf, ctx), markPlugin(ctx), readoutPlugin(chart, series)],
    };
  }

  // legend lists items ({label, colour, dash} or {text}) with a swatch of their colour and dash,
  // a box for histograms.
  legend(chart, el, items) {
    if (!el) return;
    const sig = JSON.stringify(items);
    if (el.dataset.sig === sig) return;
    el.dataset.sig = sig;
    el.replaceChildren(...items.map((it) => {
      const li = document.createElement("li");
      if (it.text) {
        li.className = "legend-note";
        li.textContent = it.text;
        return li;
      }
      const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
      svg.setAttribute("width", "28");
      svg.setAttribute("height", "10");
      svg.setAttribute("aria-hidden", "true");
      const mark = document.createElementNS("http://www.w3.org/2000/svg", chart.kind === "bars" ? "rect" : "line");
      const attrs = chart.kind === "bars"
        ? { x: 6, y: 0, width: 16, height: 10, fill: it.colour + "55", stroke: it.colour }
        : { x1: 1, y1: 5, x2: 27, y2: 5, stroke: it.colour, "stroke-width": 3, "stroke-dasharray": (it.dash || []).join(" ") };
      for (const [k, v] of Object.entries(attrs)) mark.setAttribute(k, v);
      svg.append(mark);
      li.append(svg, it.label);
      return li;
    }));
  }

  // destroyAll removes every plot (a theme or size change draws them afresh).
  destroyAll() {
    for (const p of this.plots.values()) { p.u.destroy(); p.holder.remove(); }
    this.plots.clear();
    for (const el of document.querySelectorAll(".chart .legend")) delete el.dataset.sig;
  }
}

// marksAlong returns the indices of about a dozen points of ys (non-null), evenly spread.
function marksAlong(ys) {
  const at = [];
  for (let i = 0; i < ys.length; i++) if (ys[i] != null) at.push(i);
  if (at.length <= 12) return at;
  const step = (at.length - 1) / 11;
  return Array.from({ length: 12 }, (_, k) => at[Math.round(k * step)]);
}

// barsPath draws a histogram's points as bars exactly as wide as their bins (ctx.widths, by
// series, in x's unit): from x to x + width, or centred on x for whole values. A histogram of
// one bin is one narrow bar, never a block across the axis (as bars sized by the spacing of
// their points would be).
function barsPath(ctx, centred) {
  return (u, si, i0, i1) => {
    const xs = u.data[0], ys = u.data[si];
    const fallback = xs.length >= 2 ? Math.min(...xs.slice(1).map((x, i) => x - xs[i]).filter((d) => d > 0)) : 1;
    const w = ctx.widths?.[si - 1] > 0 ? ctx.widths[si - 1] : isFinite(fallback) ? fallback : 1;
    const path = new Path2D();
    const { min, max } = u.scales.y;
    const base = u.valToPos(Math.min(Math.max(0, min), max), "y", true);
    for (let i = i0; i <= i1; i++) {
      const y = ys[i];
      if (y == null || !isFinite(y)) continue;
      const from = centred ? xs[i] - w / 2 : xs[i];
      const l = u.valToPos(from, "x", true), r = u.valToPos(from + w, "x", true);
      const top = u.valToPos(y, "y", true);
      path.rect(l, Math.min(top, base), Math.max(r - l, 1), Math.abs(base - top));
    }
    return { stroke: path, fill: path, clip: null, band: null, gaps: null, flags: 0 };
  };
}

function sameX(a, b) {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// unionX returns the distinct x values of the series, in increasing order.
export function unionX(series) {
  const n = series.reduce((a, s) => a + s.x.length, 0);
  const all = new Float64Array(n);
  let k = 0;
  for (const s of series) for (const x of s.x) {
    if (typeof x !== "number" || !isFinite(x)) return [...new Set(series.flatMap((t) => t.x))].sort((a, b) => a - b);
    all[k++] = x;
  }
  all.sort(); // numeric, and much faster than an array's sort with a comparator
  const out = [];
  for (let i = 0; i < n; i++) if (i === 0 || all[i] !== all[i - 1]) out.push(all[i]);
  return out;
}

// align returns s's y values at xs (xs holds s's x values), null where s has none; at an x s
// lists twice, its last y. Both in increasing order (as series are), one walk; else a lookup.
export function align(xs, s) {
  const sx = s.x;
  if (!increasing(sx) || !increasing(xs)) {
    const m = new Map(sx.map((x, i) => [x, s.y[i]]));
    return xs.map((x) => (m.has(x) ? m.get(x) : null));
  }
  const out = new Array(xs.length).fill(null);
  let i = 0;
  for (let j = 0; j < sx.length; j++) {
    while (i < xs.length && xs[i] < sx[j]) i++;
    if (i < xs.length && xs[i] === sx[j]) out[i] = s.y[j];
  }
  return out;
}

// increasing reports whether a holds finite numbers only, none less than the one before.
function increasing(a) {
  for (let j = 0; j < a.length; j++) if (!Number.isFinite(a[j]) || (j > 0 && !(a[j - 1] <= a[j]))) return false;
  return true;
}

// describe is a plot's short text summary for screen readers.
function describe(chart, title, series, yUnit) {
  const fx = format(chart.x_unit), fy = format(chart.y_unit);
  const parts = series.map((s) => {
    const label = s.label || s.name;
    const pts = s.x.map((x, i) => [x, s.y[i]]).filter((p) => p[1] != null);
    if (!pts.length) return `${label}: no data`;
    const peak = pts.reduce((a, b) => (b[1] > a[1] ? b : a));
    if (chart.kind === "bars") {
      const total = pts.reduce((a, p) => a + p[1], 0);
      return `${label}: ${number(total)} in all, most (${number(peak[1])}) at ${fx(peak[0])}, last at ${fx(pts[pts.length - 1][0])}`;
    }
    const a = pts[0], b = pts[pts.length - 1];
    return `${label}: ${fy(a[1])} at ${chart.x_label} ${fx(a[0])}, ${fy(b[1])} at ${fx(b[0])}`;
  });
  return `${title}, ${chart.y_label}${yUnit && yUnit !== chart.y_label ? " (" + yUnit + ")" : ""} against ${chart.x_label}. ${parts.join("; ")}.`;
}

// markPlugin draws a chosen value on the x axis (the chart's Mark parameter) as a labelled
// dashed line.
function markPlugin(ctx) {
  return {
    hooks: {
      draw: (u) => {
        const m = ctx.mark;
        ctx.markBox = null;
        if (!m || !isFinite(m.value)) return;
        const cx = u.valToPos(m.value, "x", true);
        const c = u.ctx, dpr = devicePixelRatio;
        c.save();
        const { fg, mark } = ink();
        c.strokeStyle = mark;
        c.setLineDash([4 * dpr, 4 * dpr]);
        c.lineWidth = 1.5 * dpr * (ctx.zoom || 1);
        c.beginPath();
        c.moveTo(cx, u.bbox.top);
        c.lineTo(cx, u.bbox.top + u.bbox.height);
        c.stroke();
        c.setLineDash([]);
        c.fillStyle = fg;
        c.font = `${Math.round(13 * (ctx.zoom || 1)) * dpr}px system-ui, sans-serif`;
        const w = c.measureText(m.text).width, h = Math.round(13 * (ctx.zoom || 1)) * dpr;
        // Beside the line at the plot's top, else its foot, on the side with room, clear of
        // the lines' labels (drawn before it): a phone's "Clients = 100" lay over "No backoff".
        const { left: bl, top: bt, width: bw, height: bh } = u.bbox;
        const spots = [];
        for (const ty of [bt + 1.1 * h, bt + bh - 0.4 * h]) {
          for (const right of [true, false]) {
            const l = right ? cx + 4 * dpr : cx - 4 * dpr - w;
            if (l >= bl && l + w <= bl + bw) spots.push({ l, r: l + w, t: ty - h, b: ty + 0.25 * h, base: ty });
          }
        }
        const clear = (s) => !(ctx.labelRects || []).some((b) => s.l < b.r && b.l < s.r && s.t < b.b && b.t < s.b);
        const at = spots.find(clear) || spots[0] || { l: cx + 4 * dpr, r: cx + 4 * dpr + w, t: bt, b: bt + h, base: bt + 1.1 * h };
        c.textAlign = "left";
        c.strokeStyle = ink().bg;
        c.lineWidth = 3 * dpr;
        c.strokeText(m.text, at.l, at.base);
        c.fillText(m.text, at.l, at.base);
        c.restore();
        // Where its text lies, CSS pixels, for the browser tests.
        ctx.markBox = { text: m.text, left: at.l / dpr, right: at.r / dpr, top: at.t / dpr, bottom: at.b / dpr };
      },
    },
  };
}

// labelsPlugin writes each line's name by its right end, so lines can be told apart without
// the legend or colour. Where lines meet, their labels would pile up on one another, on the
// chart's mark label or over another line ("Full jitter" over the decorrelated line, a phone's
// "Clients = 100" over "No backoff"): placeLabels keeps them apart and off other lines where it
// can, and the mark's label (markPlugin, drawn after) keeps clear of them. What they placed
// (ctx.labelBoxes, ctx.markBox: CSS pixels within the canvas) is what the browser tests check.
function labelsPlugin(chart, series, on, zf, ctx) {
  return {
    hooks: {
      draw: (u) => {
        ctx.labelBoxes = [];
        ctx.labelRects = []; // the same, canvas pixels, for the mark's label to keep clear of
        if (!on || chart.kind === "bars") return;
        const dpr = devicePixelRatio, c = u.ctx;
        c.save();
        c.font = `bold ${Math.round(12 * zf) * dpr}px system-ui, sans-serif`;
        const labels = [];
        series.forEach((s, i) => {
          const ys = u.data[i + 1];
          let k = ys.length - 1;
          while (k >= 0 && ys[k] == null) k--;
          if (k < 0) return;
          const text = s.label || s.name;
          labels.push({ i: i + 1, text, colour: s.colour, w: c.measureText(text).width, x: u.valToPos(u.data[0][k], "x", true), y: u.valToPos(ys[k], "y", true) });
        });
        const placed = placeLabels(u, labels, Math.round(12 * zf) * dpr);
        c.textAlign = "left";
        c.lineWidth = 3 * dpr;
        c.strokeStyle = ink().bg;
        for (const l of placed) {
          c.strokeText(l.text, l.l, l.base);
          c.fillStyle = l.colour;
          c.fillText(l.text, l.l, l.base);
          ctx.labelBoxes.push({ text: l.text, left: l.l / dpr, top: l.t / dpr, right: l.r / dpr, bottom: l.b / dpr, crosses: l.crosses });
          ctx.labelRects.push(l);
        }
        c.restore();
      },
    },
  };
}

// placeLabels places labels ({i: the series' column, text, w: width, x, y: its line's end},
// canvas pixels) in font px high type within the plot, right-aligned by their lines' ends and
// in their order (top to bottom): each at its line's end unless that overlaps its neighbour,
// when the crowded ones spread evenly about their lines' mean, kept within the plot (the
// labels once stacked downwards and piled up at the plot's foot). A label that lies over
// another line moves left along the same height, when that crosses fewer lines, overlaps no
// other label and keeps it by its own line. Labels that cannot all fit one above the other are left out (the legend
// names the lines). It returns the labels with their boxes (l, t, r, b), their text's baseline
// and how many other lines each crosses.
function placeLabels(u, labels, font) {
  const { left, top, width, height } = u.bbox;
  const h = font * 1.25, pad = font * 0.4;
  if (!labels.length || labels.length * h > height) return [];
  labels.sort((a, b) => a.y - b.y);
  // Clusters of labels that touch, each a run of h-high slots from its top.
  const clusters = [];
  for (const l of labels) {
    clusters.push({ items: [l], top: l.y - h / 2 });
    for (;;) {
      const c = clusters[clusters.length - 1];
      c.top = Math.min(Math.max(c.items.reduce((a, it) => a + it.y, 0) / c.items.length - (c.items.length * h) / 2, top), top + height - c.items.length * h);
      const prev = clusters[clusters.length - 2];
      if (!prev || prev.top + prev.items.length * h <= c.top) break;
      prev.items.push(...c.items);
      clusters.pop();
    }
  }
  const overlaps = (a, b) => a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b;
  const placed = [];
  for (const c of clusters) {
    c.items.forEach((l, k) => {
      const t = c.top + k * h, r = Math.min(l.x - pad, left + width);
      placed.push({ ...l, l: r - l.w, r, t, b: t + h });
    });
  }
  for (const p of placed) {
    p.crosses = crossings(u, p.i, p);
    for (let shift = 1; shift <= 2 && p.crosses > 0; shift++) {
      const r = Math.min(p.x - pad, left + width) - shift * (p.w + 2 * pad);
      const box = { l: r - p.w, r, t: p.t, b: p.b };
      if (box.l < left || placed.some((q) => q !== p && overlaps(q, box))) break;
      // Still by its own line: the line passes within a label's height of the box's middle.
      const own = yAt(u.data[0], u.data[p.i], u.posToVal((box.l + box.r) / 2, "x", true));
      if (own == null || Math.abs(u.valToPos(own, "y", true) - (box.t + box.b) / 2) > h) continue;
      const n = crossings(u, p.i, box);
      if (n < p.crosses) Object.assign(p, box, { crosses: n });
    }
    p.base = p.b - h * 0.25;
  }
  return placed;
}

// crossings counts the lines, other than column own, that pass through box (canvas pixels).
function crossings(u, own, box) {
  let n = 0;
  const xs = u.data[0];
  for (let si = 1; si < u.data.length; si++) {
    if (si === own || !u.series[si] || !u.series[si].show || !u.series[si].width) continue;
    const ys = u.data[si];
    for (let k = 0; k <= 6; k++) {
      const px = box.l + ((box.r - box.l) * k) / 6;
      const y = yAt(xs, ys, u.posToVal(px, "x", true));
      if (y == null) continue;
      const py = u.valToPos(y, "y", true);
      if (py >= box.t && py <= box.b) { n++; break; }
    }
  }
  return n;
}

// yAt is the line's y at x, interpolated between its points (null outside them or at a gap).
function yAt(xs, ys, x) {
  let lo = 0, hi = xs.length - 1;
  if (hi < 0 || x < xs[0] || x > xs[hi]) return null;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] <= x) lo = mid; else hi = mid;
  }
  const a = ys[lo], b = ys[hi];
  if (a == null || b == null) return a ?? b ?? null;
  return xs[hi] === xs[lo] ? a : a + ((b - a) * (x - xs[lo])) / (xs[hi] - xs[lo]);
}

// readoutPlugin shows the values under the pointer: x, then each series' y in its colour.
function readoutPlugin(chart, series) {
  let tip;
  const fx = format(chart.x_unit), fy = format(chart.y_unit);
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
        series.forEach((s, k) => {
          const y = u.data[k + 1][i];
          if (y == null) return;
          const row = document.createElement("div");
          const name = document.createElement("span");
          name.textContent = s.label || s.name;
          name.style.color = s.colour;
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

// sweepOffNote shows, in a chart's section, that the range parameter p its series need
// (chart.needs, a sweep) is off in some of the scenarios drawn there (sides: the lab page's
// one, "" by name, or compare's A and B), with a button for each that turns it on with the
// parameter's declared range (p.on); it hides the note when none has it off. A follower's
// buttons (disabled) do nothing: a room shows the presenter's scenario. It reports whether
// the note shows.
export function sweepOffNote(section, chart, p, sides) {
  const off = p ? sides.filter((s) => s.off) : [];
  let el = section?.querySelector(".off-note");
  if (!off.length || !section) {
    if (el) el.hidden = true;
    return false;
  }
  const key = off.map((s) => s.name).join(",");
  if (el && el.dataset.sides !== key) {
    el.remove();
    el = null;
  }
  if (!el) {
    el = document.createElement("p");
    el.className = "off-note";
    el.dataset.sides = key;
    el.setAttribute("role", "note");
    const [from, to] = p.on.split(":");
    const fx = format(chart.x_unit);
    const named = off.filter((s) => s.name).map((s) => s.name);
    el.append(named.length ? `Sweep off in ${named.join(" and ")} — ` : "Sweep off — ");
    off.forEach((s, i) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = `turn on “${p.label}”` + (s.name ? ` in ${s.name}` : "");
      button.addEventListener("click", () => s.turnOn());
      if (i) el.append(" ");
      el.append(button);
    });
    el.append(` to draw ${chart.x_label} from ${fx(Number(from))} to ${fx(Number(to))} (${p.name}=${p.on}).`);
    section.querySelector(".plots").before(el);
  }
  el.hidden = false;
  off.forEach((s, i) => { el.querySelectorAll("button")[i].disabled = !!s.disabled; });
  return true;
}

// emptyNote marks a chart's or table's section (class "empty") as having nothing to show for
// the scenario, its numbers final, and says so in place of an empty frame or a table of
// headers, with the view's word on why (lab.Chart.Empty, lab.Table.Empty); on false it takes
// the mark and the note away. The stylesheet hides what would be empty and the buttons that
// would export or project it.
export function emptyNote(section, why, on) {
  if (!section) return;
  let el = section.querySelector(":scope > .empty-note");
  if (section.classList.contains("empty") !== on) section.classList.toggle("empty", on);
  if (!on) {
    if (el) el.hidden = true;
    return;
  }
  if (!el) {
    el = document.createElement("p");
    el.className = "empty-note";
    el.setAttribute("role", "note");
    const at = section.querySelector(":scope > .plots, :scope > .scroll, :scope > .cmp-pair");
    if (at) at.before(el);
    else section.append(el);
  }
  const text = "Nothing to show for this scenario" + (why ? ": " + why : ".");
  if (el.textContent !== text) el.textContent = text;
  el.hidden = false;
}

// sameData reports whether two uPlot data tables ([xs, ...columns]) hold the same numbers (a,
// the copy a panel keeps of what it drew, may be undefined).
function sameData(a, b) {
  if (!a || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i], y = b[i];
    if (!x || !y || x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
  }
  return true;
}

// sameRange reports whether two panels' axes ({x: [lo, hi], y: [lo, hi]}) are the same.
function sameRange(a, b) {
  return a === b || (!!a && !!b && a.x[0] === b.x[0] && a.x[1] === b.x[1] && a.y[0] === b.y[0] && a.y[1] === b.y[1]);
}

// sameMark reports whether two marks ({value, text} or null) are the same.
function sameMark(a, b) {
  return a === b || (!!a && !!b && a.value === b.value && a.text === b.text);
}
