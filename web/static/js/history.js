// The address bar and the browser history. The address holds the last scenario the server ran:
// an invalid value never enters it, nor does one the server refuses. A person's gesture (a
// slider from press to release, a typed value, a click) makes at most one history entry, pushed
// when the server starts the first of its scenarios it runs; the address then follows the
// gesture's newer ones while it lasts. A gesture the server refuses throughout, or one that ends
// where it began, makes none, so Back and Forward step through scenarios that ran, each once.
// Each change of the address is told as the state's "address" event (the scenario's links
// follow it: js/export.js). The compare view keeps two scenarios in one address; it passes
// opts: address(query), the page's address for a query of the scenario, and query(), the
// scenario's query in the address.
import { encode, decode } from "./params.js";

export function wireHistory(state, opts = {}) {
  const spec = state.spec;
  const address = opts.address || ((q) => location.pathname + (q ? "?" + q : ""));
  const query = opts.query || (() => location.search.slice(1));
  let gesture = false; // a person's gesture is open (from its first move to its end)
  let owed = false; // the newest gesture has no entry yet: the next scenario the server runs gets one
  let accepted = query(); // the query of the newest scenario the server ran
  if (!decodes(accepted)) {
    // A malformed escape (a link cut or typed wrong): the address takes the scenario the page
    // shows (the server has said which parameter it could not use), and so do the links.
    accepted = encode(spec, state.scenario);
    history.replaceState(history.state, "", address(accepted) + location.hash);
  }

  // The scenario's part of the address as this page last wrote or was brought to it: a
  // popstate that leaves it so moved the fragment only (a tour step's link, #… typed), and no
  // scenario.
  let inAddress = query();
  const here = () => location.pathname + location.search;
  // The address may hold what a link brought in and no scenario of ours writes (a malformed
  // escape, /backoff?clients=%ZZ): compared, never trusted to decode, it is written over with
  // the scenario's address at the first run.
  const same = (a, b) => a === b || unescaped(a) === unescaped(b);
  // A fragment (a tour's step, say) belongs to the page, not the scenario: it is kept.
  const write = (url, push) => {
    if (same(url, here())) return false;
    if (push) history.pushState(null, "", url + location.hash);
    else history.replaceState(null, "", url + location.hash);
    inAddress = query();
    state.emit("address", {});
    return true;
  };

  state.on("values", ({ source, ok, commit }) => {
    if (source === "follow") return;
    if (source === "server-error") {
      // Refused. A person's gesture wrote nothing yet; a scenario another source wrote (a
      // tour step's, say) is taken back out. A gesture that has ended owes no entry any more.
      write(address(accepted), false);
      if (!gesture) owed = false;
      return;
    }
    if (source === "user") {
      if (ok && !gesture) {
        gesture = true;
        owed = true;
      }
      if (commit) gesture = false;
      return; // written when the server runs it ("accepted")
    }
    // A scenario from elsewhere (Back or Forward, a tour, a presenter, a reconnect) ends any
    // gesture; its address is written now, Back's and Forward's being there already.
    gesture = owed = false;
    if (ok && source !== "history") write(address(encode(spec, state.scenario)), false);
  });
  // The server's canonical URL of the scenario it runs: a gesture's first gets the gesture's
  // entry, the others replace the address (in the server's spelling, such as 1m30s for 1.5m).
  // Written at once, so that the address is the scenario's whenever its numbers are final;
  // during a drag the server starts a run at most every picture, not at every input.
  state.on("accepted", ({ url }) => {
    // The server names the lab's path; a page at another one (a room's /join/CODE) keeps it.
    const q = url.indexOf("?");
    accepted = q >= 0 ? url.slice(q + 1) : "";
    url = address(accepted);
    // Owed until a scenario other than the one in the address runs (a drag may come back to
    // where it began first): the previous gesture's entry is never written over.
    const wrote = write(url, owed);
    if (wrote) owed = false;
    else state.emit("address", {});
  });
  // Back, Forward and an edited fragment are told as the state's "history" event, after the
  // scenario they bring: { fragmentOnly } says the address's scenario part did not move.
  addEventListener("popstate", () => {
    // The browser announces a fragment's edit with popstate too. The scenario stays: it may be
    // newer than the address, which follows the server's runs (a value just typed whose run
    // has not started), and taking the address's would put it back.
    const fragmentOnly = same(query(), inAddress);
    if (!fragmentOnly) {
      inAddress = query();
      gesture = owed = false;
      state.setScenario(decode(spec, query()), "history");
    }
    state.emit("history", { fragmentOnly });
  });
}


// unescaped returns s with its escapes decoded, or s itself when one is malformed ("%ZZ"):
// decodeURIComponent throws a URIError then.
function unescaped(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

// decodes reports whether s's escapes are well formed.
function decodes(s) {
  try {
    decodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
}
