// Test and measurement hooks, read by the browser tests (window.__playground). They only
// observe the application; nothing in it depends on them.
export function installProbe(state, stream, results, charts) {
  const probe = (window.__playground = {
    frames: 0, runs: 0, done: 0, draws: 0, latencies: [], answered: 0, errors: [], staleLog: [], statusLog: [],
    redraws: [], statusTimes: [], shownParams: {},
    summary: results.summary, series: results.series, state, charts,
    setScenario: (values, source = "server") => state.setScenario(values, source),
    setFollowing: (on) => state.setFollowing(on),
  });
  // Latency: every input is timed to the first redraw that shows its request's results or a
  // newer one's. An input superseded before any redraw is timed too, to the redraw the person
  // then saw; timing only the newest input would drop exactly the slow answers.
  let pending = [], drawn = [];
  stream.addEventListener("sent", (e) => pending.push(e.detail));
  // Which run's numbers each panel shows: a chart or table shows the run whose frame last
  // touched it. Every redraw is logged with its time and that run (redraws), so that a test can
  // tell when each panel first showed a new value and how often a drag refreshed the charts.
  const panelRun = {};
  stream.addEventListener("frame", (e) => {
    const m = e.detail;
    probe.frames++;
    probe.shownParams[m.id] ??= state.run.shown ? state.run.shown.params : null;
    for (const s of m.series || []) {
      const rec = results.series[s.name] || results.bands[s.name];
      const chart = s.chart || (rec && rec.chart);
      if (chart) panelRun["chart:" + chart] = m.id;
    }
    for (const k of Object.keys(m.summary || {})) panelRun["table:" + k] = m.id;
    if ((m.series || []).length && pending.length) {
      drawn.push(...pending.filter((p) => p.id <= m.id));
      pending = pending.filter((p) => p.id > m.id);
    }
  });
  stream.addEventListener("done", () => probe.done++);
  stream.addEventListener("error", (e) => {
    probe.errors.push(e.detail.error);
    pending = pending.filter((p) => p.id > e.detail.id);
  });
  // Every status the page showed, in order.
  const statusEl = document.getElementById("status");
  state.on("run", () => {
    const t = statusEl.textContent;
    if (probe.statusLog[probe.statusLog.length - 1] !== t) {
      probe.statusLog.push(t);
      probe.statusTimes.push({ t: performance.now(), text: t });
    }
  });
  let started = -1;
  state.on("run", () => {
    if (state.run.startedId !== started) { started = state.run.startedId; probe.runs++; }
  });
  // Every label the stale note showed, in order.
  const note = document.getElementById("stale");
  if (note) new MutationObserver(() => { if (note.textContent) probe.staleLog.push(note.textContent); }).observe(note, { childList: true, characterData: true, subtree: true });
  results.addEventListener("draw", (e) => {
    probe.draws++;
    const now = performance.now();
    for (const c of e.detail.charts) probe.redraws.push({ t: now, panel: "chart:" + c, id: panelRun["chart:" + c] ?? -1 });
    for (const k of e.detail.tables) probe.redraws.push({ t: now, panel: "table:" + k, id: panelRun["table:" + k] ?? -1 });
    for (const p of drawn) {
      probe.latencies.push(now - p.t);
      probe.answered = Math.max(probe.answered, p.id);
    }
    drawn = [];
  });
}
