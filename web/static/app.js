// The playground's page script. It knows no lab: it reads the lab's declarations (parameters
// and view) from #lab-spec and its starting scenario from #lab-state, and wires small modules
// around one state object (js/state.js): controls render from it, the address and history
// follow it, the stream runs it, and the charts and tables draw the numbers it streams.
// Message protocol: see the api package documentation.
import { State } from "./js/state.js";
import { onThemeChange } from "./js/palette.js";
import { wireExport } from "./js/export.js";
import { wirePresent } from "./js/present.js";
import { Stream } from "./js/stream.js";
import { Results } from "./js/results.js";
import { wireControls } from "./js/controls.js";
import { wireHistory } from "./js/history.js";
import { wireStatus } from "./js/status.js";
import { Charts } from "./js/charts.js";
import { renderTable, fitTables } from "./js/tables.js";
import { styler } from "./js/palette.js";
import { installProbe } from "./js/probe.js";
import { wireRoom } from "./js/room.js";
import { wireTour } from "./js/tour.js";
import { scenarioLink } from "./js/links.js";

const spec = JSON.parse(document.getElementById("lab-spec").textContent);
const start = JSON.parse(document.getElementById("lab-state").textContent);
const state = new State(spec, start.values, start.errors);
const results = new Results();
const stream = new Stream(state, results);
const style = styler(spec);

wireControls(state, document.getElementById("controls"));
// An embed's theme (theme=light|dark, set by the server on the page) stays in its address.
const theme = document.documentElement.dataset.theme;
wireHistory(state, theme ? { address: (q) => location.pathname + "?" + (q ? q + "&" : "") + "theme=" + theme } : {});
wireStatus(state);
const charts = new Charts(state, results, style);
results.addEventListener("draw", (e) => {
  for (const id of e.detail.charts) charts.draw(id);
  for (const k of e.detail.tables) for (const t of spec.view.tables) if (t.key === k) renderTable(state, results, style, t);
});
// Headings and marks follow the picture shown; axes fit once the run is final.
let fitted = -1;
state.on("run", () => {
  const run = state.run;
  if (run.phase === "done" && run.startedId !== fitted && !state.stale()) {
    fitted = run.startedId;
    results.redrawAll(spec.view.charts.map((c) => c.id));
    for (const t of spec.view.tables) renderTable(state, results, style, t); // tables the run left empty say so
  }
});
installProbe(state, stream, results, charts);
// Light or dark, as the system says (unless an embed's URL fixes it); a switch redraws in the
// other theme's colours.
onThemeChange(() => {
  charts.restyle();
  for (const t of spec.view.tables) renderTable(state, results, style, t);
});
wireExport(state);
wirePresent(state, charts);
fitTables();

// The skip link focuses the first control without touching the address's fragment (a tour's
// step, a room's key).
document.querySelector(".skip-link")?.addEventListener("click", (e) => {
  e.preventDefault();
  document.querySelector("#controls input:not([type=hidden]), #controls select")?.focus();
});

// Copy link copies the link to what is on screen (js/links.js): on a room's /join/CODE page,
// presenter's or follower's, the lab's own page of the scenario, which outlives the room (the
// room's bar has its own "Copy join link").
document.getElementById("copy-link")?.addEventListener("click", async () => {
  const status = document.getElementById("status");
  try {
    await navigator.clipboard.writeText(scenarioLink(spec));
    status.textContent = "Link copied.";
  } catch {
    status.textContent = "Copy the address bar to share this view.";
  }
});

// The scenario the page was opened with; the stream sends it once connected.
state.setScenario(start.values, "boot");
// Tours, and rooms: a room's page follows (or presents) the room's stream instead of its own.
const tour = wireTour(state);
if (!wireRoom(state, stream, results, tour)) stream.connect();

// For rooms, tours and reconnects: set the scenario as the server or a presenter has it, and
// follow (controls show the scenario but take no input) or stop following.
export function setScenario(values, source = "server") { state.setScenario(values, source); }
export function setFollowing(on) { state.setFollowing(on); }
