// Series styles, from the one palette the server declares (web.Palette, sent in the lab's
// spec): colours that stay distinct under the common colour-vision deficiencies and keep 3:1
// contrast against the page, light or dark, each with its own dash pattern so that series can
// be told apart without colour; greys for references. The previews on the front page use the
// same palette and the same rule.

// styler returns style(series, list): the style of a series among the series of its chart
// (list). A series whose label is an option of the view's key parameter takes that option's
// place, the same for every viewer of every URL. A reference — a series of tone "neutral" (an
// exact count, a limit, the offered load), or any other label beside compared options — is
// grey, with the dash of its place among the chart's references. Any other label takes the
// places after the options, in the order of the chart's series.
export function styler(palette, keyOptions) {
  const isOption = (s) => s.tone !== "neutral" && keyOptions.includes(s.label);
  return function style(s, list = [s]) {
    const compared = list.some(isOption);
    const ref = (x) => x.tone === "neutral" || (compared && !keyOptions.includes(x.label));
    const dark = isDark();
    if (ref(s)) {
      const r = Math.max(0, [...new Set(list.filter(ref).map((x) => x.label))].indexOf(s.label));
      const greys = dark ? palette.ref_dark : palette.ref;
      const d = r % palette.ref_dashes.length;
      return { index: keyOptions.length + 100 + r, colour: greys[r % greys.length], dash: palette.ref_dashes[d], ref: true };
    }
    let i = keyOptions.indexOf(s.label);
    if (i < 0) i = keyOptions.length + Math.max(0, [...new Set(list.filter((x) => !ref(x) && !isOption(x)).map((x) => x.label))].indexOf(s.label));
    // Past the last colour the dashes shift, so that no two places share colour and dash.
    const n = palette.light.length;
    const d = (i + Math.floor(i / n)) % palette.dashes.length;
    const set = dark ? palette.dark : palette.light;
    return { index: i, colour: set[i % set.length], dash: palette.dashes[d], dashName: palette.dash_names[d] };
  };
}

const darkQuery = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null;

// isDark reports whether the page shows its dark theme (the system's setting).
export function isDark() { return !!darkQuery && darkQuery.matches; }

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
