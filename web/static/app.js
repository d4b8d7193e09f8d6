// The playground's page script. It knows no lab: it reads the lab's declarations (parameters
// and view) from #lab-spec, wires the controls, keeps the URL in step with them, streams runs
// over a websocket and draws the series and summary tables the server sends.
// Message protocol: see the api package documentation.
import uPlot from "./vendor/uPlot.esm.js";

const spec = JSON.parse(document.getElementById("lab-spec").textContent);
const form = document.getElementById("controls");
const statusEl = document.getElementById("status");
const progressEl = document.getElementById("progress");
const params = new Map(spec.params.map((p) => [p.name, p]));

// Okabe–Ito: distinguishable with the common colour-vision deficiencies.
const palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"];
const listParam = spec.params.find((p) => p.kind === "enum_list");
// colour gives a list option (a strategy) the same colour everywhere; other series take the
// palette in order of their place in the chart (yellow last: faint on white).
function colour(label, place = 0) {
  const opts = listParam ? listParam.options : [];
  const i = opts.indexOf(label);
  return palette[(i >= 0 ? i : place) % palette.length];
}

// Test and measurement hooks (read by the browser tests).
const probe = (window.__playground = { frames: 0, runs: 0, done: 0, latencies: [], errors: [], summary: {}, series: {} });

// ---- values ----------------------------------------------------------------------------

function fmtNum(x, step) {
  const d = step && step < 1 ? Math.min(6, Math.ceil(-Math.log10(step))) : 0;
  return String(Number(x.toFixed(d)));
}

// fmtDuration writes milliseconds as a Go duration string.
function fmtDuration(ms) {
  const r = (x) => String(Number(x.toPrecision(3)));
  if (ms === 0) return "0s";
  if (ms < 1) return r(ms * 1000) + "µs";
  if (ms < 1000) return r(ms) + "ms";
  if (ms < 60000) return r(ms / 1000) + "s";
  if (ms < 3600000) return r(ms / 60000) + "m";
  return r(ms / 3600000) + "h";
}

function parseDurationMs(s) {
  const units = { ns: 1e-6, us: 1e-3, "µs": 1e-3, ms: 1, s: 1e3, m: 6e4, h: 3.6e6 };
  const re = /([0-9]*\.?[0-9]+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0, m, any = false;
  s = s.trim();
  if (s === "0") return 0;
  while ((m = re.exec(s))) { total += parseFloat(m[1]) * units[m[2]]; any = true; if (re.lastIndex === s.length) return total; }
  return any && re.lastIndex === s.length ? total : NaN;
}

function fromSlider(p, pos) {
  let v = Number(pos);
  if (p.log) v = p.min * Math.pow(p.max / p.min, v / spec.log_steps);
  if (p.log) v = Number(v.toPrecision(3)); // fine enough that every arrow press shows a change
  v = Math.min(p.max, Math.max(p.min, v));
  if (p.kind === "duration") return fmtDuration(v);
  if (p.kind === "int") return String(Math.round(v));
  return fmtNum(v, p.step);
}

function toSlider(p, text) {
  let v = p.kind === "duration" ? parseDurationMs(text) : Number(text);
  if (!isFinite(v)) return null;
  if (p.log) return Math.round((spec.log_steps * Math.log(Math.max(v, p.min) / p.min)) / Math.log(p.max / p.min));
  return v;
}

// query returns the scenario as the controls describe it, defaults left out.
function query() {
  const q = [];
  for (const p of spec.params) {
    let v;
    if (p.kind === "enum_list") {
      v = [...form.querySelectorAll(`input[type=checkbox][name="${p.name}"]`)].filter((c) => c.checked).map((c) => c.value).join(",");
    } else if (p.kind === "bool") {
      v = String(form.querySelector(`[name="${p.name}"]`).checked);
    } else {
      v = form.querySelector(`[name="${p.name}"]`).value.trim();
    }
    if (v !== p.default) q.push(encodeURIComponent(p.name) + "=" + encodeURIComponent(v).replace(/%2C/g, ",").replace(/%3A/g, ":"));
  }
  return q.join("&");
}

function setControl(name, value) {
  const p = params.get(name);
  if (!p) return;
  if (p.kind === "enum_list") {
    const on = new Set(String(value).split(","));
    for (const c of form.querySelectorAll(`input[type=checkbox][name="${name}"]`)) c.checked = on.has(c.value);
  } else if (p.kind === "bool") {
    form.querySelector(`[name="${name}"]`).checked = value === true || value === "true";
  } else {
    form.querySelector(`[name="${name}"]`).value = value;
    const slider = form.querySelector(`input[type=range][data-for="${name}"]`);
    const pos = slider && toSlider(p, String(value));
    if (slider && pos !== null) slider.value = pos;
  }
}

// ---- controls ---------------------------------------------------------------------------

// Latency measurement (probe.latencies): every input is timed to the first chart redraw that
// shows its request's results or a newer one's. An input superseded before any redraw is timed
// too, to the redraw the user then saw; timing only the newest input would drop exactly the
// slow answers.
let pendingInputs = []; // {t, id}: inputs no redraw has answered yet, id of the request carrying each
let drawnInputs = []; // inputs the queued redraw answers

form.addEventListener("input", (e) => {
  const t = e.target;
  if (t.matches("input[type=range]")) {
    const p = params.get(t.dataset.for);
    form.querySelector(`[name="${p.name}"]`).value = fromSlider(p, t.value);
    changed();
  } else if (t.matches("input[type=checkbox], select")) {
    changed();
  }
});
form.addEventListener("change", (e) => {
  const t = e.target;
  if (t.matches("input.value")) {
    const p = params.get(t.name);
    const slider = form.querySelector(`input[type=range][data-for="${t.name}"]`);
    const pos = slider && toSlider(p, t.value);
    if (slider && pos !== null) slider.value = pos;
    changed();
  }
});
form.addEventListener("submit", (e) => { e.preventDefault(); changed(); });
form.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && e.target.matches("input.value")) { e.preventDefault(); changed(); }
});
for (const b of form.querySelectorAll("button.reroll")) {
  b.addEventListener("click", () => {
    setControl(b.dataset.for, String(Math.floor(Math.random() * 1e9)));
    changed();
  });
}
document.getElementById("copy-link").addEventListener("click", async () => {
  try { await navigator.clipboard.writeText(location.href); setStatus("Link copied."); }
  catch { setStatus("Copy the address bar to share this view."); }
});

function updateLinks(qs) {
  const url = location.pathname + (qs ? "?" + qs : "");
  if (url !== location.pathname + location.search) history.replaceState(null, "", url);
  document.getElementById("json-link").href = "/api/v1/" + spec.name + (qs ? "?" + qs : "");
}

function changed() {
  const t = performance.now();
  keepURLErrors = false;
  const qs = query();
  updateLinks(qs);
  // Sent now, or by the reconnect as the next id.
  pendingInputs.push({ t, id: send(qs) ? sentId : sentId + 1 });
}

// ---- errors and status ------------------------------------------------------------------

// The errors of the URL the page was opened with (the server renders them) stay until the user
// changes a control, or they would vanish as the first run starts; errors a run reported go
// with the next run.
let keepURLErrors = true;

function clearErrors() {
  for (const el of form.querySelectorAll(".control .error")) {
    if (keepURLErrors && !el.dataset.run) continue;
    el.textContent = "";
    delete el.dataset.run;
    el.closest(".control").classList.remove("invalid");
  }
  if (!keepURLErrors) document.getElementById("url-errors").textContent = "";
}

function showError(msg) {
  probe.errors.push(msg.error);
  const box = msg.param && document.getElementById("err-" + msg.param);
  if (box) {
    box.textContent = msg.error;
    box.dataset.run = "1";
    box.closest(".control").classList.add("invalid");
    setStatus("Fix " + msg.param + " to run this scenario.");
  } else {
    setStatus(msg.error);
  }
  progressEl.value = 0;
}

function setStatus(text) { statusEl.textContent = text; }

// ---- stream -----------------------------------------------------------------------------

let ws = null, sentId = 0, lastQuery = null, reconnects = 0, runStart = 0;

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${proto}//${location.host}/api/v1/${spec.name}/stream`);
  ws.addEventListener("open", () => {
    reconnects = 0;
    send(lastQuery ?? query());
  });
  ws.addEventListener("message", (e) => onMessage(JSON.parse(e.data)));
  ws.addEventListener("close", (e) => {
    ws = null;
    if (e.code === 4000) {
      // Closed for idleness: come back when the viewer does.
      setStatus("Paused while idle — move a control to resume.");
      const resume = () => { document.removeEventListener("visibilitychange", resume); form.removeEventListener("focusin", resume); if (!ws) connect(); };
      document.addEventListener("visibilitychange", resume);
      form.addEventListener("focusin", resume);
      return;
    }
    // Reconnect with capped exponential backoff and full jitter; the view is restored from
    // the controls (and so from the URL) once the connection is back.
    const cap = 10000, base = 250;
    const delay = Math.random() * Math.min(cap, base * 2 ** Math.min(reconnects++, 10));
    setStatus(e.code === 1001 ? "Server restarting — reconnecting…" : "Connection lost — reconnecting…");
    setTimeout(connect, delay);
  });
}

function send(qs) {
  lastQuery = qs;
  if (!ws || ws.readyState !== WebSocket.OPEN) return false;
  sentId++;
  ws.send(JSON.stringify({ type: "params", id: sentId, query: qs }));
  return true;
}

function onMessage(m) {
  if (m.id !== undefined && m.id !== sentId) return; // a stale run
  switch (m.type) {
    case "start":
      probe.runs++;
      runStart = performance.now();
      clearErrors();
      fresh = new Set();
      freshSummary = new Set();
      updateLinks(m.url.includes("?") ? m.url.slice(m.url.indexOf("?") + 1) : "");
      setStatus("Running…");
      break;
    case "frame":
      probe.frames++;
      applyFrame(m);
      break;
    case "done":
      probe.done++;
      for (const name of Object.keys(store)) if (!fresh.has(name)) delete store[name];
      // Summary entries the run did not send belong to an older scenario (a sweep since
      // switched off, say): drop them as the series are dropped, so the page shows what the
      // JSON API returns for this URL.
      for (const k of Object.keys(summary)) if (!freshSummary.has(k)) { delete summary[k]; renderTables(k); }
      redrawAll();
      progressEl.value = 1;
      setStatus(`Done in ${Math.round(performance.now() - runStart)} ms.`);
      break;
    case "busy":
      setStatus(`Server busy — retrying in ${(m.retry_ms / 1000).toFixed(1)} s…`);
      break;
    case "error":
      pendingInputs = pendingInputs.filter((p) => p.id > m.id); // answered, with no redraw
      showError(m);
      break;
  }
}

// ---- results ----------------------------------------------------------------------------

const store = (probe.series = {}); // series by name
const bands = {}; // view-only band series by name (not drawn by this page)
let fresh = new Set(); // series names the current run has sent
const summary = probe.summary;
let freshSummary = new Set(); // summary keys the current run has sent
const dirty = new Set();
let frameQueued = false;

function applyFrame(m) {
  if (m.progress) {
    progressEl.value = m.progress.total ? m.progress.done / m.progress.total : 0;
    if (m.progress.done < m.progress.total) setStatus(`Running… ${Math.round((100 * m.progress.done) / m.progress.total)}%`);
  }
  for (const [k, v] of Object.entries(m.summary || {})) {
    summary[k] = v;
    freshSummary.add(k);
    renderTables(k);
  }
  for (const s of m.series || []) {
    const old = store[s.name];
    if (s.of || (old && old.of && !s.chart)) { // a band: drawn by the new page, kept out of the data
      bands[s.name] = { ...(bands[s.name] || {}), ...s };
      continue;
    }
    if (s.append && old && fresh.has(s.name)) {
      old.x.push(...s.x);
      old.y.push(...s.y);
    } else if (s.upsert && old && fresh.has(s.name)) {
      s.x.forEach((x, k) => {
        let i = old.x.findIndex((v) => v >= x);
        if (i < 0) i = old.x.length;
        if (old.x[i] === x) old.y[i] = s.y[k];
        else { old.x.splice(i, 0, x); old.y.splice(i, 0, s.y[k]); }
      });
    } else if (s.upsert) {
      const meta = old && !s.chart ? old : s; // a lean upsert keeps what was sent first
      const pts = s.x.map((x, k) => [x, s.y[k]]).sort((a, b) => a[0] - b[0]);
      store[s.name] = { ...meta, ...s, chart: meta.chart, label: meta.label, x_unit: meta.x_unit, y_unit: meta.y_unit, upsert: undefined, x: pts.map((p) => p[0]), y: pts.map((p) => p[1]) };
    } else {
      store[s.name] = { ...s, x: [...s.x], y: [...s.y] };
    }
    fresh.add(s.name);
    dirty.add(store[s.name].chart);
  }
  if (dirty.size && pendingInputs.length) {
    drawnInputs.push(...pendingInputs.filter((p) => p.id <= m.id));
    pendingInputs = pendingInputs.filter((p) => p.id > m.id);
  }
  if (!frameQueued && dirty.size) {
    frameQueued = true;
    requestAnimationFrame(() => {
      frameQueued = false;
      for (const c of dirty) drawChart(c);
      dirty.clear();
      const now = performance.now();
      for (const p of drawnInputs) probe.latencies.push(now - p.t);
      drawnInputs = [];
    });
  }
}

function renderTables(key) {
  for (const t of spec.view.tables.filter((t) => t.key === key)) {
    const body = document.querySelector(`#table-${t.id} tbody`);
    const data = summary[key];
    let rows;
    if (data === undefined) {
      rows = [];
    } else if (t.rows === "map") {
      const order = listParam ? listParam.options : [];
      rows = Object.keys(data).sort((a, b) => order.indexOf(a) - order.indexOf(b)).map((k) => ({ "": k, ...data[k] }));
    } else {
      rows = data;
    }
    body.replaceChildren(...rows.map((r) => {
      const tr = document.createElement("tr");
      for (const c of t.columns) {
        const td = document.createElement(c.field === "" ? "th" : "td");
        const v = r[c.field];
        td.textContent = typeof v === "number" ? v.toLocaleString("en", { minimumFractionDigits: c.digits, maximumFractionDigits: c.digits }) + (c.suffix || "") : v;
        if (c.field === "") { td.scope = "row"; td.style.borderLeft = `6px solid ${colour(v)}`; }
        tr.append(td);
      }
      return tr;
    }));
  }
}

const plots = {}; // uPlot instances by chart id (and series name when split)

function redrawAll() { for (const c of spec.view.charts) drawChart(c.id); }

function markPlugin(chart) {
  return {
    hooks: {
      draw: (u) => {
        if (!chart.mark) return;
        const el = form.querySelector(`[name="${chart.mark}"]`);
        const x = el ? Number(el.value) : NaN;
        if (!isFinite(x)) return;
        const cx = u.valToPos(x, "x", true);
        const ctx = u.ctx;
        ctx.save();
        ctx.strokeStyle = "#555";
        ctx.setLineDash([4, 4]);
        ctx.lineWidth = 1.5 * devicePixelRatio;
        ctx.beginPath();
        ctx.moveTo(cx, u.bbox.top);
        ctx.lineTo(cx, u.bbox.top + u.bbox.height);
        ctx.stroke();
        ctx.restore();
      },
    },
  };
}

function drawChart(id) {
  const chart = spec.view.charts.find((c) => c.id === id);
  if (!chart) return;
  const list = Object.values(store).filter((s) => s.chart === id);
  const box = document.querySelector(`#chart-${id} .plots`);
  const groups = chart.split ? list.map((s) => [s]) : [list];
  const keys = chart.split ? list.map((s) => id + "/" + s.name) : [id];
  for (const [k, p] of Object.entries(plots)) {
    if ((k === id || k.startsWith(id + "/")) && !keys.includes(k)) { p.destroy(); delete plots[k]; }
  }
  groups.forEach((group, gi) => {
    if (!group.length) return;
    const key = keys[gi];
    const xs = [...new Set(group.flatMap((s) => s.x))].sort((a, b) => a - b);
    const data = [xs, ...group.map((s) => {
      const m = new Map(s.x.map((x, i) => [x, s.y[i]]));
      return xs.map((x) => (m.has(x) ? m.get(x) : null));
    })];
    const width = Math.max(280, Math.floor(chart.split ? Math.min(box.clientWidth, 900) : box.clientWidth));
    const height = chart.split ? 150 : 260;
    const sig = group.map((s) => s.name + "|" + s.y_unit).join(",");
    let u = plots[key];
    if (u && u._sig !== sig) { u.destroy(); u = null; }
    if (!u) {
      const opts = {
        width, height,
        title: chart.split ? `${group[0].label} (${group[0].y_unit})` : undefined,
        scales: { x: { time: false }, y: chart.log_y ? { distr: 3 } : {} },
        axes: [{ label: chart.x_label }, { label: chart.y_label, size: 60 }],
        series: [{ label: chart.x_label }, ...group.map((s, i) => ({
          label: s.label,
          stroke: colour(s.label, i),
          fill: chart.bars ? colour(s.label, i) + "55" : undefined,
          width: 2,
          spanGaps: true,
          paths: chart.bars ? uPlot.paths.bars({ size: [1, Infinity], align: 1 }) : undefined,
          points: { show: !chart.bars && xs.length < 40 },
        }))],
        legend: { show: !chart.split },
        plugins: [markPlugin(chart)],
      };
      const holder = document.createElement("div");
      holder.className = "plot";
      holder.dataset.series = group.map((s) => s.name).join(",");
      box.append(holder);
      u = new uPlot(opts, data, holder);
      u._sig = sig;
      plots[key] = u;
    } else {
      u.setData(data);
      if (u.width !== width) u.setSize({ width, height });
    }
  });
}

let resizeTimer = 0;
addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => { for (const p of Object.values(plots)) p.destroy(); for (const k of Object.keys(plots)) delete plots[k]; for (const b of document.querySelectorAll(".plots")) b.replaceChildren(); redrawAll(); }, 150);
});

connect();
