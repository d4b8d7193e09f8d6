// Export: the links to the scenario on show — its data as CSV and JSON (the API's URLs of its
// canonical query), the JSON link under the controls, the compare view with this scenario as A
// and B and the embed snippet, all made from js/links.js's query and page of what is on screen
// and kept up to date as the scenario and the address change; and each chart as a PNG image (its title, the scenario, its legend and
// panels drawn onto one canvas). The embed snippet's frame is as tall as the embed view of the
// scenario: the lab page loads that view out of sight and the view reports its height
// (wireEmbedView), so no snippet cuts through a chart.
import { encode } from "./params.js";
import { shownQuery, scenarioPath } from "./links.js";
import { paramValue } from "./format.js";
import { pictureValues } from "./status.js";

// embedWidth is the embed snippet's frame width (px), at which its height is measured.
const embedWidth = 800;

// scenarioWords writes a scenario for people: its parameters that differ from the defaults
// (those its canonical URL names), with their values ("Clients: 50 · Trials: 8"), or "The
// default scenario".
export function scenarioWords(spec, values) {
  const byName = new Map(spec.params.map((p) => [p.name, p]));
  const parts = [...new URLSearchParams(encode(spec, values)).keys()].map((n) => byName.get(n)).filter(Boolean)
    .map((p) => `${p.label}: ${paramValue(p, values[p.name])}`);
  return parts.length ? parts.join(" · ") : "The default scenario";
}

// wireExport keeps the page's export links on the scenario shown and wires the PNG and embed
// buttons.
export function wireExport(state) {
  const name = state.spec.name;
  if (document.body.classList.contains("embed")) {
    wireEmbedView(state);
    return;
  }
  let measured = { query: null, height: 0 }; // the embed view's height for a query
  let measuring = null; // {query, cancel}: the one measurement under way
  const update = () => {
    const q = shownQuery();
    const query = q ? "?" + q : "";
    setHref("csv-download", `/api/v1/${name}.csv${query}`);
    setHref("json-download", `/api/v1/${name}${query}`);
    // Downloads named after the scenario, as the server names the CSV (lab.FileName).
    setAttr("csv-download", "download", fileName(`/${name}${query}`, "csv"));
    setAttr("json-download", "download", fileName(`/${name}${query}`, "json"));
    setHref("json-link", `/api/v1/${name}${query}`);
    const page = scenarioPath(state.spec, q);
    setHref("compare-link", `/compare?a=${encodeURIComponent(page)}&b=${encodeURIComponent(page)}`);
    const code = document.getElementById("embed-code");
    const box = document.getElementById("embed-box");
    if (code) {
      const height = measured.query === query ? measured.height : 0;
      const snippet = embedSnippet(location.origin, name, query, document.querySelector(".lab-head h1")?.textContent || name, height);
      if (code.value !== snippet) code.value = snippet;
      code.dataset.measured = height ? query : "";
      const size = document.getElementById("embed-size");
      if (size) size.textContent = height ? `The frame is ${embedWidth} × ${height} px: the whole embed view of this scenario.` : "Measuring the embed view’s height…";
      // Measure the view of the scenario on show while the box is open, newest scenario first.
      // A newer scenario cancels the measurement of an older one (a drag loads one view at a time).
      if (box && !box.hidden && !height && measuring?.query !== query) {
        measuring?.cancel();
        const m = measureEmbed(`/embed/${name}${query}`);
        measuring = { query, cancel: m.cancel };
        m.height.then((h) => {
          measuring = null;
          measured = { query, height: h };
          update();
        }, (err) => {
          if (measuring?.query !== query) return; // cancelled
          measuring = null;
          if (size) size.textContent = `Could not measure the embed view (${err.message}); the frame is ${embedWidth} × 450 px.`;
        });
      }
    }
  };
  state.on("values", update);
  state.on("accepted", update);
  state.on("address", update);
  addEventListener("popstate", update);
  update();

  for (const b of document.querySelectorAll("button.png[data-png]")) {
    b.addEventListener("click", async () => {
      const section = b.closest(".chart");
      try {
        const blob = await chartPNG(section, pngCaption(state));
        // The chart's id, then the scenario the picture shows (its caption's address).
        const shown = new URL(pngCaption(state)[1]);
        download(blob, fileName(`/${name}-${b.dataset.png}${shown.search}`, "png"));
      } catch (err) {
        say(`Could not make the image: ${err.message}`);
      }
    });
  }

  const embed = document.getElementById("embed-button");
  const box = document.getElementById("embed-box");
  if (embed && box) {
    embed.addEventListener("click", () => {
      box.hidden = !box.hidden;
      embed.setAttribute("aria-expanded", String(!box.hidden));
      if (!box.hidden) {
        update();
        const code = document.getElementById("embed-code");
        code.focus();
        code.select();
      }
    });
    document.getElementById("embed-copy")?.addEventListener("click", async () => {
      const code = document.getElementById("embed-code");
      try {
        await navigator.clipboard.writeText(code.value);
        say("Embed snippet copied.");
      } catch {
        code.focus();
        code.select();
        say("Press Ctrl+C (⌘C) to copy the selected snippet.");
      }
    });
  }
}

// embedSnippet is the iframe that shows the chart-only view of a scenario on another page,
// height px tall (450 until it is measured).
export function embedSnippet(origin, name, query, title, height) {
  const src = `${origin}/embed/${name}${query}`.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
  const t = String(title).replace(/&/g, "&amp;").replace(/"/g, "&quot;");
  return `<iframe src="${src}" width="${embedWidth}" height="${height || 450}" style="border:0" title="${t} · Resilience Playground" loading="lazy"></iframe>`;
}

// measureEmbed loads the embed view at src out of sight, embedWidth wide: height resolves to
// the height of its content once it has drawn the scenario's final numbers (wireEmbedView);
// cancel removes the view and rejects height.
function measureEmbed(src) {
  let cancel = () => {};
  const height = new Promise((resolve, reject) => {
    const f = document.createElement("iframe");
    f.src = src;
    f.title = "Measuring the embed view";
    f.tabIndex = -1;
    f.setAttribute("aria-hidden", "true");
    f.style.cssText = `position:absolute;left:-${4 * embedWidth}px;top:0;width:${embedWidth}px;height:450px;border:0;opacity:0;pointer-events:none`;
    const done = (fn, v) => { removeEventListener("message", onMessage); clearTimeout(timer); f.remove(); fn(v); };
    const onMessage = (e) => {
      if (e.source !== f.contentWindow || e.origin !== location.origin || e.data?.type !== "playground-embed-height" || !e.data.done) return;
      done(resolve, e.data.height);
    };
    // A bound on a hang (a run refused, a lost server), not on speed.
    const timer = setTimeout(() => done(reject, new Error("no answer in 3 minutes")), 180_000);
    cancel = () => done(reject, new Error("cancelled"));
    addEventListener("message", onMessage);
    document.body.append(f);
  });
  return { height, cancel };
}

// settledFrames is how many animation frames in a row the embed view's height must keep before
// the view reports it: the last charts and tables take their size a frame or two after the
// run's final numbers arrive.
const settledFrames = 5;

// wireEmbedView keeps the embed view's head on its scenario (in words) and tells the page that
// frames it how tall its content is, once the height has settled: with done set once the
// scenario's final numbers are drawn, and again whenever the height changes after that.
function wireEmbedView(state) {
  const words = document.getElementById("embed-scenario");
  const show = () => {
    const text = scenarioWords(state.spec, state.scenario);
    if (words && words.textContent !== text) words.textContent = text;
  };
  state.on("values", show);
  show();
  if (window.parent === window) return;
  let last = "", watching = false;
  const watch = (prev, same) => requestAnimationFrame(() => {
    const done = state.run.phase === "done" && !state.stale();
    const height = Math.ceil(document.body.getBoundingClientRect().height);
    const now = `${done}/${height}`;
    if (now !== prev) return watch(now, 0);
    if (same + 1 < settledFrames) return watch(now, same + 1);
    watching = false;
    if (now === last) return;
    last = now;
    window.parent.postMessage({ type: "playground-embed-height", height, done }, "*");
  });
  const report = () => {
    if (watching) return;
    watching = true;
    watch("", 0);
  };
  state.on("run", report);
  new ResizeObserver(report).observe(document.body);
}

// pngCaption is what a chart's PNG says under its title about the scenario it shows (the one
// drawn, which a drag may not have reached yet): the lab and the parameters that differ from
// the defaults, then the scenario's address, so that a picture pasted into slides says what it
// is of and where to see it live.
export function pngCaption(state) {
  const spec = state.spec;
  const values = state.run.picture ? pictureValues(state, state.run.picture) : state.scenario;
  const q = encode(spec, values);
  const title = document.querySelector(".lab-head h1")?.textContent.trim() || spec.name;
  return [`${title} — ${scenarioWords(spec, values)}`, location.origin + scenarioPath(spec, q)];
}

// wrap breaks text into lines no wider than width in the context's font, between words; a
// word wider than a line (an address) is broken after its last "&" or "," that fits, else
// after its last character that fits.
function wrap(g, text, width) {
  const lines = [];
  let line = "";
  const words = [];
  for (let word of text.split(" ")) {
    while (g.measureText(word).width > width && word.length > 1) {
      let n = 1;
      while (n < word.length && g.measureText(word.slice(0, n + 1)).width <= width) n++;
      const cut = Math.max(word.lastIndexOf("&", n - 1), word.lastIndexOf(",", n - 1));
      if (cut > 0) n = cut + 1;
      words.push(word.slice(0, n));
      word = word.slice(n);
    }
    words.push(word);
  }
  for (const word of words) {
    const next = line ? line + " " + word : word;
    if (line && g.measureText(next).width > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

// fileName names a download of the scenario at the page address url ("/ratelimit?limit=50")
// with extension ext, exactly as lab.FileName does on the server: the lab, then the
// parameters that differ from the defaults ("ratelimit_limit-50.csv"), or "default", in
// letters, digits and ._+- only, at most 150 characters before the extension.
export function fileName(url, ext) {
  const i = url.indexOf("?");
  const path = i < 0 ? url : url.slice(0, i), query = i < 0 ? "" : url.slice(i + 1);
  let n = path.replace(/^\/+|\/+$/g, "") + "_" + (query ? query.replaceAll("=", "-").replaceAll("&", "_") : "default");
  n = n.replace(/[^A-Za-z0-9._+-]/g, "+").slice(0, 150);
  return n + "." + ext;
}

function setAttr(id, attr, value) {
  const a = document.getElementById(id);
  if (a && a.getAttribute(attr) !== value) a.setAttribute(attr, value);
}

function setHref(id, href) {
  const a = document.getElementById(id);
  if (a && a.getAttribute("href") !== href) a.setAttribute("href", href);
}

function say(text) {
  const status = document.getElementById("status");
  if (status) status.textContent = text;
}

// download offers blob to the person as a file named name.
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

// chartPNG draws a chart section (its title, the caption's lines — the scenario, pngCaption —,
// its legend and every panel's canvas, with the panel titles of small multiples) onto one
// canvas in the page's colours and returns it as PNG.
export function chartPNG(section, caption = []) {
  const holders = [...section.querySelectorAll(".plots .plot")].filter((h) => h.querySelector("canvas"));
  if (!holders.length) return Promise.reject(new Error("the chart has nothing drawn yet"));
  const first = holders[0].querySelector("canvas");
  const k = first.width / (first.getBoundingClientRect().width || first.width) || 1;
  const css = getComputedStyle(document.documentElement);
  const bg = css.getPropertyValue("--bg").trim() || "#fff";
  const fg = css.getPropertyValue("--fg").trim() || "#1b1b1b";
  const font = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  const pad = 12 * k;
  const width = Math.max(...holders.map((h) => h.querySelector("canvas").width)) + 2 * pad;
  const title = section.querySelector(".chart-head h2")?.textContent.trim() || "";
  const items = [...section.querySelectorAll(".legend li")].map((li) => {
    const mark = li.querySelector("line, rect");
    return {
      text: li.textContent.trim(),
      colour: mark?.getAttribute("stroke") || fg,
      dash: (mark?.getAttribute("stroke-dasharray") || "").split(/[ ,]+/).filter(Boolean).map(Number),
      bar: mark?.tagName === "rect",
    };
  });
  const c = document.createElement("canvas");
  const g = c.getContext("2d");
  // Lay the legend out in rows that fit the width.
  g.font = `${13 * k}px ${font}`;
  const rows = [[]];
  let x = pad;
  for (const it of items) {
    const w = 34 * k + g.measureText(it.text).width + 14 * k;
    if (x + w > width - pad && rows[rows.length - 1].length) { rows.push([]); x = pad; }
    rows[rows.length - 1].push({ ...it, x });
    x += w;
  }
  const titleH = title ? 26 * k : 0;
  g.font = `${12 * k}px ${font}`;
  const captionLines = caption.flatMap((text) => wrap(g, text, width - 2 * pad));
  const captionH = captionLines.length ? captionLines.length * 17 * k + 6 * k : 0;
  const legendH = items.length ? rows.length * 20 * k + 4 * k : 0;
  const panels = holders.map((h) => ({ canvas: h.querySelector("canvas"), title: h.querySelector(".panel-title")?.textContent.trim() || "" }));
  const panelsH = panels.reduce((a, p) => a + p.canvas.height + (p.title ? 18 * k : 0), 0);
  c.width = Math.ceil(width);
  c.height = Math.ceil(pad + titleH + captionH + legendH + panelsH + pad);
  g.fillStyle = bg;
  g.fillRect(0, 0, c.width, c.height);
  let y = pad;
  g.textBaseline = "top";
  if (title) {
    g.fillStyle = fg;
    g.font = `bold ${17 * k}px ${font}`;
    g.fillText(title, pad, y);
    y += titleH;
  }
  if (captionLines.length) {
    const muted = css.getPropertyValue("--muted").trim() || fg;
    g.fillStyle = muted;
    g.font = `${12 * k}px ${font}`;
    for (const line of captionLines) {
      g.fillText(line, pad, y);
      y += 17 * k;
    }
    y += 6 * k;
  }
  g.font = `${13 * k}px ${font}`;
  for (const row of rows) {
    for (const it of row) {
      g.save();
      g.strokeStyle = it.colour;
      g.lineWidth = 3 * k;
      if (it.bar) {
        g.fillStyle = it.colour + "55";
        g.fillRect(it.x + 6 * k, y + 3 * k, 16 * k, 10 * k);
        g.lineWidth = 1 * k;
        g.strokeRect(it.x + 6 * k, y + 3 * k, 16 * k, 10 * k);
      } else {
        g.setLineDash(it.dash.map((d) => d * k));
        g.beginPath();
        g.moveTo(it.x, y + 8 * k);
        g.lineTo(it.x + 28 * k, y + 8 * k);
        g.stroke();
      }
      g.restore();
      g.fillStyle = fg;
      g.fillText(it.text, it.x + 34 * k, y + 1 * k);
    }
    if (row.length) y += 20 * k;
  }
  if (items.length) y += 4 * k;
  for (const p of panels) {
    if (p.title) {
      g.fillStyle = fg;
      g.font = `600 ${13 * k}px ${font}`;
      g.fillText(p.title, pad, y);
      y += 18 * k;
    }
    g.drawImage(p.canvas, pad, y);
    y += p.canvas.height;
  }
  return new Promise((resolve, reject) => c.toBlob((b) => (b ? resolve(b) : reject(new Error("the browser made no image"))), "image/png"));
}
