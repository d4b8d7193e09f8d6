// Series styles, from the server's declarations (sent in the lab's spec): the place of every
// option that labels series (lab.View.Places: the view key's options first, then those of each
// chart's own key) and the style of each place (web.Styles: colours that stay distinct under
// the common colour-vision deficiencies and keep 3:1 contrast against the page, light or dark,
// and a dash, no two places of the first 49 alike); greys for references. A series keeps one
// style on every chart, and no two series of a chart look alike. The previews on the front
// page use the same places.

// styler returns style(series, list): the style of a series among the series of its chart
// (list). A series whose label is an option of its chart's key parameter (lab.Chart.Key, else
// the view's) takes that option's place, the same for every viewer of every URL. A reference —
// a series of tone "neutral" (an exact count, a limit, the offered load), or any other label
// beside compared options — is grey: the references of a chart take, in order, the first grey
// and dash no other took, a broken line for one that asks for it (style "dashed"). Any other
// label takes the places after every option's, in the order of the chart's series.
export function styler(spec) {
  const { palette, places = {}, styles = [], view } = spec;
  const keyOf = new Map(view.charts.map((c) => [c.id, c.key || view.key]));
  const total = Object.values(places).reduce((n, m) => n + Object.keys(m).length, 0);
  const placeOf = (x) => (x.tone === "neutral" ? undefined : places[(x.chart && keyOf.get(x.chart)) || view.key]?.[x.label]);
  return function style(s, list = [s]) {
    const isOption = (x) => placeOf(x) !== undefined;
    const compared = list.some(isOption);
    const ref = (x) => x.tone === "neutral" || (compared && !isOption(x));
    const dark = isDark();
    if (ref(s)) {
      const refs = [...new Map(list.filter(ref).map((x) => [x.label, x])).values()];
      if (!refs.some((x) => x.label === s.label)) refs.push(s);
      const greys = dark ? palette.ref_dark : palette.ref;
      const combos = Array.from({ length: greys.length * palette.ref_dashes.length }, (_, k) => ({ k, g: k % greys.length, d: k % palette.ref_dashes.length }));
      const used = new Set();
      for (const x of refs) {
        const broken = x.style === "dashed";
        const c = combos.find((c) => !used.has(c.k) && (!broken || palette.ref_dashes[c.d].length)) || combos.find((c) => !used.has(c.k)) || combos[0];
        used.add(c.k);
        if (x.label === s.label) return { index: total + 100 + c.k, colour: greys[c.g], dash: palette.ref_dashes[c.d], ref: true };
      }
    }
    let i = placeOf(s);
    if (i === undefined) i = total + Math.max(0, [...new Set(list.filter((x) => !ref(x) && !isOption(x)).map((x) => x.label))].indexOf(s.label));
    const st = styles[i % styles.length];
    return { index: i, colour: dark ? st.dark : st.light, dash: st.dash, dashName: st.dash_name };
  };
}

const darkQuery = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null;

// isDark reports whether the page shows its dark theme: the one its URL fixes (an embed's
// theme=light|dark, as html[data-theme]), else the system's setting.
export function isDark() {
  const fixed = typeof document !== "undefined" ? document.documentElement.dataset.theme : "";
  if (fixed === "light" || fixed === "dark") return fixed === "dark";
  return !!darkQuery && darkQuery.matches;
}

// onThemeChange calls fn when the system switches between light and dark.
export function onThemeChange(fn) { darkQuery?.addEventListener("change", fn); }

let inked = null;
onThemeChange(() => { inked = null; });

// ink returns the page's colours for drawing on canvas, as the stylesheet sets them for the
// theme on show.
export function ink() {
  if (inked) return inked;
  const css = getComputedStyle(document.documentElement);
  const v = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
  inked = { fg: v("--fg", "#1b1b1b"), bg: v("--bg", "#fff"), grid: v("--grid", "rgba(0,0,0,.07)"), mark: v("--mark", "#333") };
  return inked;
}
