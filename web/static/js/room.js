// Rooms (live teaching sessions) on the page. The "Present" button opens a room for the
// scenario on screen and turns this page into the room's presenter: from then on every change
// (and tour step) goes to the room's stream, which runs it once for everyone. A page opened at
// /join/CODE follows the room: it shows the room's scenario and its run, controls showing but
// taking no input, until the person detaches to explore alone (their own lab stream) and
// rejoins. The presenter's key never stays in the address bar, which a presenter may paste for
// the class: it lives in the tab's sessionStorage (a presenter link's #key=… is moved there as
// the page opens) and reaches the server only in the websocket's "present" message.
//
// The room's state is its scenario, tour step and reveal (whether the step's answer is shown,
// and whether followers may reveal it for themselves): the presenter sets it, and every page
// of the room — followers and every presenter window — shows it. Followers are told when the
// presenter has gone and when it is back; the presenter can end the room, and present again.
// A follower's controls take no input, so a text summary of the scenario, kept current, is
// what a screen reader reads. Protocol: see the api package documentation.
//
// Links out of a room are scenario links (js/links.js): Copy link and the export links give
// the lab's own page of the scenario, never /join/CODE, which dies with the room; only the
// room's bar offers the join link. A room that ends sends its pages to its scenario: an open
// page takes the scenario's address, and the server answers a join link kept after the end
// with a redirect there, "#ended=CODE" added, which this page reads to say the room has ended.
import { Stream } from "./stream.js";
import { decode, encode, canonical } from "./params.js";
import { paramValue } from "./format.js";
import { el } from "./dom.js";
import { readFragment, setFragment } from "./fragment.js";
import { ClassAnswers } from "./answers.js";
import { scenarioAddress, scenarioPath } from "./links.js";

// keyName is where a tab keeps a room's presenter key.
const keyName = (code) => `playground-room-key:${code}`;

// keepKey keeps a room's presenter key in this tab ("" forgets it).
function keepKey(code, key) {
  try {
    if (key) sessionStorage.setItem(keyName(code), key);
    else sessionStorage.removeItem(keyName(code));
  } catch {
    // storage refused (private mode): the key lives in this page only
  }
}

// takeKey returns this tab's presenter key of a room: a presenter link's #key=…, which it moves
// out of the address bar, or the one the tab keeps.
function takeKey(code) {
  const k = readFragment().key;
  if (k) {
    keepKey(code, k);
    setFragment({ key: null });
    return k;
  }
  try {
    return sessionStorage.getItem(keyName(code)) || "";
  } catch {
    return "";
  }
}

// stateKey identifies a room state: scenario query, step and reveal.
const stateKey = (query, step, revealed, open) => JSON.stringify([query, step || "", !!revealed, !!open]);

// RoomStream is a room's websocket: a lab-protocol Stream (its frames drive the same results
// and state, and the lab stream's listeners, such as the probe, hear of its runs) composed
// with the room's own messages. Run frames carry the room's version as their id; only the
// presenter's changes go to the room.
class RoomStream {
  constructor(state, results, code, lab) {
    this.state = state;
    this.code = code;
    this.key = "";
    this.presenting = false;
    this.detached = false;
    this.over = false; // the room has ended
    this.room = null; // the newest room message
    this.paramsId = 0; // the presenter's newest params message
    this.query = null; // the newest query asked for
    this.revealOpen = false; // followers may reveal for themselves (the presenter's setting)
    this.dirty = false; // this presenter window has changes the room has not been sent
    this.applying = false; // the page is taking the room's state: nothing to send
    this.sent = []; // states sent and not yet seen back from the room
    this.queued = false;
    this.onRoom = () => {};
    this.stepOf = () => "";
    this.answers = null; // the class's answers to the step on show (answers.js)
    this.stream = new Stream(state, results, {
      requests: false,
      events: lab,
      url: () => {
        const proto = location.protocol === "https:" ? "wss:" : "ws:";
        return `${proto}//${location.host}/api/v1/rooms/${encodeURIComponent(this.code)}/stream`;
      },
      connecting: () => {
        if (this.over) return false;
        this.presenting = false; // a new connection presents again
        return true;
      },
      onOpen: (ws) => {
        this.answers?.onOpen();
        if (this.key) ws.send(JSON.stringify({ type: "present", key: this.key }));
      },
      onClose: (e) => this.closed(e),
      onMessage: (m) => this.message(m),
    });
    state.on("request", ({ query }) => this.request(query));
  }

  get ws() { return this.stream.ws; }
  get sentId() { return this.stream.sentId; }
  set sentId(v) { this.stream.sentId = v; }

  connect() { this.stream.connect(); }
  close() { this.stream.close(); }

  // reopen starts a fresh connection, which the server answers with the room and its whole
  // current run.
  reopen() {
    this.close();
    this.connect();
  }

  // closed: a room that has ended (or expired) is not reconnected to.
  closed(e) {
    if (e.code === 1001) return;
    fetch(`/api/v1/rooms/${encodeURIComponent(this.code)}`).then((r) => {
      if (r.status === 404 && !this.over) {
        this.over = true;
        this.onRoom("ended");
      }
    }, () => {});
  }

  // request: only the presenter's changes go to the room.
  request(query) {
    this.query = query;
    this.changed();
  }

  // changed: the presenter's page changed its part of the room's state (scenario, step,
  // reveal). What changes together in one gesture (a tour step: its step, scenario and hidden
  // answer) goes to the room as one change.
  changed() {
    if (this.applying || !this.key) return;
    if (!this.presenting) {
      this.dirty = true;
      return;
    }
    if (this.queued) return;
    this.queued = true;
    queueMicrotask(() => {
      this.queued = false;
      if (this.query !== null) this.send(this.query);
    });
  }

  // localKey is the state this page shows.
  localKey() { return stateKey(this.query, this.stepOf(), this.state.view.revealed, this.revealOpen); }

  send(query) {
    if (!this.presenting || !this.stream.open()) {
      this.dirty = true;
      return false;
    }
    this.paramsId++;
    const step = this.stepOf();
    const revealed = this.state.view.revealed;
    this.stream.ws.send(JSON.stringify({ type: "params", id: this.paramsId, query, step, revealed, reveal_open: this.revealOpen }));
    this.sent.push(stateKey(query, step, revealed, this.revealOpen));
    this.dirty = false;
    return true;
  }

  // end ends the room for everyone.
  end() {
    if (this.presenting && this.stream.open()) this.stream.ws.send(JSON.stringify({ type: "end" }));
  }

  // foreign reports whether room state r was set by another presenter window: this page
  // neither shows it nor waits for a change of its own to come back.
  foreign(r) {
    if (stateKey(queryOf(this.state.spec, r.url), r.step, r.revealed, r.reveal_open) === this.localKey()) {
      this.sent = [];
      return false;
    }
    return this.sent.length === 0;
  }

  // message handles the room's own messages and those of its runs it does not show; it
  // reports whether it handled m (the rest are the lab protocol's).
  message(m) {
    if (m.type === "room") {
      const r = m.room;
      const confirmed = r.presenter && !this.presenting;
      // A message of an older version than the page has (overtaken on its way) is no news of
      // the room; its presenter flag still counts.
      if (!this.room || r.version >= this.room.version) this.room = r;
      if (r.presenter) this.presenting = true;
      if (!this.detached && r.version > this.sentId) this.sentId = r.version;
      // Changes made while the connection was away reach the room once it is back
      // (and a tour step the page was on when it opened the room).
      if (confirmed && this.query !== null && this.dirty) this.send(this.query);
      this.onRoom("room");
      this.answers?.onRoom(this.room);
      return true;
    }
    if (this.answers?.onMessage(m)) return true;
    if (m.type === "error" && m.param === "key") {
      this.key = "";
      this.onRoom("badkey");
      return true;
    }
    if (this.detached) return true; // the room's runs are not on show
    if (m.type === "error" && this.presenting && m.id === this.paramsId) {
      this.sent = []; // refused: it will not come back
      this.stream.events.dispatchEvent(new CustomEvent("error", { detail: m }));
      this.state.serverError(m);
      return true;
    }
    if (m.type === "start" && m.id > this.sentId) this.sentId = m.id;
    return false;
  }
}

// queryOf returns the canonical query of a scenario URL ("/backoff?clients=50").
function queryOf(spec, url) {
  const i = url.indexOf("?");
  return encode(spec, canonical(spec, decode(spec, i < 0 ? "" : url.slice(i + 1))));
}

// wireRoom sets up the Present button and, on a room's page, the room's stream and bar. It
// reports whether the room's stream drives the page (the lab stream is then left alone).
export function wireRoom(state, stream, results, tour) {
  const spec = state.spec;
  const box = document.getElementById("session");
  if (!box) return false;
  const bar = el("section", { class: "room", "aria-label": "Teaching session", hidden: "" });
  box.prepend(bar);
  let room = null;
  let followed = null; // the room URL the page shows, following
  let note = ""; // why the page is not where it was (a bad key, an ended room)
  // The count is one live region, announced politely when it changes; the rest of the bar is
  // rebuilt only when the page's part in the room changes.
  const count = el("span", { class: "room-count", "aria-live": "polite" });
  // Whether the presenter is here, told to followers as it changes.
  const presence = el("p", { class: "room-presence", "aria-live": "polite" });
  let gone = false; // the presenter has been seen gone
  // A follower's scenario as text: its controls take no input and are hidden from screen
  // readers, so this is what one reads (kept current).
  const summary = el("p", { class: "room-scenario", id: "room-scenario" });
  let mode = "";

  const presentBtn = document.getElementById("present");
  // open opens a room for the scenario on show, keeping its key in this tab.
  async function open() {
    const q = encode(spec, state.scenario);
    const res = await fetch("/api/v1/rooms", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ url: scenarioPath(spec, q) }),
    });
    const r = await res.json();
    if (!res.ok) throw new Error(r.error || res.statusText);
    const u = new URL(r.presenter_url, location.origin);
    const key = new URLSearchParams(u.hash.slice(1)).get("key");
    keepKey(r.code, key);
    return { code: r.code, path: u.pathname, key };
  }

  presentBtn?.addEventListener("click", async () => {
    presentBtn.disabled = true;
    try {
      const { code, path, key } = await open();
      history.replaceState(history.state, "", path + location.search + location.hash);
      presentBtn.hidden = true;
      stream.close();
      state.switchStream(); // the room numbers its runs by its version
      start(code, key);
      room.dirty = true; // the page's tour step, if any, is not the new room's yet
    } catch (err) {
      presentBtn.disabled = false;
      bar.hidden = false;
      bar.replaceChildren(el("p", { class: "error", role: "alert" }, `Could not open a room: ${err.message}`));
    }
  });

  if (!spec.room) {
    endedNote();
    return false;
  }
  if (presentBtn) presentBtn.hidden = true;
  start(spec.room, takeKey(spec.room));
  return true;

  function start(code, key) {
    room = new RoomStream(state, results, code, stream);
    room.key = key;
    room.query = encode(spec, state.scenario);
    room.stepOf = () => (tour ? tour.current() : "");
    room.onRoom = (what) => update(what);
    room.answers = new ClassAnswers(spec, room, state);
    if (tour) tour.extra = () => room.answers.box;
    state.on("reveal", () => room.answers.render());
    // The presenter's reveal is the room's; a follower reveals for itself only if allowed.
    state.on("reveal", () => { if (room.presenting) room.changed(); });
    // So is the step it shows, however it came (a tour's buttons, Back, an edited fragment).
    state.on("step", () => { if (room.presenting) room.changed(); });
    if (tour) tour.canReveal = () => !state.view.following || !!room.room?.reveal_open;
    state.on("values", () => { if (state.view.following) summarize(); });
    if (window.__playground) window.__playground.room = room;
    // Someone who is to follow shows the room's scenario without driving it from the start.
    if (!key) state.setFollowing(true);
    // A page left for another stays in the back-forward cache with its socket open, and would
    // be counted in the room (and its answers' "present") until the page is dropped: it
    // leaves the room as it is hidden, and rejoins if it is shown again.
    addEventListener("pagehide", (e) => { if (e.persisted) room.close(); });
    addEventListener("pageshow", (e) => { if (e.persisted && !room.over && !room.detached) room.reopen(); });
    bar.hidden = false;
    render();
    room.connect();
  }

  function update(what) {
    if (what === "badkey") {
      note = "This presenter link’s key is not the room’s: following instead.";
      keepKey(room.code, "");
      follow();
    } else if (what === "ended") {
      note = "This room has ended. Explore on your own.";
      // The address becomes the scenario's (its tour step kept): the lab's own page shows the
      // same scenario, and outlives the room.
      history.replaceState(history.state, "", scenarioAddress(spec));
      detach();
    } else if (room.presenting) {
      if (state.view.following) state.setFollowing(false);
      if (room.room && room.foreign(room.room)) take(room.room); // another presenter window moved
    } else if (!room.detached && !room.key) follow(); // a presenter's page waits for its "present" answer
    render();
  }

  // endedNote: a page the server sent here from the join link of a room that has ended
  // (#ended=CODE) says so, and takes the marker out of its address, which is then the
  // scenario's own, to share.
  function endedNote() {
    const code = readFragment().ended;
    if (code === undefined) return;
    setFragment({ ended: null });
    if (!/^[A-HJ-NP-Z2-9]{6}$/.test(code)) return; // not a join code: nothing to say
    bar.hidden = false;
    bar.replaceChildren(el("p", { class: "room-line room-ended", role: "status" },
      `Room ${code} has ended. This is the scenario it showed last: explore it on your own, or present it again.`));
  }

  // follow shows the room's scenario and tour step.
  function follow() {
    const r = room.room;
    if (!state.view.following) state.setFollowing(true);
    if (!r) return;
    if (r.url !== followed) {
      followed = r.url;
      const i = r.url.indexOf("?");
      state.setScenario(decode(spec, i < 0 ? "" : r.url.slice(i + 1)), "presenter");
    }
    if (tour) tour.follow(r.step);
    if (r.revealed && !state.view.revealed) state.setRevealed(true);
    if (tour) tour.refresh(); // whether this follower may reveal for itself
    summarize();
  }

  // take shows the room's state on a presenter window: another window of its presenter set it.
  function take(r) {
    room.applying = true;
    try {
      const i = r.url.indexOf("?");
      if (queryOf(spec, r.url) !== room.query) state.setScenario(decode(spec, i < 0 ? "" : r.url.slice(i + 1)), "presenter");
      room.query = queryOf(spec, r.url);
      if (tour) tour.follow(r.step);
      room.revealOpen = !!r.reveal_open;
      state.setRevealed(!!r.revealed);
    } finally {
      room.applying = false;
    }
    mode = ""; // the bar's setting shows the room's
  }

  // summarize puts the scenario on show into words, for a follower's screen reader.
  function summarize() {
    const values = state.values;
    const parts = spec.params.map((p) => `${p.label}: ${paramValue(p, values[p.name])}`);
    const text = `The presenter’s scenario — ${parts.join("; ")}.`;
    if (summary.textContent !== text) summary.textContent = text;
  }

  // presentAgain opens a new room for the scenario on show and presents it.
  async function presentAgain(b) {
    b.disabled = true;
    try {
      const { path } = await open();
      location.assign(path + location.search);
    } catch (err) {
      b.disabled = false;
      note = `Could not open a room: ${err.message}`;
      mode = "";
      render();
    }
  }

  function detach() {
    room.detached = true;
    followed = null;
    state.switchStream(); // the lab stream's runs are numbered apart from the room's
    state.setFollowing(false);
    stream.connect();
    render();
  }

  function rejoin() {
    note = "";
    stream.close();
    room.detached = false;
    state.switchStream();
    room.sentId = 0;
    follow();
    room.reopen(); // the room's current run, from its start
    render();
  }

  function render() {
    const r = room.room;
    const code = room.code;
    const n = r ? r.followers : 0;
    const m = room.over ? "over" : room.presenting ? "presenter" : room.detached ? "detached" : "following";
    const text = room.presenting ? (n === 1 ? "1 following" : `${n} following`) : n === 1 ? "1 in the room" : `${n} in the room`;
    if (count.textContent !== text) count.textContent = text;
    if (r && !room.presenting && !room.over) {
      // Presenters are counted over every server: none means the presenter has gone.
      const here = r.presenters > 0;
      const said = here ? (gone ? "The presenter is back." : "") : "The presenter has left the room. It stays open: you will follow again when they are back.";
      if (!here) gone = true;
      if (presence.textContent !== said) presence.textContent = said;
    }
    if (m + note === mode) return;
    mode = m + note;
    const kids = [];
    if (m === "over") {
      kids.push(el("p", { class: "room-line" }, note));
      if (room.key) {
        const again = el("button", { type: "button", class: "room-again" }, "Present again");
        again.addEventListener("click", () => presentAgain(again));
        kids.push(el("p", {}, "Open a new room for this scenario: ", again));
      }
    } else if (m === "presenter") {
      const link = `${location.origin}/join/${code}`;
      const copy = el("button", { type: "button", class: "room-copy" }, "Copy join link");
      copy.addEventListener("click", async () => {
        try {
          await navigator.clipboard.writeText(link);
          copy.textContent = "Join link copied";
        } catch {
          copy.textContent = "Select the link to copy it";
        }
      });
      kids.push(
        el("p", { class: "room-line" }, "Presenting room ", el("strong", { class: "room-code" }, code), " · ", count),
        el("div", { class: "room-join" },
          el("img", { class: "room-qr", src: `/join/${code}/qr.svg`, width: "132", height: "132", alt: `QR code of the join link ${link}` }),
          el("div", {},
            el("p", {}, "Join at ", el("a", { class: "room-link", href: `/join/${code}` }, link)),
            copy)),
      );
      const allow = el("input", { type: "checkbox", class: "room-reveal-open" });
      allow.checked = room.revealOpen;
      allow.addEventListener("change", () => { room.revealOpen = allow.checked; room.changed(); });
      const win = el("button", { type: "button", class: "room-window" }, "Open another presenter window");
      win.addEventListener("click", () => window.open(`/join/${code}${location.search}#key=${encodeURIComponent(room.key)}`, "_blank"));
      const end = el("button", { type: "button", class: "room-end" }, "End room");
      end.addEventListener("click", () => {
        if (confirm("End the room for everyone following it?")) room.end();
      });
      kids.push(
        el("p", {}, el("label", {}, allow, " Followers may reveal answers for themselves")),
        el("p", { class: "room-tools" }, win, " ", end),
      );
    } else if (m === "detached") {
      const b = el("button", { type: "button", class: "room-rejoin" }, "Rejoin");
      b.addEventListener("click", rejoin);
      kids.push(el("p", { class: "room-line" }, "Exploring on your own — room ", el("strong", { class: "room-code" }, code), " · ", count, " ", b));
    } else {
      const b = el("button", { type: "button", class: "room-detach" }, "Detach");
      b.addEventListener("click", detach);
      kids.push(el("p", { class: "room-line" }, "Following room ", el("strong", { class: "room-code" }, code), " · ", count, " ", b),
        presence, summary);
    }
    if (note && m !== "over") kids.push(el("p", { class: "room-note" }, note));
    bar.classList.toggle("presenter", m === "presenter");
    bar.replaceChildren(...kids);
  }
}
