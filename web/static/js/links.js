// The one maker of links to what is on screen. A page's address is not always its scenario's
// own: a room's page is at /join/CODE, which dies with the room, and an embed's address carries
// its theme. Every link out of a page — Copy link, the data, compare and embed links, a PNG's
// caption, the address a page takes when its room ends — is the lab's own page with the
// scenario's canonical query (/backoff?clients=50): what the server ran for this page, the same
// bit for bit for anyone who opens it, for as long as links are kept. A tour's step (#tour=…)
// belongs to what is on screen and is kept; nothing else of the fragment is (a presenter's key,
// a note for this page only).
import { readFragment, fragmentOf } from "./fragment.js";

// shownQuery is the canonical query of the scenario on show: the address's, which holds the
// newest scenario the server ran for this page (js/history.js), without an embed's theme.
export function shownQuery() {
  return location.search.slice(1).split("&").filter((p) => p && !p.startsWith("theme=")).join("&");
}

// scenarioPath is the lab's own page of a scenario's query (by default the one on show).
export function scenarioPath(spec, query = shownQuery()) {
  return "/" + spec.name + (query ? "?" + query : "");
}

// scenarioAddress is the address of what is on screen: the scenario's page and its tour step.
export function scenarioAddress(spec) {
  return scenarioPath(spec) + fragmentOf({ tour: readFragment().tour });
}

// scenarioLink is the link to what is on screen, to share: scenarioAddress on this server.
export function scenarioLink(spec) {
  return location.origin + scenarioAddress(spec);
}
