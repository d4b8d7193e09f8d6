// Guided tours: a lab's ordered steps, each a scenario and a few sentences on what to look at
// (spec.tours). A step is addressed by the fragment #tour={name}/{n} (n from 1) on its URL;
// the tour panel shows it, Previous and Next (or the keys [ and ], Page Up and Page Down, as
// a presenter's clicker sends) move to the neighbouring step's scenario. A step that asks the
// class to predict shows only its question, and hides the charts, the tables and its
// explanation (saying so) until someone clicks "Reveal" (state.setRevealed, the page's one
// "revealed" flag). A step says which parameters it changes from the step before (from the
// defaults for the first), and the controls show them (js/controls.js, on the state's "step"
// event). Each step the person moves to is one history entry, so Back returns to the previous
// step. While the page follows a room, the room's presenter moves the steps.
import { decode, same } from "./params.js";
import { paramValue } from "./format.js";
import { readFragment, setFragment } from "./fragment.js";
import { el } from "./dom.js";

export function wireTour(state) {
  const spec = state.spec;
  const tours = spec.tours || [];
  const box = document.getElementById("session");
  if (!box || !tours.length) return null;
  const root = document.getElementById("lab");

  const api = {
    // canReveal: whether this page may reveal a step's answer itself (a room's follower may
    // not, unless its presenter allows it); refresh shows a change of it.
    canReveal: () => true,
    // extra: what a room shows under a step's question (the class's answers), or null.
    extra: () => null,
    refresh: () => render(),
    // The step on show is the address's (Back may have changed it a moment before this page
    // hears of it).
    current: () => { const s = parse(readFragment().tour); return s ? `${s.tour.name}/${s.n}` : ""; },
    follow, // a room's step (the room's presenter moves it)
    go: (id) => { const s = parse(id); if (s) go(s); },
  };
  let cur = parse(readFragment().tour);

  // The Tours menu: each tour's first step; a click stays on this page (and in its room).
  const menu = el("details", { class: "tours-menu" }, el("summary", {}, "Tours"));
  const list = el("ul", {});
  for (const t of tours) {
    const a = el("a", { href: `${t.steps[0].url}#tour=${t.name}/1` }, t.title);
    a.addEventListener("click", (e) => {
      e.preventDefault();
      menu.open = false;
      go({ tour: t, n: 1 }, true);
    });
    list.append(el("li", {}, a, ` (${t.steps.length} steps)`));
  }
  menu.append(list);
  (document.querySelector(".session-tools") || box).append(menu);

  const panel = el("aside", { id: "tour", class: "tour", "aria-labelledby": "tour-title", hidden: "" });
  box.append(panel);

  function parse(id) {
    const [name, n] = String(id || "").split("/");
    const tour = tours.find((t) => t.name === name);
    const i = Number(n);
    if (!tour || !Number.isInteger(i) || i < 1 || i > tour.steps.length) return null;
    return { tour, n: i };
  }

  // go moves to step s: its fragment (in a new history entry, with push), then its scenario,
  // which takes the same entry (and which a presenter sends to the room with the step).
  function go(s, push) {
    setFragment({ tour: `${s.tour.name}/${s.n}` }, push);
    show(s);
    const u = s.tour.steps[s.n - 1].url;
    const i = u.indexOf("?");
    state.setScenario(decode(spec, i < 0 ? "" : u.slice(i + 1)), "tour");
  }

  function follow(id) {
    const s = parse(id);
    const same = s && cur && s.tour === cur.tour && s.n === cur.n;
    if (same) return;
    show(s);
    setFragment({ tour: s ? id : null });
  }

  function end() {
    show(null);
    setFragment({ tour: null });
  }

  // show puts step s (null: none) in the panel and tells the page (the state's "step" event:
  // the step's declaration and id, or null); a new step's answer is hidden again.
  function show(s) {
    cur = s;
    state.setRevealed(false);
    state.emit("step", s ? { ...s.tour.steps[s.n - 1], id: `${s.tour.name}/${s.n}`, moved: moved(s) } : null);
    render();
  }

  // valuesOf is a step's scenario (every parameter, URL form).
  const valuesOf = (step) => {
    const i = step.url.indexOf("?");
    return decode(spec, i < 0 ? "" : step.url.slice(i + 1));
  };
  // moved names the parameters step s changes from the step before it (the first step, from
  // the defaults).
  function moved(s) {
    const now = valuesOf(s.tour.steps[s.n - 1]);
    const before = s.n > 1 ? valuesOf(s.tour.steps[s.n - 2]) : decode(spec, "");
    return spec.params.filter((p) => !same(p, now[p.name], before[p.name])).map((p) => p.name);
  }

  const locked = () => state.view.following;
  const step = (d) => {
    if (!cur || locked()) return;
    const n = cur.n + d;
    if (n >= 1 && n <= cur.tour.steps.length) go({ tour: cur.tour, n }, true);
  };

  // built is what the panel shows (step, revealed, who may reveal, locked, the room's part):
  // the panel is rebuilt only when it changes, since a rebuild takes the keyboard's focus off
  // its buttons and off a follower's answer (a room calls refresh at each of its updates).
  let built = "";
  function render() {
    menu.hidden = locked();
    const revealed = state.view.revealed;
    root.classList.toggle("predicting", !!(cur && cur.tour.steps[cur.n - 1].question && !revealed));
    if (!cur) {
      panel.hidden = true;
      panel.replaceChildren();
      built = "";
      return;
    }
    // The hidden charts' and tables' notes name what shows them to this page: its Reveal
    // button, or the presenter (a room's follower has no button).
    const why = `Hidden until the class has predicted: ${api.canReveal() ? "Reveal in the tour panel shows it." : "the presenter reveals it."}`;
    for (const n of document.querySelectorAll(".predict-note")) if (n.textContent !== why) n.textContent = why;
    const extra = cur.tour.steps[cur.n - 1].question ? api.extra() : null;
    const key = JSON.stringify([cur.tour.name, cur.n, revealed, api.canReveal(), locked(), !!extra]);
    if (key === built && (!extra || panel.contains(extra))) return;
    built = key;
    const s = cur.tour.steps[cur.n - 1];
    const m = cur.tour.steps.length;
    const btn = (cls, text, label, fn, disabled) => {
      const b = el("button", { type: "button", class: cls, "aria-label": label }, text);
      b.disabled = disabled;
      b.addEventListener("click", fn);
      return b;
    };
    const kids = [
      el("p", { class: "tour-name" }, `Tour: ${cur.tour.title} · `, el("span", { class: "tour-count" }, `step ${cur.n} of ${m}`)),
      el("h2", { id: "tour-title" }, s.title),
    ];
    const changes = moved(cur);
    if (changes.length) {
      const values = valuesOf(s);
      const named = changes.map((n) => { const p = state.params.get(n); return `${p.label}: ${paramValue(p, values[n])}`; });
      kids.push(el("p", { class: "tour-changes" }, cur.n > 1 ? "This step changes " : "This tour sets ", named.join("; "), "."));
    }
    if (!s.question) kids.push(el("p", { class: "tour-text" }, s.text));
    else {
      kids.push(el("p", { class: "tour-predict" }, el("strong", {}, "Predict: "), s.question));
      // The answer is not in the page until it is revealed: not shown, not read out.
      if (!revealed && api.canReveal()) {
        kids.push(el("p", { class: "tour-hidden" }, "The charts, the tables and the answer are hidden until you reveal them."),
          btn("tour-reveal", "Reveal", "Reveal the answer", () => state.setRevealed(true), false));
      } else if (!revealed) kids.push(el("p", { class: "tour-hidden" }, "The charts, the tables and the answer are hidden until the presenter reveals them.")); else kids.push(el("p", { class: "tour-explanation", tabindex: "-1" }, el("strong", {}, "Answer: "), s.explanation));
      if (extra) kids.push(extra);
    }
    kids.push(el("div", { class: "tour-nav" },
      btn("tour-prev", "Previous", "Previous step", () => step(-1), locked() || cur.n === 1),
      btn("tour-next", "Next", "Next step", () => step(1), locked() || cur.n === m),
      locked() ? "" : btn("tour-end", "End tour", "End the tour", end, false),
      el("span", { class: "help" }, locked() ? "The presenter moves the steps." : "Keys: [ and ] (or Page Up and Page Down)")));
    const a = document.activeElement;
    const focused = panel.contains(a) && a.matches(".tour-reveal, .tour-nav button") ? a.classList[0] : "";
    panel.replaceChildren(...kids);
    panel.hidden = false;
    // Whoever revealed hears the answer next; a button pressed (Next, say) keeps the focus.
    if (focused === "tour-reveal" && revealed) panel.querySelector(".tour-explanation")?.focus();
    else if (focused) {
      const b = panel.querySelector(`button.${focused}`);
      if (b && !b.disabled) b.focus();
    }
  }

  document.addEventListener("keydown", (e) => {
    if (!cur || locked() || e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
    if (e.target.closest?.("input, select, textarea, [contenteditable]")) return;
    const d = e.key === "]" || e.key === "PageDown" ? 1 : e.key === "[" || e.key === "PageUp" ? -1 : 0;
    if (!d) return;
    e.preventDefault();
    step(d);
  });
  // Back and Forward bring the step of their entry, whose scenario they bring (js/history.js).
  // An edited fragment (typed, or a link within the page) moves the fragment only: it moves to
  // the step it names, scenario and all, in the entry the browser made for it.
  state.on("history", ({ fragmentOnly }) => {
    const s = parse(readFragment().tour);
    if (s?.tour === cur?.tour && s?.n === cur?.n) return;
    if (s && fragmentOnly && !locked()) go(s);
    else show(s);
  });
  state.on("values", ({ source }) => { if (source === "follow") render(); });
  state.on("reveal", render);
  show(cur);
  return api;
}
