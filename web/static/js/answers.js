// The class answers a room's predictions (issue 31). On a step that asks a question
// (lab.Step.Answer: a choice among options, or a number on a scale), each follower answers on
// their own device — a tap on an option, or a slider — and may change their mind until the
// presenter reveals. The presenter sees, live, how many of those present have answered and the
// spread of their answers (bars), without the truth; Reveal shows everyone the class's answers
// with the true answer marked. A follower is known to the server by an anonymous id this
// browser keeps (localStorage), so a reload or a reconnection replaces their answer and never
// adds one; the server tells a follower its stored answer when asked. Protocol: see the api
// package documentation.
import { el } from "./dom.js";

const whoName = "playground-who";

// followerId returns this browser's anonymous id for rooms' answers, made once and kept.
export function followerId() {
  const ok = (id) => typeof id === "string" && /^[A-Za-z0-9_-]{16,64}$/.test(id);
  let id = "";
  try {
    id = localStorage.getItem(whoName) || "";
  } catch {
    // storage refused: an id for this page only
  }
  if (ok(id)) return id;
  const b = new Uint8Array(18);
  crypto.getRandomValues(b);
  id = btoa(String.fromCharCode(...b)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  try {
    localStorage.setItem(whoName, id);
  } catch {
    // as above
  }
  return id;
}

// decimals is how many decimals a scale's step has.
const decimals = (step) => {
  let d = 0;
  for (let s = step; d < 6 && Math.abs(s - Math.round(s)) > 1e-9; s *= 10) d++;
  return d;
};

// bars returns the rows of a distribution of counts over answer space a: one per option, or
// one per value of a number's scale (bins of several values when the scale is fine), each
// with its label, its count and whether it holds the truth.
function bars(a, counts, truth) {
  if (a.options) {
    return a.options.map((o) => ({ label: o.label, n: counts[o.id] || 0, truth: truth !== "" && o.id === truth }));
  }
  const d = decimals(a.step);
  const values = Math.round((a.max - a.min) / a.step) + 1;
  const per = Math.max(1, Math.ceil(values / 20)); // values in a bin: at most 20 bars
  const rows = [];
  for (let i = 0; i < values; i += per) {
    const lo = a.min + i * a.step;
    const hi = a.min + Math.min(i + per - 1, values - 1) * a.step;
    rows.push({ label: per === 1 ? lo.toFixed(d) : `${lo.toFixed(d)}–${hi.toFixed(d)}`, lo, hi, n: 0, truth: false });
  }
  for (const [v, n] of Object.entries(counts)) {
    const i = Math.floor(Math.round((Number(v) - a.min) / a.step) / per);
    if (rows[i]) rows[i].n += n;
  }
  if (truth !== "") {
    const i = Math.floor(Math.round((Number(truth) - a.min) / a.step) / per);
    if (rows[i]) rows[i].truth = true;
  }
  return rows;
}

// label writes an answer of a for people: an option's label, or a number with its unit.
const label = (a, v) => (a.options ? (a.options.find((o) => o.id === v)?.label ?? v) : `${v} ${a.unit || ""}`.trim());

// ClassAnswers is the answers panel of a room's page, shown inside the tour panel on a step
// that asks a question. The room's stream tells it of room messages (onRoom), of its own
// messages (onMessage) and of a new connection (onOpen).
export class ClassAnswers {
  constructor(spec, room, state) {
    this.spec = spec;
    this.room = room;
    this.state = state;
    this.who = followerId();
    this.step = ""; // the room's step
    this.mine = ""; // this follower's stored answer to it
    this.sending = ""; // an answer sent and not yet confirmed
    this.error = "";
    this.tally = null; // the presenter's live tally
    this.revealed = null; // the tally with its truth, once revealed
    this.asked = ""; // the step whose stored answer this connection asked for
    this.box = el("section", { class: "answers", "aria-label": "The class’s answers", hidden: "" });
    this.built = ""; // what the box's controls were built for
  }

  // answerOf returns the answer space of a step id, or null.
  answerOf(id) {
    const [name, n] = String(id || "").split("/");
    const t = (this.spec.tours || []).find((t) => t.name === name);
    const s = t && t.steps[Number(n) - 1];
    return (s && s.answer) || null;
  }

  onOpen() { this.asked = ""; }

  onRoom(r) {
    if (r.step !== this.step) {
      this.step = r.step;
      this.mine = this.sending = this.error = "";
      this.tally = null;
    }
    this.revealed = r.revealed && r.answers && r.answers.step === r.step ? r.answers : null;
    if (!this.room.presenting && !this.room.detached && this.answerOf(r.step) && this.asked !== r.step && this.room.stream.open()) {
      this.asked = r.step; // the stored answer of a reloaded or reconnected follower
      this.room.stream.ws.send(JSON.stringify({ type: "answer", step: r.step, who: this.who }));
    }
    this.render();
  }

  // onMessage takes the room's answer messages; it reports whether m was one.
  onMessage(m) {
    if (m.type === "answer") {
      if (m.step === this.step) {
        this.mine = m.answer || "";
        if (this.sending === this.mine) this.sending = "";
        this.error = "";
        this.render();
      }
      return true;
    }
    if (m.type === "answers") {
      this.tally = m.answers;
      this.render();
      return true;
    }
    if (m.type === "error" && ["answer", "who", "step"].includes(m.param) && !this.room.presenting) {
      this.sending = "";
      this.error = m.error;
      this.render();
      return true;
    }
    return false;
  }

  send(v) {
    if (!this.room.stream.open()) {
      this.error = "Not connected: your answer will be sent when the page reconnects. Try again in a moment.";
      this.render();
      return;
    }
    this.sending = String(v);
    this.error = "";
    this.room.stream.ws.send(JSON.stringify({ type: "answer", step: this.step, answer: String(v), who: this.who }));
    this.render();
  }

  // render shows the panel for the room's step: nothing on a step that asks nothing.
  render() {
    const a = this.answerOf(this.step);
    const presenter = this.room.presenting;
    if (!a || this.room.detached) {
      this.box.hidden = true;
      this.box.replaceChildren();
      this.built = "";
      return;
    }
    this.box.hidden = false;
    this.box.classList.toggle("presenter", presenter);
    const shown = this.revealed || (presenter ? this.tally : null);
    const selfRevealed = !presenter && !this.revealed && this.state.view.revealed;
    const mode = JSON.stringify([this.step, presenter, !!this.revealed, selfRevealed]);
    if (this.built !== mode) {
      this.built = mode;
      this.build(a, presenter, selfRevealed);
    }
    // The parts that change with every message, updated in place (a slider being dragged
    // keeps its focus).
    const status = this.box.querySelector(".answers-status");
    let text = "";
    if (presenter || this.revealed) {
      const t = shown || { answered: 0, present: 0 };
      text = `${t.answered} of ${t.present} ${t.present === 1 ? "follower" : "followers"} answered`;
    }
    if (status && status.textContent !== text) status.textContent = text;
    const chart = this.box.querySelector(".answers-chart");
    if (chart) this.chart(chart, a, shown);
    const yours = this.box.querySelector(".answers-mine");
    if (yours) {
      const v = this.sending || this.mine;
      let t = v ? `Your answer: ${label(a, v)}${this.sending ? " (sending…)" : ""}.` : "You have not answered yet.";
      if (!this.revealed && v) t += " You can change it until the presenter reveals.";
      if (this.revealed && this.mine) t = `Your answer: ${label(a, this.mine)} — ${this.mine === this.revealed.truth ? "right" : "not the true answer"}.`;
      if (yours.textContent !== t) yours.textContent = t;
    }
    for (const b of this.box.querySelectorAll(".answer-option")) {
      const on = b.dataset.id === (this.sending || this.mine);
      b.setAttribute("aria-pressed", String(on));
    }
    const err = this.box.querySelector(".answers-error");
    if (err && err.textContent !== this.error) err.textContent = this.error;
  }

  // build makes the panel's parts for the step and the page's role in it.
  build(a, presenter, selfRevealed) {
    const kids = [el("h3", {}, this.revealed ? "The class’s answers" : presenter ? "The class is answering" : "Your answer")];
    kids.push(el("p", { class: "answers-status", "aria-live": "polite" }));
    if (presenter || this.revealed) {
      kids.push(el("div", { class: "answers-chart", role: "list", "aria-label": "Answers, by choice" }));
      if (this.revealed) kids.push(el("p", { class: "answers-truth" }, el("strong", {}, "The true answer: "), label(a, this.revealed.truth)));
    }
    if (!presenter) {
      if (!this.revealed && !selfRevealed) kids.push(this.controls(a));
      if (selfRevealed) kids.push(el("p", { class: "answers-closed" }, "You revealed the answer for yourself: answering is closed for you on this step."));
      kids.push(el("p", { class: "answers-mine", "aria-live": "polite" }));
      kids.push(el("p", { class: "answers-error error", role: "alert" }));
    } else {
      const csv = el("button", { type: "button", class: "answers-csv" }, "Download the class’s answers (CSV)");
      csv.addEventListener("click", () => this.download(csv));
      kids.push(el("p", { class: "answers-tools" }, csv));
    }
    this.box.replaceChildren(...kids);
  }

  // controls are a follower's ways to answer: one big button per option, or a slider with its
  // value and a button that sends it (the slider sends itself when released, or moved by keys).
  controls(a) {
    if (a.options) {
      const group = el("div", { class: "answer-options", role: "group", "aria-label": "Answer" });
      for (const o of a.options) {
        const b = el("button", { type: "button", class: "answer-option", "data-id": o.id, "aria-pressed": "false" }, o.label);
        b.addEventListener("click", () => this.send(o.id));
        group.append(b);
      }
      return group;
    }
    const d = decimals(a.step);
    const start = this.mine !== "" ? Number(this.mine) : a.min + Math.round((a.max - a.min) / a.step / 2) * a.step;
    const id = `answer-${this.step.replace(/\W/g, "-")}`;
    const input = el("input", { type: "range", id, class: "answer-range", min: String(a.min), max: String(a.max), step: String(a.step), value: String(start) });
    const out = el("output", { for: id, class: "answer-value" }, `${start.toFixed(d)} ${a.unit || ""}`);
    input.addEventListener("input", () => { out.textContent = `${Number(input.value).toFixed(d)} ${a.unit || ""}`; });
    input.addEventListener("change", () => this.send(Number(input.value).toFixed(d)));
    const b = el("button", { type: "button", class: "answer-send" }, "Answer");
    b.addEventListener("click", () => this.send(Number(input.value).toFixed(d)));
    return el("div", { class: "answer-number" },
      el("label", { for: id }, `Your estimate (${a.unit || "value"}), from ${a.min} to ${a.max}`),
      el("div", { class: "answer-slider" }, input, out), b);
  }

  // chart draws a tally's distribution as horizontal bars, the truth marked once revealed.
  chart(box, a, t) {
    const counts = (t && t.counts) || {};
    const rows = bars(a, counts, (this.revealed && this.revealed.truth) || "");
    const most = Math.max(1, ...rows.map((r) => r.n));
    const key = JSON.stringify(rows);
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.replaceChildren(...rows.map((r) => {
      const bar = el("span", { class: "answers-bar" });
      bar.style.setProperty("--share", (r.n / most).toFixed(3)); // the CSP allows no style attribute
      return el("div", { class: "answers-row" + (r.truth ? " truth" : ""), role: "listitem" },
        el("span", { class: "answers-label" }, r.label, r.truth ? el("strong", { class: "answers-mark" }, " ✓ true") : ""),
        bar, el("span", { class: "answers-n" }, String(r.n)));
    }));
  }

  // download fetches the room's answers as CSV with the presenter's key and saves it.
  async download(b) {
    b.disabled = true;
    try {
      const res = await fetch(`/api/v1/rooms/${encodeURIComponent(this.room.code)}/answers.csv`, { headers: { Authorization: `Bearer ${this.room.key}` } });
      if (!res.ok) throw new Error((await res.json()).error || res.statusText);
      const url = URL.createObjectURL(await res.blob());
      const link = el("a", { href: url, download: `room-${this.room.code}-answers.csv` });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (err) {
      this.error = `Could not download the answers: ${err.message}`;
    } finally {
      b.disabled = false;
    }
  }
}
