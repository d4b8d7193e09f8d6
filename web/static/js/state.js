// The page's one state: the scenario (parameter values), the run showing it and the view
// options. Controls render from it; people, the browser history, the server (a reconnect, a
// room's presenter, a tour step) all change it through setScenario. Other modules listen for
// its events: "values" (controls), "request" (the stream), "run" (status and results).
import { parseDuration, goDuration, paramValue } from "./format.js";

export class State extends EventTarget {
  constructor(spec, initial, urlErrors) {
    super();
    this.spec = spec;
    this.params = new Map(spec.params.map((p) => [p.name, p]));
    this.values = { ...initial }; // what the controls show, valid or not
    this.scenario = { ...initial }; // the last valid scenario: the one requested and in the URL
    this.errors = {}; // name → message, from checking values here or from the server
    this.urlErrors = urlErrors; // the opening link's problems, until the first change
    this.moved = ""; // the parameter the person changed last
    this.source = "boot";
    this.view = { sharedAxes: true, following: false };
    this.run = {
      phase: "connecting", // connecting, running, done, error, busy, idle, lost
      wantId: 0, // the request of the scenario asked for last
      startedId: -1, // the newest run the server started
      shown: null, // {id, params, url}: the run whose numbers are drawn
      picture: null, // params of the newest run that drew a complete picture
      progress: null, refine: null, message: "", t0: 0, ms: 0,
    };
  }

  emit(type, detail) { this.dispatchEvent(new CustomEvent(type, { detail })); }
  on(type, fn) { this.addEventListener(type, (e) => fn(e.detail)); }

  // setScenario sets parameter values — a whole scenario (missing names take their defaults)
  // or, with opts.partial, a few — and runs it when every value is valid. source says who:
  // "user" (opts.commit marks the end of a gesture, such as a slider's release), "history"
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
    if (ok) this.emit("request", { query: encode(this.spec, this.scenario), source, commit: !!opts.commit });
    else this.emit("run", {});
  }

  // setFollowing makes the page follow someone else's scenario (a room's presenter): the
  // controls show the values setScenario(…, "server") brings but take no input.
  setFollowing(on) {
    this.view.following = !!on;
    this.emit("values", { source: "follow", ok: true });
  }

  // serverError shows an error the server reported for the scenario asked for: at the
  // parameter it names and, when that is not the one the person moved, there too.
  serverError(msg) {
    const errs = {};
    if (msg.param && this.params.has(msg.param)) errs[msg.param] = msg.error;
    if (this.moved && this.moved !== msg.param && this.source === "user") errs[this.moved] = msg.error;
    this.errors = errs;
    this.run.phase = "error";
    this.run.message = msg.error;
    this.emit("values", { source: "server-error", ok: false });
    this.emit("run", {});
  }

  // stale reports the parameters whose values differ between the picture shown and the
  // scenario asked for, or null when the picture is of the scenario asked for.
  stale() {
    const shown = this.run.picture;
    if (!shown) return null;
    const diff = [];
    for (const p of this.spec.params) {
      if (!same(p, formatParam(p, shown[p.name]), this.scenario[p.name])) diff.push(p.name);
    }
    return diff.length ? diff : null;
  }

  label(name, values) {
    const p = this.params.get(name);
    return `${p.label} = ${paramValue(p, values[name])}`;
  }
}

// same reports whether two URL-form values of p mean the same.
export function same(p, a, b) {
  if (p.kind === "duration") return parseDuration(a) === parseDuration(b);
  if (p.kind === "int" || p.kind === "float") return Number(a) === Number(b);
  return String(a) === String(b);
}

export function defaults(spec) {
  return Object.fromEntries(spec.params.map((p) => [p.name, p.default]));
}

// formatParam writes a value of the server's params map (JSON) in URL form.
export function formatParam(p, v) {
  if (v === undefined || v === null) return p.default;
  if (Array.isArray(v)) return v.join(",");
  return String(v);
}

// canonical returns values in canonical URL form: lists in declared order, numbers and
// durations written the one way the server writes them.
export function canonical(spec, values) {
  const out = {};
  for (const p of spec.params) {
    let v = String(values[p.name] ?? p.default).trim();
    switch (p.kind) {
      case "int": case "float": v = String(Number(v)); break;
      case "duration": v = goDuration(parseDuration(v)); break;
      case "enum_list": { const on = new Set(v.split(",")); v = p.options.filter((o) => on.has(o)).join(","); break; }
      case "int_range": if (v !== "off") v = v.split(":").map(Number).join(":"); break;
    }
    out[p.name] = v;
  }
  return out;
}

// encode returns the query of a canonical scenario: declared order, defaults left out.
export function encode(spec, values) {
  const q = [];
  for (const p of spec.params) {
    const v = values[p.name];
    if (v === undefined || v === canonicalDefault(p)) continue;
    q.push(encodeURIComponent(p.name) + "=" + encodeURIComponent(v).replace(/%2C/g, ",").replace(/%3A/g, ":"));
  }
  return q.join("&");
}

function canonicalDefault(p) { return canonical({ params: [p] }, { [p.name]: p.default })[p.name]; }

// decode reads a query into values (unknown names are ignored here; the server reports them).
export function decode(spec, search) {
  const q = new URLSearchParams(search);
  const v = defaults(spec);
  for (const p of spec.params) if (q.has(p.name)) v[p.name] = q.get(p.name);
  return v;
}

// check validates every value against its declaration and returns all problems at once, in
// plain words. The server checks again; its word is final.
export function check(spec, values) {
  const errs = {};
  for (const p of spec.params) {
    const msg = checkOne(p, String(values[p.name] ?? "").trim());
    if (msg) errs[p.name] = msg;
  }
  return errs;
}

function bounds(p) {
  const f = (x) => paramValue(p, p.kind === "duration" ? goDuration(x) : String(x));
  return `from ${f(p.min)} to ${f(p.max)}`;
}

function checkOne(p, v) {
  if (v === "" && p.kind === "enum_list") return `Choose at least one of ${p.label.toLowerCase()}.`;
  if (v === "") return `${p.label} needs a value.`;
  switch (p.kind) {
    case "int": {
      if (!/^[+-]?\d+$/.test(v)) return `${p.label} must be a whole number ${bounds(p)}.`;
      const x = Number(v);
      if (x < p.min || x > p.max) return `${p.label} must be ${bounds(p)}; ${v} is out of range.`;
      return "";
    }
    case "float": {
      const x = Number(v);
      if (!isFinite(x)) return `${p.label} must be a number ${bounds(p)}.`;
      if (x < p.min || x > p.max) return `${p.label} must be ${bounds(p)}; ${v} is out of range.`;
      return "";
    }
    case "duration": {
      const ms = parseDuration(v);
      if (!isFinite(ms)) return `${p.label} must be a duration such as 5ms or 2s, ${bounds(p)}.`;
      if (ms < p.min || ms > p.max) return `${p.label} must be ${bounds(p)}; ${v} is out of range.`;
      return "";
    }
    case "enum":
      return p.options.includes(v) ? "" : `${p.label} must be one of ${p.options.join(", ")}.`;
    case "enum_list": {
      const l = v.split(",");
      if (l.some((o) => !p.options.includes(o))) return `${p.label} may only list ${p.options.join(", ")}.`;
      return "";
    }
    case "int_range": {
      if (v === "off") return "";
      const m = /^(\d+):(\d+):(\d+)$/.exec(v);
      if (!m) return `${p.label} must be from:to:step (such as 10:190:10) or off.`;
      const [a, b, s] = [Number(m[1]), Number(m[2]), Number(m[3])];
      if (s < 1 || a > b) return `${p.label} must go up from “from” to “to” in steps of at least 1.`;
      if (a < p.min || b > p.max) return `${p.label} must stay ${bounds(p)}.`;
      if (p.max_len && Math.floor((b - a) / s) + 1 > p.max_len) return `${p.label} may have at most ${p.max_len} points; use a larger step.`;
      return "";
    }
  }
  return "";
}
