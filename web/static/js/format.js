// Formatting of numbers, durations and percentages for people to read. (Durations as the Go
// duration strings URLs use are parameter rules: js/params.js reads and writes them.)
import { parseDuration } from "./params.js";
export { goDuration, parseDuration } from "./params.js";

const MINUS = "\u2212";

// sig writes x with n significant digits, without trailing zeros and with a real minus sign.
export function sig(x, n = 3) {
  if (!isFinite(x)) return String(x);
  if (x === 0) return "0";
  const s = String(Number(x.toPrecision(n)));
  return s.replace(/^-/, MINUS);
}

// group writes x with thousands separators and the given decimals.
export function group(x, digits = 0) {
  let f = groupers.get(digits);
  if (!f) groupers.set(digits, (f = new Intl.NumberFormat("en", { minimumFractionDigits: digits, maximumFractionDigits: digits })));
  return f.format(x).replace(/^-/, MINUS);
}
// Number formats by decimals: making one costs far more than using it (toLocaleString makes
// one per call), and a dragged page writes thousands of numbers a second.
const groupers = new Map();

// duration writes milliseconds in the unit an axis reaching them would use (durationUnit):
// 850 µs, 5.2 ms, 63.3 s, 84.7 min, 3.1 h — so that one number reads the same in a table, on
// an axis and in a tour's text (labtest.Duration writes it so for the texts' quotes).
export function duration(ms, n = 3) {
  if (!isFinite(ms)) return String(ms);
  if (ms === 0) return "0 s";
  const u = durationUnit(ms);
  return sig(ms / u.per, n) + " " + u.name;
}

// durationUnit picks one unit for a whole axis whose largest value is max (milliseconds).
export function durationUnit(max) {
  const a = Math.abs(max);
  if (a < 1) return { name: "µs", per: 1e-3 };
  if (a < 2000) return { name: "ms", per: 1 };
  if (a < 120000) return { name: "s", per: 1e3 };
  if (a < 7200000) return { name: "min", per: 6e4 };
  if (a < 172800000) return { name: "h", per: 3.6e6 };
  return { name: "d", per: 864e5 };
}

// percent writes a percentage with digits decimals, adding decimals rather than rounding a
// value that is not ±100 or 0 onto ±100 or 0 (−99.8% stays −99.8%, never −100%).
export function percent(x, digits = 0) {
  let d = digits;
  while (d < 3) {
    const r = Number(x.toFixed(d));
    if ((Math.abs(r) === 100 && Math.abs(x) !== 100) || (r === 0 && x !== 0)) d++;
    else break;
  }
  return group(x, d) + "%";
}

// optionLabel is what people read for option o of enum parameter p (its declared label, as
// param.Spec.OptionLabel): the page shows labels, URLs and JSON keep the names.
export function optionLabel(p, o) {
  const i = p && p.options ? p.options.indexOf(o) : -1;
  return i >= 0 && p.option_labels && p.option_labels[i] ? p.option_labels[i] : o;
}

// labeller returns the function that writes a name a lab's results use (a series' label, a
// summary row, a small multiple's panel) for people: the label of the option of that name of
// the chart's key parameter (lab.Chart.Key, when a chart id is given), else of the view key's,
// else of any enum parameter's, else the label the view declares for a name a run reports
// (lab.View.Names: "get_set"), else the name itself (exact, limit, offered); the part before
// ", " of a qualified name ("async, 8 instances") likewise.
export function labeller(spec) {
  const byName = new Map();
  const key = spec.params.find((p) => p.name === spec.view.key);
  for (const p of [key, ...spec.params]) {
    if (!p || !p.options) continue;
    for (const o of p.options) if (!byName.has(o)) byName.set(o, optionLabel(p, o));
  }
  const chartKey = new Map(spec.view.charts.filter((c) => c.key).map((c) => [c.id, spec.params.find((p) => p.name === c.key)]));
  const one = (name, chart) => {
    const p = chart && chartKey.get(chart);
    if (p && p.options && p.options.includes(name)) return optionLabel(p, name);
    return byName.get(name) ?? spec.view.names?.[name];
  };
  // A name a lab qualifies ("async, 8 instances": a store on other instances than the
  // scenario's) is written with the label of what it qualifies.
  return (name, chart) => {
    const whole = one(name, chart);
    if (whole !== undefined) return whole;
    const i = name.indexOf(", ");
    const head = i > 0 ? one(name.slice(0, i), chart) : undefined;
    return head !== undefined ? head + name.slice(i) : name;
  };
}

// value writes a parameter's value for people: durations in their largest unit, numbers with
// their unit ("100 clients" is left to the label: "Clients, 100").
export function paramValue(p, v) {
  if (p.kind === "duration") {
    const ms = parseDuration(v);
    return isFinite(ms) ? duration(ms) : String(v);
  }
  if (p.kind === "int" || p.kind === "float") {
    const x = Number(v);
    if (!isFinite(x)) return String(v);
    return (p.kind === "int" ? group(x) : sig(x, 4)) + (p.unit ? " " + p.unit : "");
  }
  if (p.kind === "enum_list") return String(v).split(",").map((o) => optionLabel(p, o)).join(", ");
  if (p.kind === "enum") return optionLabel(p, String(v));
  if (p.kind === "int_range") {
    if (v === "off") return "off";
    const [a, b, c] = String(v).split(":");
    return `${a} to ${b} in steps of ${c}`;
  }
  return String(v);
}

// tick formats axis tick values: durations in the unit chosen for the axis, percentages with
// a sign, other numbers compactly.
export function number(x) {
  const a = Math.abs(x);
  if (a >= 1e6) return sig(x / 1e6, 3) + "M";
  if (a >= 1e4) return sig(x / 1e3, 3) + "k";
  if (a >= 1000) return group(x, 0);
  return sig(x, 4);
}
