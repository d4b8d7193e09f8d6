// Test and measurement hooks, read by the browser tests (window.__playground). They only
// observe the application; nothing in it depends on them.
export function installProbe(state, stream, results, charts) {
  const probe = (window.__playground = {
    frames: 0, runs: 0, done: 0, draws: 0, latencies: [], errors: [], staleLog: [], statusLog: [],
    summary: results.summary, series: results.series, state, charts,
    setScenario: (values, source = "server") => state.setScenario(values, source),
    setFollowing: (on) => state.setFollowing(on),
  });
  // Latency: every input is timed to the first redraw that shows its request's results or a
  // newer one's. An input superseded before any redraw is timed too, to the redraw the person
  // then saw; timing only the newest input would drop exactly the slow answers.
  let pending = [], drawn = [];
  stream.addEventListener("sent", (e) => pending.push(e.detail));
  stream.addEventListener("frame", (e) => {
    const m = e.detail;
    probe.frames++;
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
    if (probe.statusLog[probe.statusLog.length - 1] !== t) probe.statusLog.push(t);
  });
  let started = -1;
  state.on("run", () => {
    if (state.run.startedId !== started) { started = state.run.startedId; probe.runs++; }
  });
  // Every label the stale note showed, in order.
  const note = document.getElementById("stale");
  if (note) new MutationObserver(() => { if (note.textContent) probe.staleLog.push(note.textContent); }).observe(note, { childList: true, characterData: true, subtree: true });
  results.addEventListener("draw", () => {
    probe.draws++;
    const now = performance.now();
    for (const p of drawn) probe.latencies.push(now - p.t);
    drawn = [];
  });
}
