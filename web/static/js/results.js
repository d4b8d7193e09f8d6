// The numbers of the run on show: series by name, bands around them and the summary. A new
// run's frames replace the old run's numbers piece by piece — old curves stay, under the
// page's "Showing … — computing …" label, until new ones replace them — and once the run has
// made its first complete picture (its first frame with "refine") whatever it has not sent is
// dropped: a time series refined over simulated time then shows only the span the new run
// has computed, never the new run's first seconds joined to the old run's tail. When the run
// is done the same holds for everything, so that the page shows exactly what the JSON API
// returns for the URL.
export class Results extends EventTarget {
  constructor() {
    super();
    this.series = {}; // name → {name, chart, label, x_unit, y_unit, style, group, x, y}
    this.bands = {}; // name → {name, of, bound, x, y}
    this.summary = {};
    this.fresh = new Set(); // series and band names the current run has sent
    this.freshX = new Map(); // name → x values the current run has sent (upserted series)
    this.freshSummary = new Set();
    this.dirty = new Set(); // chart ids to redraw
    this.tables = new Set(); // summary keys to re-render
    this.queued = false;
  }

  emit(type, detail) { this.dispatchEvent(new CustomEvent(type, { detail })); }

  start() {
    this.fresh = new Set();
    this.freshX = new Map();
    this.freshSummary = new Set();
    this.pictured = false; // the run has made its first complete picture
  }

  frame(m) {
    for (const [k, v] of Object.entries(m.summary || {})) {
      this.summary[k] = v;
      this.freshSummary.add(k);
      this.tables.add(k);
    }
    for (const s of m.series || []) {
      // An empty batch of points comes as null (a Go nil slice): no points.
      s.x ??= [];
      s.y ??= [];
      const isBand = s.of || (this.bands[s.name] && !s.chart);
      const store = isBand ? this.bands : this.series;
      const old = store[s.name];
      const meta = old && !s.chart ? old : s; // a lean append or upsert keeps what was sent first
      let rec;
      if (s.append && old && this.fresh.has(s.name)) {
        rec = old;
        rec.x.push(...s.x);
        rec.y.push(...s.y);
      } else if (s.upsert) {
        // Onto the old points, even those of an older run: they stay until replaced.
        rec = old ? { ...old, ...pick(meta) } : { ...pick(meta), x: [], y: [] };
        rec.x = [...rec.x];
        rec.y = [...rec.y];
        const fx = this.freshX.get(s.name) || new Set();
        s.x.forEach((x, k) => {
          upsert(rec, x, s.y[k]);
          fx.add(x);
        });
        this.freshX.set(s.name, fx);
      } else {
        rec = { ...pick(meta), x: [...s.x], y: [...s.y] };
        if (old && same(old, rec)) {
          // The same numbers again (a run of a scenario that leaves this series alone): keep
          // the record and spare the redraw.
          this.fresh.add(s.name);
          continue;
        }
      }
      store[s.name] = rec;
      this.fresh.add(s.name);
      this.dirty.add(rec.chart);
    }
    if (m.refine && !this.pictured) {
      this.pictured = true;
      this.prune();
    }
    this.schedule();
  }

  done() {
    this.prune();
    // Summary entries the run did not send belong to an older scenario (a sweep since
    // switched off, say).
    for (const k of Object.keys(this.summary)) {
      if (!this.freshSummary.has(k)) {
        delete this.summary[k];
        this.tables.add(k);
      }
    }
    this.emit("settled", {});
    this.schedule();
  }

  // prune drops the series, bands and points the current run has not sent: they are an older
  // run's.
  prune() {
    for (const store of [this.series, this.bands]) {
      for (const [name, s] of Object.entries(store)) {
        if (!this.fresh.has(name)) {
          delete store[name];
          this.dirty.add(s.chart);
          continue;
        }
        const fx = this.freshX.get(name);
        if (fx && fx.size !== s.x.length) {
          const keep = s.x.map((x) => fx.has(x));
          s.x = s.x.filter((_, i) => keep[i]);
          s.y = s.y.filter((_, i) => keep[i]);
          this.dirty.add(s.chart);
        }
      }
    }
  }

  // redrawAll redraws every chart at the next animation frame (axes fit once numbers are final).
  redrawAll(ids) {
    for (const id of ids) this.dirty.add(id);
    this.schedule();
  }

  // schedule redraws what changed once per animation frame.
  schedule() {
    if (this.queued) return;
    this.queued = true;
    requestAnimationFrame(() => {
      this.queued = false;
      const charts = [...this.dirty], tables = [...this.tables];
      this.dirty.clear();
      this.tables.clear();
      this.emit("draw", { charts, tables });
    });
  }

  ofChart(id) { return Object.values(this.series).filter((s) => s.chart === id); }
  bandsOf(name) {
    const b = Object.values(this.bands).filter((s) => s.of === name);
    return { lo: b.find((s) => s.bound === "lo"), hi: b.find((s) => s.bound === "hi") };
  }
}

function pick(s) {
  return { name: s.name, chart: s.chart, label: s.label, x_unit: s.x_unit, y_unit: s.y_unit, style: s.style, group: s.group, tone: s.tone, of: s.of, bound: s.bound };
}

function same(a, b) {
  if (a.chart !== b.chart || a.label !== b.label || a.y_unit !== b.y_unit || a.style !== b.style || a.group !== b.group || a.tone !== b.tone) return false;
  if (a.x.length !== b.x.length) return false;
  for (let i = 0; i < a.x.length; i++) if (a.x[i] !== b.x[i] || a.y[i] !== b.y[i]) return false;
  return true;
}

function upsert(rec, x, y) {
  let lo = 0, hi = rec.x.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rec.x[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  if (rec.x[lo] === x) rec.y[lo] = y;
  else {
    rec.x.splice(lo, 0, x);
    rec.y.splice(lo, 0, y);
  }
}
