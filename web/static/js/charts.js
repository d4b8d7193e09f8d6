// The lab page's charts, from the lab's view alone, drawn by the one renderer (js/render.js).
// Each chart keeps its series in the view key's order and style (colour and dash), so that
// "the second line" means the same line for everyone; small multiples (Split) keep that order
// and share one x axis, y axis and bin width by default; axes only grow while a run refines
// or a slider moves, and fit the data again once the scenario asked for is final. Charts are
// named for screen readers and carry a short text summary of what they show.
import { Renderer, plotHeight, commonBins, extent, merge, axes, format, sweepOffNote, axisGroups, emptyNote } from "./render.js";
import { paramValue, number, labeller } from "./format.js";
import { pictureValues } from "./status.js";
import { fillTitle } from "./titles.js";
import { parseDuration } from "./params.js";

export class Charts {
  constructor(state, results, style) {
    this.state = state;
    this.results = results;
    this.style = style; // (series, the chart's series) → {index, colour, dash}
    this.label = labeller(state.spec); // an option's name (a series' label, a panel) → what people read
    this.renderer = new Renderer();
    this.plots = this.renderer.plots; // chart id + "\u0000" + panel → {u, holder, …}
    this.ranges = new Map(); // chart id (or id/panel) → {x, y}: the axes as far as they have grown
    this.byId = new Map(state.spec.view.charts.map((c) => [c.id, c]));
    this.projected = ""; // in projector view, the id of the chart projected
    this.fill = 0; // and the height it fills (px)
    // Widths of the charts' boxes (a panel's, for small multiples), read when the layout is
    // fresh: reading layout while drawing would force the browser to lay out the page again
    // at every frame.
    this.widths = new Map();
    this.columns = new Map(); // and how many columns of panels they lay out
    this.observer = new ResizeObserver((entries) => {
      for (const e of entries) {
        const id = e.target.closest(".chart")?.dataset.chart;
        const chart = id && this.byId.get(id);
        if (!chart) continue;
        const w = Math.max(200, Math.floor(chart.split ? panelWidth(e.target) : e.contentRect.width));
        const cols = chart.split ? gridColumns(e.target) : 1;
        if (this.widths.get(id) === w && this.columns.get(id) === cols) continue;
        this.widths.set(id, w);
        this.columns.set(id, cols);
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

  // project makes chart id the projected one, h pixels tall ("" and 0: none), and redraws.
  project(id, h) {
    if (this.fill === h && this.projected === id) return;
    this.fill = h;
    this.projected = id;
    this.restyle();
  }

  // restyle draws every chart afresh in the colours of the theme now on show.
  restyle() {
    this.renderer.destroyAll();
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

  // panels returns the chart's panels in a stable order, each series styled:
  // [{key, title, series: [...]}].
  panels(chart) {
    const list = this.results.ofChart(chart.id);
    const styled = list.map((s) => ({ s, st: this.style(s, list) }));
    styled.sort((a, b) => a.st.index - b.st.index || (a.s.name < b.s.name ? -1 : a.s.name > b.s.name ? 1 : 0));
    const item = ({ s, st }) => ({ ...s, label: this.label(s.label || s.name, chart.id), colour: st.colour, dash: st.dash, ref: !!st.ref, option: s.label });
    if (!chart.split) return styled.length ? [{ key: "", title: undefined, series: styled.map(item) }] : [];
    const everywhere = styled.filter((x) => x.s.group === "*");
    const groups = new Map();
    for (const x of styled) {
      if (x.s.group === "*") continue;
      const g = x.s.group || x.s.label || x.s.name;
      if (!groups.has(g)) groups.set(g, []);
      groups.get(g).push(x);
    }
    const rank = (g) => this.style({ label: g, chart: chart.id }, []).index;
    return [...groups.entries()]
      .sort((a, b) => rank(a[0]) - rank(b[0]) || (a[0] < b[0] ? -1 : 1))
      .map(([g, series]) => ({ key: g, title: this.label(g, chart.id), series: [...series, ...everywhere].map(item) }));
  }

  draw(id) {
    const chart = this.byId.get(id);
    const box = this.box(id);
    if (!chart || !box) return;
    const bars = chart.kind === "bars";
    const shared = chart.split && this.state.view.sharedAxes;
    let panels = this.panels(chart);

    // Small multiples on shared axes share them where their data fill at least a part of them
    // (render.js axisGroups): a panel one axis would squeeze into a sliver is drawn with the
    // panels like it on an axis of their own. Histograms of a group share one bin width, named
    // in their titles; the others keep their own.
    const group = shared ? axisGroups(chart, panels.map((p) => extent(chart, p.series))) : panels.map((p, i) => i);
    const per = panels.map(() => "");
    if (bars && chart.split) {
      for (const g of new Set(group)) {
        const members = panels.map((p, i) => i).filter((i) => group[i] === g);
        const all = members.flatMap((i) => panels[i].series);
        const bins = commonBins(all, chart.x_unit);
        const to = new Map(all.map((s, i) => [s, bins.series[i]]));
        for (const i of members) {
          panels[i] = { ...panels[i], series: panels[i].series.map((s) => to.get(s)) };
          per[i] = bins.per;
        }
      }
    }
    for (const p of panels) {
      p.bands = [];
      if (bars) continue;
      for (const s of p.series) {
        const b = this.results.bandsOf(s.name);
        if (b.lo && b.hi) p.bands.push({ of: s.name, lo: b.lo, hi: b.hi, colour: s.colour });
      }
    }

    const values = this.state.run.picture ? pictureValues(this.state, this.state.run.picture) : this.state.scenario;
    const off = this.offNote(chart, values);
    // Final numbers that give the chart nothing to draw: a note saying why, not an empty frame.
    const empty = !off && this.settled() && !panels.some((p) => p.series.some((s) => s.x.length > 0));
    emptyNote(document.getElementById(`chart-${chart.id}`), chart.empty, empty);
    box.hidden = (off && !panels.length) || empty; // the note, not an empty frame
    box.closest(".chart").classList.toggle("bare", box.hidden); // and no button to export or project it
    const title = fillTitle(chart.title, this.state.params, values);
    const markP = chart.mark ? this.state.params.get(chart.mark) : null;
    const markV = chart.mark_value ? this.results.summary[chart.mark_value] : undefined; // a derived value, in x's unit
    const mark = markP ? (markP.kind === "duration" ? parseDuration(values[chart.mark]) : Number(values[chart.mark])) // durations in ms
      : typeof markV === "number" ? markV : NaN;
    const markText = markP ? `${markP.label} = ${paramValue(markP, values[chart.mark])}` : `${chart.mark_label} = ${format(chart.x_unit)(mark)}`;

    // Extents of the data, per panel, per group of panels sharing an axis, and over all panels.
    const extents = panels.map((p) => extent(chart, p.series, p.bands));
    const all = merge(extents);
    const groupExt = new Map([...new Set(group)].map((g) => [g, merge(extents.filter((e, i) => group[i] === g))]));
    const fit = this.settled();
    const note = document.querySelector(`#chart-${CSS.escape(id)} .chart-note`);
    let noteText = "";
    if (isFinite(mark) && all.x && (mark < all.x[0] || mark > all.x[1])) {
      noteText = `Computed for ${chart.x_label} from ${number(all.x[0])} to ${number(all.x[1])}: the chosen ${markText} lies outside that range.`;
    }
    if (note && note.textContent !== noteText) note.textContent = noteText;

    // Read the layout once, before writing to the page (reading it between writes forces the
    // browser to lay the page out again for every panel).
    if (!this.widths.has(id)) {
      this.widths.set(id, Math.max(200, Math.floor(chart.split ? panelWidth(box) : box.clientWidth)));
      this.columns.set(id, chart.split ? gridColumns(box) : 1);
    }
    const groups = new Set(group).size;
    const ranges = panels.map((p, pi) => {
      const ext = !chart.split ? all : shared ? groupExt.get(group[pi]) : extents[pi];
      const rkey = !chart.split ? id : shared ? id + "\u0000g" + (groups > 1 ? panels.find((q, qi) => group[qi] === group[pi]).key : "") : id + "\u0000" + p.key;
      return this.grow(rkey, chart, ext, fit, isFinite(mark) ? mark : null);
    });
    const yUnit = (p, pi) => (per[pi] ? `${chart.y_label} per ${per[pi]}` : p?.series[0]?.y_unit || chart.y_label);
    panels.forEach((p, pi) => {
      p.name = chart.split ? `${title}: ${p.title}` : title;
      if (chart.split) p.title = `${p.title} (${yUnit(p, pi)})`;
    });
    // Panels on axes of their own say so, with how far each axis runs.
    if (chart.split && shared && groups > 1) {
      const fx = format(chart.x_unit);
      const parts = [...groupExt.entries()].filter(([, e]) => e.x).map(([g, e]) =>
        `${panels.filter((p, i) => group[i] === g).map((p) => (p.key ? this.label(p.key, chart.id) : "")).join(", ")} up to ${fx(e.x[1])}`);
      const what = chart.x_label.charAt(0).toUpperCase() + chart.x_label.slice(1);
      noteText = (noteText ? noteText + " " : "") + `${what} axes differ between panels: ${parts.join("; ")}.`;
      if (note && note.textContent !== noteText) note.textContent = noteText;
    }
    const pinned = !!box.closest(".pinned");
    this.renderer.fill = this.fill && this.projected === id ? this.fill : 0;
    // Small multiples may sit side by side: a projected chart's rows share its height.
    const columns = this.columns.get(id) || 1;
    // A panel carries its x axis when no panel below it shares that axis.
    const xAxis = (pi) => pi + columns >= panels.length || !shared || group[pi + columns] !== group[pi];
    const axisRows = new Set(panels.map((p, pi) => pi).filter(xAxis).map((pi) => Math.floor(pi / columns))).size;
    this.renderer.draw(chart, box, {
      panels,
      columns,
      xAxis,
      range: (pi) => ranges[pi],
      width: this.widths.get(id),
      height: plotHeight(chart, Math.ceil(panels.length / columns), {
        axisRows: Math.max(1, axisRows), fill: this.renderer.fill, compact: innerWidth <= 760 && pinned }),
      title,
      yUnit: yUnit(panels[0], 0),
      yLabel: chart.split ? "" : chart.y_label,
      mark: isFinite(mark) ? { value: mark, text: markText } : null,
      describe: fit,
      lineLabels: !chart.split,
      points: true,
    });
    this.renderer.fill = 0;
    // The legend: each series once, in the colour and dash it is drawn in (none for split
    // histograms, whose panels are titled).
    const seen = new Map();
    for (const p of panels) for (const s of p.series) if (!seen.has(s.label)) seen.set(s.label, { label: s.label || s.name, colour: s.colour, dash: s.dash });
    const legend = document.querySelector(`#chart-${CSS.escape(chart.id)} .legend`);
    const items = chart.split && bars ? [] : [...seen.values()];
    // What a shaded band shows, in the legend that every chart shows (lab.Chart.Band).
    if (chart.band && panels.some((p) => p.bands && p.bands.length)) items.push({ text: chart.band });
    this.renderer.legend(chart, legend, items);
  }

  // offNote shows, in the box of a chart whose series need a range parameter that is off, a
  // note with a button that turns it on (js/render.js, sweepOffNote).
  offNote(chart, values) {
    const p = chart.needs ? this.state.params.get(chart.needs) : null;
    const section = document.getElementById(`chart-${chart.id}`);
    return sweepOffNote(section, chart, p, [{ name: "", off: !!p && values[p.name] === "off", disabled: this.state.view.following,
      turnOn: () => this.state.setScenario({ [p.name]: p.on }, "user", { partial: true, moved: p.name, commit: true }) }]);
  }

  // grow returns the axes of a chart: the data's extent when the numbers are final, else the
  // union of the extent and the axes drawn before, so axes do not jump while numbers refine.
  grow(key, chart, ext, fit, mark) {
    if (!ext.x) return this.ranges.get(key) || { x: [0, 1], y: [0, 1] };
    let { x, y } = axes(chart, ext);
    if (mark !== null) x = [Math.min(x[0], mark), Math.max(x[1], mark)];
    const old = this.ranges.get(key);
    if (old && !fit) {
      x = [Math.min(x[0], old.x[0]), Math.max(x[1], old.x[1])];
      y = [Math.min(y[0], old.y[0]), Math.max(y[1], old.y[1])];
    }
    const r = { x, y };
    this.ranges.set(key, r);
    return r;
  }
}

function panelWidth(box) {
  const cols = gridColumns(box);
  const gap = parseFloat(getComputedStyle(box).columnGap) || 0;
  return (box.clientWidth - gap * (cols - 1)) / cols;
}

// gridColumns is how many columns of panels a chart's box lays out.
function gridColumns(box) {
  const cs = getComputedStyle(box);
  return cs.gridTemplateColumns && cs.gridTemplateColumns !== "none" ? cs.gridTemplateColumns.split(" ").length : 1;
}
