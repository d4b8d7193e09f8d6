// Series styles. Colours are chosen to stay distinct for the common colour-vision deficiencies
// (simulated protanopia, deuteranopia and tritanopia: every pair at least 30 CIELAB ΔE apart)
// and to have at least 3:1 contrast against the white page; every style also has its own dash
// pattern, so series can be told apart without colour at all.
export const colours = ["#0072B2", "#D55E00", "#000000", "#8811FF", "#996666", "#771100", "#550055"];
// On the dark theme (prefers-color-scheme: dark) the same places take these colours: at least
// 3:1 contrast against the dark page and as far apart under the same simulations.
export const darkColours = ["#56B4E9", "#E69F00", "#F2F2F2", "#BC62F8", "#838228", "#D3AA99", "#86A8B6"];
export const dashes = [[], [8, 4], [2, 3], [10, 3, 2, 3], [16, 4], [6, 3, 2, 3, 2, 3], [4, 6]];
export const dashNames = ["solid", "dashed", "dotted", "dash-dot", "long dash", "dash-dot-dot", "sparse dash"];

// styler gives each series label its style: a label that is an option of the view's key
// parameter always takes that option's place (the same for every viewer of every URL); other
// labels take the places after the options, in order of first sight.
export function styler(keyOptions) {
  const others = new Map();
  return function style(label) {
    let i = keyOptions.indexOf(label);
    if (i < 0) {
      if (!others.has(label)) others.set(label, keyOptions.length + others.size);
      i = others.get(label);
    }
    // Past the seventh style the dashes shift, so that no two places share colour and dash.
    const d = (i + Math.floor(i / colours.length)) % dashes.length;
    const set = isDark() ? darkColours : colours;
    return { index: i, colour: set[i % set.length], dash: dashes[d], dashName: dashNames[d] };
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
