// The address's fragment holds what belongs to this page and no request: a presenter's key
// (key=…), a tour's step (tour=name/n), written "#key=…&tour=jitter/2", and the code of a room
// that has ended (ended=CODE: the server sent a kept join link here, js/room.js says so and
// takes it out). Browsers send the fragment to no server and in no Referer.
// An entry that does not decode ("#%", "#key=%ZZ": a link cut or typed wrong) is left out, as
// if absent: the page draws on, and a presenter's page with a broken key follows.
export function readFragment() {
  const out = {};
  for (const part of location.hash.replace(/^#/, "").split("&")) {
    if (!part) continue;
    const i = part.indexOf("=");
    try {
      const k = decodeURIComponent(i < 0 ? part : part.slice(0, i));
      out[k] = i < 0 ? "" : decodeURIComponent(part.slice(i + 1));
    } catch {
      // URIError: a malformed escape
    }
  }
  return out;
}

// fragmentOf writes entries as a fragment ("#key=…&tour=jitter/2"; "" for none), leaving out
// those null, undefined or "".
export function fragmentOf(entries) {
  const parts = [];
  for (const [k, v] of Object.entries(entries)) {
    if (v === null || v === undefined || v === "") continue;
    parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(v).replace(/%2F/g, "/"));
  }
  return parts.length ? "#" + parts.join("&") : "";
}

// setFragment changes some of the fragment's entries (null or "" removes one) in place, without
// a history entry; with push, in a new history entry (a tour's step is one).
export function setFragment(changes, push = false) {
  const hash = fragmentOf({ ...readFragment(), ...changes });
  if (push) history.pushState(null, "", location.pathname + location.search + hash);
  else if (hash !== location.hash) history.replaceState(history.state, "", location.pathname + location.search + hash);
}
