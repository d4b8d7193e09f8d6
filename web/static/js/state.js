// The page's one state: the scenario (parameter values), the run showing it and the view
// options. Controls render from it; people, the browser history, the server (a reconnect, a
// room's presenter, a tour step) all change it through setScenario. Other modules listen for
// its events: "values" (controls), "request" (the stream), "run" (status and results).
import { paramValue } from "./format.js";
import { check, canonical, encode, defaults, same, formatParam } from "./params.js";

export class State extends EventTarget {
  constructor(spec, initial, urlErrors) {
    super();
    this.spec = spec;
    this.params = new Map(spec.params.map((p) => [p.name, p]));
    this.values = { ...initial }; // what the controls show, valid or not
    this.scenario = { ...initial }; // the last valid scenario: the one requested and in the URL
    this.errors = {}; // name → message, from checking values here or from the server
    this.fit = null; // {param, value, error}: the value a refusal says is admitted (serverError)
    this.urlErrors = urlErrors; // the opening link's problems, until the first change
    this.moved = ""; // the parameter the person changed last
    this.source = "boot";
    this.staleMemo = null; // stale()'s last answer, with the picture and scenario it is for
    // revealed: a tour step that asks the class to predict shows its answer (the charts, the
    // tables and the explanation) once revealed; setRevealed is the one way to change it.
    this.view = { sharedAxes: true, following: false, revealed: false };
    this.run = {
      phase: "connecting", // connecting, running, done, error, busy, idle, lost
      wantId: 0, // the request of the scenario asked for last
      startedId: -1, // the newest run the server started
      shown: null, // {id, params, url}: the run whose numbers are drawn
      picture: null, // params of the newest run that drew a complete picture
      stopped: false, // the error is of a run that started (stopped partway), not a refusal
      partial: null, // the picture (its params) of a run stopped partway, while it is on show
      progress: null, refine: null, message: "", t0: 0, ms: 0,
    };
  }

  emit(type, detail) { this.dispatchEvent(new CustomEvent(type, { detail })); }
  on(type, fn) { this.addEventListener(type, (e) => fn(e.detail)); }

  // setScenario sets parameter values — a whole scenario (missing names take their defaults)
  // or, with opts.partial, a few — and runs it when every value is valid. source says who:
  // "user" (opts.commit marks the end of a gesture, such as a slider's release; opts.drag a
  // step of a slider's drag, which the server lets show its picture before the next), "history"
  // (Back or Forward), "server" (reconnect, presenter, tour) or "boot".
  setScenario(values, source, opts = {}) {
    const next = opts.partial ? { ...this.values } : defaults(this.spec);
    for (const [k, v] of Object.entries(values)) if (this.params.has(k)) next[k] = String(v);
    this.values = next;
    this.source = source;
    if (opts.moved) this.moved = opts.moved;
    if (source === "user") this.urlErrors = [];
    this.errors = check(this.spec, next);
    const ok = Object.keys(this.errors).length === 0;
    if (ok) this.scenario = canonical(this.spec, next);
    this.emit("values", { source, ok, commit: !!opts.commit });
    if (ok) this.emit("request", { query: encode(this.spec, this.scenario), source, commit: !!opts.commit, drag: !!opts.drag });
    else this.emit("run", {});
  }

  // setFollowing makes the page follow someone else's scenario (a room's presenter): the
  // controls show the values setScenario(…, "server") brings but take no input.
  setFollowing(on) {
    this.view.following = !!on;
    this.emit("values", { source: "follow", ok: true });
  }

  // setRevealed reveals (or hides again) the answer of a tour step that asks the class to
  // predict: its charts, tables and explanation. A new step hides them again. It is the one
  // place the flag changes, so that a room can later carry it as it carries the step.
  setRevealed(on) {
    if (this.view.revealed === !!on) return;
    this.view.revealed = !!on;
    this.emit("reveal", { revealed: this.view.revealed });
  }

  // serverError shows an error the server reported for the scenario asked for — a refusal
  // before its run, or the end of a run stopped partway (its numbers on show are partial): at
  // every parameter it names ("params", all those a rule across parameters spans, else
  // "param") and, when the person moved another one, there too. A refusal's value that is admitted
  // ("fit") is kept with its message, for the control to offer while that message shows.
  serverError(msg) {
    const errs = {};
    const named = (msg.params && msg.params.length ? msg.params : [msg.param]).filter((n) => n && this.params.has(n));
    for (const n of named) errs[n] = msg.error;
    if (this.moved && !named.includes(this.moved) && this.source === "user") errs[this.moved] = msg.error;
    this.errors = errs;
    this.fit = msg.fit && this.params.has(msg.param) ? { param: msg.param, value: msg.fit, error: msg.error } : null;
    this.run.phase = "error";
    this.run.stopped = msg.id === this.run.startedId; // its run had started: a stop, not a refusal
    if (this.run.stopped && this.run.picture && this.run.picture === this.run.shown?.params) this.run.partial = this.run.picture;
    this.run.message = msg.error;
    this.emit("values", { source: "server-error", ok: false });
    this.emit("run", {});
  }

  // The run lifecycle. The stream reports what the server says; the state moves the run on
  // show through its phases (connecting, running, done, error, busy, idle, lost) and tells its
  // listeners. current says the reply is to the newest request sent.

  // requested records the id of the request of the scenario asked for last.
  requested(id) { this.run.wantId = id; }

  // started: the server started run m ({id, params, url}). An older run than the one on show
  // is ignored; it reports whether the run is now the one on show.
  started(m, current) {
    const run = this.run;
    if (m.id < run.startedId) return false;
    run.startedId = m.id;
    run.shown = { id: m.id, params: m.params, url: m.url };
    run.phase = "running";
    run.stopped = false;
    run.progress = null;
    run.refine = null;
    run.t0 = performance.now();
    if (current) {
      this.errors = {};
      this.emit("accepted", { id: m.id, url: m.url });
    }
    this.emit("run", {});
    return true;
  }

  // framed: a frame of the run on show arrived with its progress and refinement (the first
  // refinement completes a picture of the run's values). It reports whether the frame is of
  // the run on show.
  framed(m) {
    const run = this.run;
    if (m.id !== run.startedId) return false;
    if (m.progress) run.progress = m.progress;
    if (m.refine) {
      run.refine = m.refine;
      run.picture = run.shown.params;
    }
    this.emit("run", {});
    return true;
  }

  // finished: the run on show is done; it is final when it is of the newest request.
  finished(m, current) {
    const run = this.run;
    if (m.id !== run.startedId) return false;
    run.picture = run.shown.params;
    run.phase = current ? "done" : "running";
    run.ms = performance.now() - run.t0;
    this.emit("run", {});
    return true;
  }

  // busy: every slot of the server is taken; it retries by itself.
  busy(m) {
    this.run.phase = "busy";
    this.run.message = `Server busy — retrying in ${(m.retry_ms / 1000).toFixed(1)} s…`;
    this.emit("run", {});
  }

  // disconnected: the connection closed, for idleness (it comes back when the viewer does),
  // for a restart (1001) or otherwise (it reconnects).
  disconnected(code) {
    const run = this.run;
    if (code === 4000) run.phase = "idle";
    else {
      run.phase = "lost";
      run.message = code === 1001 ? "Server restarting — reconnecting…" : "Connection lost — reconnecting…";
    }
    this.emit("run", {});
  }

  // switchStream forgets the run numbering of the stream left behind (a room numbers its runs
  // by its version, the lab stream by its requests), so the next stream's runs show.
  switchStream() { this.run.startedId = -1; }

  // stale reports the parameters whose values differ between the picture shown and the
  // scenario asked for, or null when the picture is of the scenario asked for.
  // Every chart and the status line ask at each frame; the answer is kept until the picture or
  // the scenario changes (each is replaced, never changed in place).
  stale() {
    const shown = this.run.picture;
    if (!shown) return null;
    const memo = this.staleMemo;
    if (memo && memo.shown === shown && memo.scenario === this.scenario) return memo.diff && [...memo.diff];
    const diff = [];
    for (const p of this.spec.params) {
      if (!same(p, formatParam(p, shown[p.name]), this.scenario[p.name])) diff.push(p.name);
    }
    this.staleMemo = { shown, scenario: this.scenario, diff: diff.length ? diff : null };
    return diff.length ? [...diff] : null;
  }

  label(name, values) {
    const p = this.params.get(name);
    return `${p.label} = ${paramValue(p, values[name])}`;
  }
}

