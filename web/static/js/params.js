// Every parameter rule of the page, in one place, driven by the declarations the server sends
// (param.Spec, in the spec): parsing and validation with the server's own messages
// ("clients must be between 1 and 1000, got 5000"), the canonical form of each value and of a
// scenario's query, Go duration strings read and written as Go does, and the mapping of
// logarithmic sliders. It follows package param line by line; the vectors of
// param/testdata/conformance.json run against both (param.TestConformance in Go,
// e2e.TestParamsConformance in Chromium), so the two cannot drift apart.

const MAX_VALUE_LEN = 256; // param.MaxValueLen, in bytes

// parse checks one raw value (URL form) against its declaration p, as param.Spec.parse does.
// It returns {canonical} — the value in the one form the server writes it — or {error}.
export function parse(p, raw) {
  raw = String(raw);
  const err = (msg) => ({ error: msg });
  if (raw === "") return err(`${p.name} must not be empty; ${allowed(p)}`);
  // A UTF-16 code unit is at most 3 bytes of UTF-8: short values need no count.
  const bytes = raw.length * 3 <= MAX_VALUE_LEN ? 0 : utf8Length(raw);
  if (bytes > MAX_VALUE_LEN) return err(`${p.name} is ${bytes} bytes long; the limit is ${MAX_VALUE_LEN}`);
  const malformed = (want) => err(["int", "float", "duration"].includes(p.kind)
    ? `${p.name} must be ${want} between ${bound(p, p.min)} and ${bound(p, p.max)}, got ${quote(clip(raw))}`
    : `${p.name} must be ${want}, got ${quote(clip(raw))}`);
  const outOfRange = () => err(`${p.name} must be between ${bound(p, p.min)} and ${bound(p, p.max)}, got ${clip(raw)}`);
  switch (p.kind) {
    case "int": {
      const n = parseInt64(raw);
      if (n === null) return malformed("a whole number");
      if (Number(n) < p.min || Number(n) > p.max) return outOfRange();
      return { canonical: n.toString() };
    }
    case "float": {
      const f = parseFloat64(raw);
      if (f === null || !isFinite(f)) return malformed("a finite number");
      if (f < p.min || f > p.max) return outOfRange();
      return { canonical: formatFloat(f) };
    }
    case "duration": {
      const ns = parseDurationNs(raw);
      if (ns === null) return malformed("a duration such as 5ms or 2s");
      const ms = Number(ns) / 1e6;
      if (ms < p.min || ms > p.max) return outOfRange();
      return { canonical: formatDurationNs(ns) };
    }
    case "enum":
      return p.options.includes(raw) ? { canonical: raw } : malformed("one of " + p.options.join(", "));
    case "enum_list": {
      for (const part of raw.split(",")) {
        if (!p.options.includes(part)) return err(`${p.name}: unknown value ${quote(clip(part))}; choose from ${p.options.join(", ")}`);
      }
      const parts = raw.split(",");
      const list = [];
      for (const o of p.options) {
        const n = parts.filter((x) => x === o).length;
        if (n > 1) return err(`${p.name} lists ${quote(o)} more than once`);
        if (n === 1) list.push(o);
      }
      return { canonical: list.join(",") };
    }
    case "bool":
      if (raw === "true" || raw === "1") return { canonical: "true" };
      if (raw === "false" || raw === "0") return { canonical: "false" };
      return malformed("true or false");
    case "int_range": {
      if (raw === "off") return { canonical: "off" };
      const parts = raw.split(":");
      if (parts.length !== 3) return malformed("from:to:step, such as 10:190:10, or off");
      const n = parts.map(parseInt64);
      if (n.some((x) => x === null)) return malformed("from:to:step in whole numbers, such as 10:190:10, or off");
      const [from, to, step] = n;
      if (Number(from) < p.min || Number(to) > p.max) return err(`${p.name} must lie between ${bound(p, p.min)} and ${bound(p, p.max)}, got ${clip(raw)}`);
      if (to < from) return err(`${p.name}: from (${from}) must not exceed to (${to})`);
      if (step < 1n) return err(`${p.name}: step must be at least 1, got ${step}`);
      const len = (to - from) / step + 1n;
      if (p.max_len > 0 && len > BigInt(p.max_len)) return err(`${p.name} has ${len} points; at most ${p.max_len} are allowed`);
      return { canonical: `${from}:${from + (len - 1n) * step}:${step}` }; // 10:195:10 is 10:190:10
    }
  }
  return err(`${p.name} has an unknown kind`);
}

// allowed describes the values p accepts, as param.Spec.allowed does.
function allowed(p) {
  switch (p.kind) {
    case "enum": return "choose one of " + p.options.join(", ");
    case "enum_list": return "choose from " + p.options.join(", ");
    case "bool": return "use true or false";
    case "int_range": return `use from:to:step between ${bound(p, p.min)} and ${bound(p, p.max)}, or off`;
  }
  return `use a value between ${bound(p, p.min)} and ${bound(p, p.max)}`;
}

// bound writes a declared bound in the parameter's URL form (param.Spec.format).
function bound(p, x) {
  if (p.kind === "duration") return formatDurationNs(BigInt(Math.round(x * 1e6)));
  return plainNumber(x);
}

// check validates every value of a scenario and returns all problems at once: name → the
// server's message. The server checks again (the work budget, rules across parameters); its
// word is final.
export function check(spec, values) {
  const errs = {};
  for (const p of spec.params) {
    const r = parse(p, values[p.name] ?? "");
    if (r.error) errs[p.name] = r.error;
  }
  return errs;
}

export function defaults(spec) {
  return Object.fromEntries(spec.params.map((p) => [p.name, p.default]));
}

// canonical returns valid values in canonical URL form (Values.Format): lists in declared
// order, numbers and durations written the one way the server writes them.
export function canonical(spec, values) {
  const out = {};
  for (const p of spec.params) {
    const r = parse(p, values[p.name] ?? p.default);
    out[p.name] = r.error ? String(values[p.name]) : r.canonical;
  }
  return out;
}

// encode returns the query of a canonical scenario (Values.Encode): declared order, defaults
// left out, commas and colons unescaped.
export function encode(spec, values) {
  const q = [];
  for (const p of spec.params) {
    const v = values[p.name];
    if (v === undefined || v === defaultOf(p)) continue;
    q.push(encodeURIComponent(p.name) + "=" + encodeURIComponent(v).replace(/%2C/g, ",").replace(/%3A/g, ":"));
  }
  return q.join("&");
}

// defaultOf returns p's default in canonical form, parsed once per declaration.
const defaultForms = new WeakMap();
function defaultOf(p) {
  if (!defaultForms.has(p)) defaultForms.set(p, parse(p, p.default).canonical);
  return defaultForms.get(p);
}

// decode reads a query into values (unknown names are ignored here; the server reports them).
export function decode(spec, search) {
  const q = new URLSearchParams(search);
  const v = defaults(spec);
  for (const p of spec.params) if (q.has(p.name)) v[p.name] = q.get(p.name);
  return v;
}

// same reports whether two URL-form values of p mean the same.
export function same(p, a, b) {
  if (String(a) === String(b)) return true;
  const x = parse(p, a), y = parse(p, b);
  if (x.error || y.error) return String(a) === String(b);
  return x.canonical === y.canonical;
}

// formatParam writes a value of the server's params map (JSON) in URL form.
export function formatParam(p, v) {
  if (v === undefined || v === null) return p.default;
  if (Array.isArray(v)) return v.join(",");
  return String(v);
}

// applies tells whether a parameter's condition (param.When) holds for values v: the other
// parameter has, or for a list contains, one of w.values; or, with w.min, it is at least w.min
// (durations compared in milliseconds, the unit of their declarations).
export function applies(spec, w, v) {
  const raw = String(v[w.param] ?? "");
  if (w.min != null) {
    const other = spec.params.find((q) => q.name === w.param);
    const x = other && other.kind === "duration" ? parseDuration(raw) : Number(raw);
    return isFinite(x) && x >= w.min;
  }
  const have = raw.split(",");
  return (w.values || []).some((x) => have.includes(x));
}

// fromSlider is the value (URL form) of a slider at position pos: on a logarithmic slider
// (p.log) the positions 0…spec.log_steps spread min…max evenly in the logarithm, to three
// significant digits.
export function fromSlider(spec, p, pos) {
  let v = Number(pos);
  if (p.log) v = Number((p.min * Math.pow(p.max / p.min, v / spec.log_steps)).toPrecision(3));
  v = Math.min(p.max, Math.max(p.min, v));
  if (p.kind === "duration") return goDuration(v);
  if (p.kind === "int") return String(Math.round(v));
  const d = p.step && p.step < 1 ? Math.min(6, Math.ceil(-Math.log10(p.step))) : 0;
  return formatFloat(Number(v.toFixed(d)));
}

// toSlider is the slider position of a value (URL form), or null when it is no number.
export function toSlider(spec, p, text) {
  const v = p.kind === "duration" ? parseDuration(text) : Number(text);
  if (!isFinite(v)) return null;
  if (p.log) return Math.round((spec.log_steps * Math.log(Math.max(v, p.min) / p.min)) / Math.log(p.max / p.min));
  return v;
}

// parseDuration reads a Go duration string into milliseconds (NaN when malformed).
export function parseDuration(s) {
  const ns = parseDurationNs(String(s));
  return ns === null ? NaN : Number(ns) / 1e6;
}

// goDuration writes milliseconds as the server writes a duration (param.FormatDuration):
// 5ms, 1.5s, 1m30s, 2m, 1h.
export function goDuration(ms) {
  return formatDurationNs(BigInt(Math.round(ms * 1e6)));
}

// --- Go's parsers and printers, as the server runs them ---

const INT64_MAX = (1n << 63n) - 1n, INT64_MIN = -(1n << 63n);

// parseInt64 is strconv.ParseInt(s, 10, 64): an optional sign and decimal digits, in range.
function parseInt64(s) {
  if (!/^[+-]?[0-9]+$/.test(s)) return null;
  const n = BigInt(s);
  return n > INT64_MAX || n < INT64_MIN ? null : n;
}

// parseFloat64 is strconv.ParseFloat(s, 64): decimal or hexadecimal (with a p exponent)
// notation, underscores between digits as in Go's literals; null when s is none of them or out
// of range, ±Infinity or NaN for Go's inf, infinity and nan.
function parseFloat64(s) {
  const m = /^([+-]?)(.*)$/s.exec(s);
  const sign = m[1] === "-" ? -1 : 1;
  if (/^(inf|infinity)$/i.test(m[2])) return sign * Infinity;
  if (/^nan$/i.test(m[2])) return NaN;
  if (!underscoreOK(s)) return null;
  const body = m[2].replaceAll("_", "");
  if (/^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(body)) {
    const f = Number(body);
    return isFinite(f) ? sign * f : null; // overflow is a range error
  }
  const h = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?[0-9]+)$/.exec(body);
  if (h && (h[1] || h[2])) {
    const frac = h[2] || "";
    let mant = 0;
    for (const c of h[1] + frac) mant = mant * 16 + parseInt(c, 16);
    const f = mant * Math.pow(2, Number(h[3]) - 4 * frac.length);
    return isFinite(f) ? sign * f : null;
  }
  return null;
}

// underscoreOK is strconv's rule for underscores in a number: only between digits, or between
// a base prefix and a digit.
function underscoreOK(s) {
  let saw = "^", i = 0;
  if (s[0] === "-" || s[0] === "+") s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === "0" && "box".includes(s[1].toLowerCase())) {
    i = 2;
    saw = "0";
    hex = s[1].toLowerCase() === "x";
  }
  for (; i < s.length; i++) {
    const c = s[i];
    if ((c >= "0" && c <= "9") || (hex && /[a-fA-F]/.test(c))) { saw = "0"; continue; }
    if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}

// formatFloat is strconv.FormatFloat(x, 'g', -1, 64): the shortest digits that read back as
// x, with an exponent when it is below −4 or at least 6 (the server's canonical floats).
export function formatFloat(x) {
  if (Object.is(x, -0)) return "-0";
  if (x === 0) return "0";
  if (!isFinite(x)) return x > 0 ? "+Inf" : x < 0 ? "-Inf" : "NaN";
  const [mant, e] = Math.abs(x).toExponential().split("e");
  const digits = mant.replace(".", ""), exp = Number(e), sign = x < 0 ? "-" : "";
  if (exp < -4 || exp >= 6) {
    const ee = Math.abs(exp) < 10 ? "0" + Math.abs(exp) : String(Math.abs(exp));
    return sign + digits[0] + (digits.length > 1 ? "." + digits.slice(1) : "") + "e" + (exp < 0 ? "-" : "+") + ee;
  }
  if (exp < 0) return sign + "0." + "0".repeat(-exp - 1) + digits;
  if (digits.length <= exp + 1) return sign + digits + "0".repeat(exp + 1 - digits.length);
  return sign + digits.slice(0, exp + 1) + "." + digits.slice(exp + 1);
}

// plainNumber is strconv.FormatFloat(x, 'f', -1, 64): the shortest digits, no exponent.
function plainNumber(x) {
  if (Object.is(x, -0)) return "-0";
  if (x === 0) return "0";
  const [mant, e] = Math.abs(x).toExponential().split("e");
  const digits = mant.replace(".", ""), exp = Number(e), sign = x < 0 ? "-" : "";
  if (exp < 0) return sign + "0." + "0".repeat(-exp - 1) + digits;
  if (digits.length <= exp + 1) return sign + digits + "0".repeat(exp + 1 - digits.length);
  return sign + digits.slice(0, exp + 1) + "." + digits.slice(exp + 1);
}

const UNITS = { ns: 1n, us: 1000n, "µs": 1000n, "μs": 1000n, ms: 1000000n, s: 1000000000n, m: 60000000000n, h: 3600000000000n };

// parseDurationNs is time.ParseDuration, in nanoseconds (a BigInt), or null.
function parseDurationNs(s) {
  let neg = false;
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") return null;
  let d = 0n;
  const digit = (c) => c >= "0" && c <= "9";
  while (s !== "") {
    if (!(s[0] === "." || digit(s[0]))) return null;
    // The integer part.
    let i = 0, v = 0n;
    while (i < s.length && digit(s[i])) {
      v = v * 10n + BigInt(s[i]);
      if (v > 1n << 63n) return null;
      i++;
    }
    const pre = i > 0;
    s = s.slice(i);
    // The fraction: digits beyond what int64 holds are dropped, as Go drops them.
    let f = 0n, scale = 1, post = false;
    if (s[0] === ".") {
      s = s.slice(1);
      let j = 0, overflow = false;
      while (j < s.length && digit(s[j])) {
        j++;
        if (overflow) continue;
        if (f > INT64_MAX / 10n) { overflow = true; continue; }
        const y = f * 10n + BigInt(s[j - 1]);
        if (y > 1n << 63n) { overflow = true; continue; }
        f = y;
        scale *= 10;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) return null;
    // The unit.
    let k = 0;
    while (k < s.length && s[k] !== "." && !digit(s[k])) k++;
    if (k === 0) return null; // missing unit
    const unit = UNITS[s.slice(0, k)];
    if (unit === undefined) return null;
    s = s.slice(k);
    if (v > (1n << 63n) / unit) return null;
    v *= unit;
    if (f > 0n) {
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > 1n << 63n) return null;
    }
    d += v;
    if (d > 1n << 63n) return null;
  }
  if (neg) return -d;
  return d > INT64_MAX ? null : d;
}

// formatDurationNs is time.Duration.String with a trailing "0s" or "0m" dropped
// (param.FormatDuration): 1h rather than 1h0m0s.
function formatDurationNs(d) {
  if (d === 0n) return "0s";
  const neg = d < 0n ? "-" : "";
  let u = d < 0n ? -d : d;
  const frac = (v, prec) => { // v's last prec digits as a fraction, without trailing zeros
    let digits = "", print = false;
    for (let i = 0; i < prec; i++) {
      const dg = v % 10n;
      print = print || dg !== 0n;
      if (print) digits = dg.toString() + digits;
      v /= 10n;
    }
    return [print ? "." + digits : "", v];
  };
  let out;
  if (u < 1000000000n) {
    const [unit, prec] = u < 1000n ? ["ns", 0] : u < 1000000n ? ["µs", 3] : ["ms", 6];
    const [f, whole] = frac(u, prec);
    out = whole.toString() + f + unit;
  } else {
    const [f, secs] = frac(u, 9);
    u = secs;
    out = (u % 60n).toString() + f + "s";
    u /= 60n;
    if (u > 0n) {
      out = (u % 60n).toString() + "m" + out;
      u /= 60n;
      if (u > 0n) out = u.toString() + "h" + out;
    }
  }
  out = neg + out;
  if (out.endsWith("m0s")) out = out.slice(0, -2);
  if (out.endsWith("h0m")) out = out.slice(0, -2);
  return out;
}

const utf8 = new TextEncoder();
function utf8Length(s) { return utf8.encode(s).length; }

// clip shortens s to about 40 bytes of UTF-8 for a message, cutting between characters.
function clip(s) {
  if (utf8Length(s) <= 40) return s;
  let out = "", n = 0;
  for (const c of s) {
    const l = utf8Length(c);
    if (n + l > 40) break;
    out += c;
    n += l;
  }
  return out + "…";
}

// quote is strconv.Quote: s in double quotes, with backslash escapes for quotes, backslashes
// and characters that do not print.
function quote(s) {
  let out = '"';
  for (const c of s) {
    const cp = c.codePointAt(0);
    if (c === '"' || c === "\\") out += "\\" + c;
    else if (cp < 0x80 && cp >= 0x20 && cp !== 0x7f) out += c;
    else if (cp < 0x80) {
      const named = { 7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v" }[cp];
      out += named || "\\x" + cp.toString(16).padStart(2, "0");
    } else if (/^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(c)) out += c;
    else if (cp < 0x10000) out += "\\u" + cp.toString(16).padStart(4, "0");
    else out += "\\U" + cp.toString(16).padStart(8, "0");
  }
  return out + '"';
}
