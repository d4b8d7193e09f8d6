// The address bar and the browser history. The address always holds the last valid scenario:
// an invalid value never enters it, and a scenario the server refuses is taken back out. A
// gesture (a slider from press to release, a typed value, a click) makes one history entry,
// which the URL follows while the gesture lasts; Back and Forward step through them. Each
// change of the address is told as the state's "address" event (the scenario's links follow
// it: js/export.js). The compare view keeps two scenarios in one address; it passes opts:
// address(query), the page's address for a query of the scenario, and query(), the scenario's
// query in the address.
import { encode, decode } from "./params.js";

// DRAG_WRITE is the least time, in ms, between two writes of the address during a gesture.
const DRAG_WRITE = 250;

// ownBacks counts the history.back() calls of the page's own (a refused entry taken back) whose
// popstate has not come: that popstate is no person's Back, for any scenario of the page (the
// compare view wires two).
let ownBacks = 0;

export function wireHistory(state, opts = {}) {
  const spec = state.spec;
  const address = opts.address || ((q) => location.pathname + (q ? "?" + q : ""));
  const query = opts.query || (() => location.search.slice(1));
  let gesture = false; // a gesture's entry is open: moves replace it
  let fresh = false; // the current entry was pushed by a gesture of which the server ran nothing yet
  // A refused fresh entry is taken back with history.back(), which the browser does later:
  // until its popstate, writes wait (the newest, a push if any was one) in queued.
  let backing = false, queued = null;
  let accepted = query(); // the query of the newest scenario the server ran

  const urlOf = (values) => address(encode(spec, values));
  const here = () => location.pathname + location.search;
  // A fragment (a tour's step, say) belongs to the page, not the scenario: it is kept.
  let pending = 0; // a timer writing a drag's newest address
  const write = (url, push) => {
    clearTimeout(pending);
    pending = 0;
    if (backing) {
      queued = { url, push: push || !!(queued && queued.push) };
      return;
    }
    if (url === here()) return;
    if (push) history.pushState(null, "", url + location.hash);
    else history.replaceState(null, "", url + location.hash);
    state.emit("address", {});
  };
  // While a gesture lasts (a slider dragged: an input every few milliseconds), its entry's
  // address follows it at most every DRAG_WRITE ms, the newest value last: replacing the
  // address costs the browser some milliseconds each time (and the links that follow it
  // more), time a dragged page needs for its charts. The gesture's end writes at once, and so
  // does the server's start of a run, so that the address is the scenario's whenever its
  // numbers are final.
  let written = 0, newest = "";
  const flush = () => { write(newest, false); written = performance.now(); };
  const follow = (url) => {
    const wait = written + DRAG_WRITE - performance.now();
    newest = url;
    clearTimeout(pending);
    if (wait <= 0) flush();
    else pending = setTimeout(flush, wait);
  };

  state.on("values", ({ source, ok, commit }) => {
    if (source === "follow") return;
    if (source === "server-error") {
      // A gesture refused before the server ran any of it leaves no entry behind: Back goes
      // where it went before the gesture, not to a copy of the address.
      if (fresh) {
        fresh = false;
        if (!backing) {
          backing = true;
          ownBacks++;
          history.back();
        }
        clearTimeout(pending);
        pending = 0;
        queued = null; // the refused gesture's writes, still waiting, are dropped
      } else write(address(accepted), false);
      gesture = false;
      return;
    }
    if (!ok) {
      if (commit) gesture = false;
      return;
    }
    const url = urlOf(state.scenario);
    if (source === "user") {
      if (!gesture && url !== here()) {
        write(url, true);
        written = performance.now();
        gesture = true;
        fresh = true;
      } else if (gesture && !commit) follow(url);
      else if (gesture) write(url, false);
      if (commit) gesture = false;
    } else if (source !== "history") {
      write(url, false);
    }
  });
  // The server's canonical URL of the scenario asked for replaces ours (they agree but for
  // spelling, such as 1m30s for 1.5m).
  state.on("accepted", ({ url }) => {
    // The server names the lab's path; a page at another one (a room's /join/CODE) keeps it.
    const q = url.indexOf("?");
    accepted = q >= 0 ? url.slice(q + 1) : "";
    fresh = false;
    url = address(accepted);
    if (pending) return flush(); // a drag's newest address, before the server's spelling of it
    if (backing) return write(url, false);
    if (url !== here() && decodeURIComponent(url) !== decodeURIComponent(here())) history.replaceState(null, "", url + location.hash);
    state.emit("address", {});
  });
  addEventListener("popstate", (e) => {
    if (e.ours === undefined) {
      e.ours = ownBacks > 0;
      if (e.ours) ownBacks--;
    }
    if (e.ours) { // a refused entry taken back: the scenarios stay as they are
      if (!backing) return;
      backing = false;
      const q = queued;
      queued = null;
      if (q) write(q.url, q.push);
      state.emit("address", {});
      return;
    }
    clearTimeout(pending);
    pending = 0;
    gesture = false;
    state.setScenario(decode(spec, query()), "history");
  });
}
