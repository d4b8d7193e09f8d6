// The address's fragment holds what belongs to this page and no request: a presenter's key
// (key=…) and a tour's step (tour=name/n), written "#key=…&tour=jitter/2". Browsers send the
// fragment to no server and in no Referer.
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

// setFragment changes some of the fragment's entries (null or "" removes one) in place, without
// a history entry; with push, in a new history entry (a tour's step is one).
export function setFragment(changes, push = false) {
  const f = { ...readFragment(), ...changes };
  const parts = [];
  for (const [k, v] of Object.entries(f)) {
    if (v === null || v === undefined || v === "") continue;
    parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(v).replace(/%2F/g, "/"));
  }
  const hash = parts.length ? "#" + parts.join("&") : "";
  if (push) history.pushState(null, "", location.pathname + location.search + hash);
  else if (hash !== location.hash) history.replaceState(history.state, "", location.pathname + location.search + hash);
}
