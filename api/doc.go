// Package api serves the playground over HTTP: lab pages, the JSON API, websocket streams and
// the operator endpoints. It knows labs only through a [lab.Registry] and runs them only
// through a [hub.Hub].
//
// # Routes
//
// Every route the server registers, one a line (TestRoutesDocumented compares this list with
// the router's):
//
//	GET  /                             index of labs
//	GET  /{lab}?{params}               a lab's page; a bad URL still renders, with its errors shown
//	GET  /embed/{lab}?{params}         charts only, the one view that may be framed
//	GET  /compare?{urls}               several scenarios' results side by side
//	GET  /preview/{lab}.svg?{params}   a small SVG of a scenario's headline chart, for the index
//	GET  /api/v1/{lab}?{params}        the whole result as JSON
//	GET  /api/v1/{lab}.csv?{params}    the whole result as CSV
//	GET  /api/v1/{lab}/stream          websocket stream of runs (see Stream protocol)
//	POST /api/v1/rooms                 open a room for a scenario (see Rooms)
//	GET  /api/v1/rooms/{code}          a room's state
//	GET  /api/v1/rooms/{code}/stream   websocket stream of a room (see Rooms)
//	GET  /api/v1/rooms/{code}/answers.csv the class's answers per step, for the presenter (see Rooms)
//	GET  /join/{code}                  a room's page, following it (or driving it, with the presenter key); an ended room's: 303 to its last scenario
//	GET  /join/{code}/qr.svg           a QR code of the join URL
//	GET  /static/*                     embedded scripts, styles and fonts
//	GET  /healthz                      liveness
//	GET  /readyz                       readiness: 503 while draining
//	GET  /metrics                      Prometheus metrics
//
// # Errors
//
// Every error maps to a status in one place ([statusOf]): a bad parameter is 400 with
// {"error": "...", "param": "..."}, and a scenario that breaks a lab's rule across parameters
// (lab.Lab.Check) adds every parameter the rule spans: {"error": "subset must be at most
// backends (300), got 400", "param": "subset", "params": ["subset", "backends"]}; a full
// server is 503 with Retry-After; a draining server is 503; a client over one of its limits
// (rooms opened, unknown room codes tried) is 429 with Retry-After, in the header and as
// "retry_after" (seconds) in the body; anything unexpected is 500 with {"error": "internal
// error"} and no details, which go to
// the log instead.
//
// # Stream protocol
//
// The page sends, whenever a control changes (JSON text messages):
//
//	{"type": "params", "id": 7, "query": "clients=100&base=5ms"}   "drag": true during a slider's drag
//
// id is the page's own counter, echoed in every reply so the page can drop replies to older
// requests. The server cancels the run it was streaming (unless other viewers watch it) and
// replies:
//
//	{"type": "start", "id": 7, "url": "/backoff?clients=100", "params": {...}}   canonical URL
//	{"type": "frame", "id": 7, "progress": {...}, "summary": {...}, "series": [...]}
//	{"type": "done",  "id": 7}
//	{"type": "error", "id": 7, "error": "clients must be ...", "param": "clients"}   "params": [...] for a rule across parameters
//	{"type": "busy",  "id": 7, "retry_ms": 400}   every slot taken; the server retries itself
//
// Frames are incremental: summary entries replace those of the same key; a series replaces the
// one of the same name, extends it when "append" is true, or updates its points by x when
// "upsert" is true (a point replaces the one of the same x or is inserted in order); progress
// replaces progress. An append or upsert to a series already sent in the run carries only
// "name", "x", "y" and the flag: its chart, label, units and style are those sent first. A
// series with "of" set is a view-only bound ("bound": "lo" or "hi") of a band around the
// series of that name; the JSON result leaves bands out. A progressive lab's frames carry
// "refine": {"done", "total", "unit"} — the numbers shown are means over done of total
// trials, and the first frame with it completes a (coarse) picture. At most one frame is sent
// per frame interval (about 30 a second); a reader slower than that gets the newest state
// merged into one frame, never a queue. Frames are compressed (permessage-deflate) when the
// browser offers it.
//
// A newer params message supersedes the run being streamed at once, so a move starts at once
// whatever the old run was doing — except for a progressive lab's run that has not yet
// completed its first picture when the message is a step of a slider's drag ("drag": true,
// which the page sets while a slider is dragged or stepped by held keys) or the viewer has
// been waiting for a picture for the server's patience (100 ms) already: then that run is
// streamed until it has, and the newest request is served next. A viewer dragging a slider
// thus sees a picture at every step the server has time for, and a client sending values
// faster than pictures come still sees one now and then.
//
// Limits per connection: parameter changes are paced by a token bucket (excess requests are
// coalesced to the newest); a message larger than the read limit closes the connection with
// 1009 as soon as its frame's header declares it, malformed messages with 1007 (invalid
// payload) and a reason; connections that stop
// answering pings are closed, and so are streams that send no request for the idle timeout
// (close code 4000, "idle"; the page reconnects when its viewer returns). Only same-origin
// connections are accepted unless the origin is on the configured allow-list. When the server drains, each stream finishes its run and is
// closed with 1001 (going away); the page reconnects and restores its view from its URL.
//
// Limits per client and in all: a client may hold Config.MaxClientStreams streams, labs' and
// rooms' together, and the server Config.MaxStreams; beyond, the stream is refused before the
// upgrade, 429 and 503, with Retry-After. A scenario's admission (its estimates of work and
// memory) is decided through the hub, as the client's work, and kept by canonical URL: a
// refusal asked for again costs nothing.
//
// # Rooms
//
// A room is a live teaching session. A presenter creates a room for a scenario
// (POST /api/v1/rooms); followers open its join page and see, live, the scenario the presenter
// drives from the presenter page. A room's state is its current URL, tour step and reveal, kept in a
// room.Store shared by every replica; each server with participants in a room runs one
// driver for it — it computes the room's scenario once, through the hub — and fans the
// frames out to its local participants through a broadcast: encoded once, the same bytes to
// every follower.
//
// The room stream (GET /api/v1/rooms/{code}/stream) speaks the lab stream's protocol, plus:
//
//	{"type": "room", "code", "lab", "url", "step", "revealed", "reveal_open", "version",
//	 "followers", "presenters", "presenter", "answers"}
//
// sent first and whenever the room changes (presenter is true on the presenter's own
// connection; presenters counts the presenter connections over every server, 0 when the
// presenter has gone — or its server has: a server's counts lapse after room.CountLease
// without renewal); the run frames' ids are the room's version, and the room message of a
// version comes before its run. A connection becomes the presenter by sending {"type":
// "present", "key": "..."}; then its params messages ({"type": "params", "id", "query", "step",
// "revealed", "reveal_open"}) set the room's whole state — scenario, tour step, whether the
// step's answer is revealed and whether followers may reveal it for themselves — and
// {"type": "end"} ends the room: every participant's stream closes with StatusRoomEnded. A
// follower's params or end message is answered with an error and changes nothing.
//
// A room's links die with it, its scenario's do not. A room that has ended — ended, or expired
// — leaves a tombstone in the store for room.EndedTTL (a week): its last scenario and tour
// step. Its join page, a follower's reload or a link someone kept, then answers 303 See Other
// to that scenario on the lab's own page, "/free?n=5#tour=intro/2&ended=CODE" — the fragment
// holds the step and the marker by which the page says the room has ended (and which it takes
// out of its address), so the address is the scenario's canonical URL, the same bit for bit as
// any link to it; GET /api/v1/rooms/{code} answers 404 with the scenario as "url". A code that
// never named a room, or whose tombstone has lapsed, is 404 as before.
//
// The class answers a tour step that asks a question (lab.Step.Answer). A follower sends
// {"type": "answer", "id", "step", "answer", "who"} — answer an option's ID or a number on the
// step's scale (stored on its grid), who an anonymous id of 16 to 64 letters, digits, '-' or
// '_' that the page keeps — and is answered {"type": "answer", "id", "step", "answer"} with its
// answer as stored; without "answer" it asks for its stored answer (a reloaded page). One
// answer counts per follower (who) and step, over every server; a change replaces it. Answers
// are taken for the step on show until it is revealed (then 409-style errors naming "step"),
// at most 4 a second per connection (the newest first), and a connection answers for one who.
// The presenter's connections are sent {"type": "answers", "answers": {"step", "answered",
// "present", "counts"}} as the tally changes — counts by answer, no truth —; followers see no
// one's answers until the step is revealed, when the room message carries "answers" with the
// tally and the step's "truth". GET /api/v1/rooms/{code}/answers.csv, with the presenter key
// as "Authorization: Bearer KEY" (403 without), gives every step's tally as CSV: step, answer,
// count — nothing of who answered.
//
// Limits: a client (a remote address; see clientOf) may open 5 rooms at once, then one every
// 10 seconds (a creation refused for what it asks — a bad body, a scenario over the budget —
// takes nothing of that), and keep at most room.Limits.PerOwner (20) open, its network (an
// IPv4 /24, an IPv6 /48) room.Limits.PerNetwork (100); the store keeps at most
// room.Limits.Rooms (10,000), and a room nobody joins ends after room.JoinTTL. A room's runs
// are charged to the client that made it (package hub's "Fair slots"). A client may try 20 codes that name no room, then one every 5
// seconds — codes that name a room, live or ended, are not counted, so a class behind one address joins
// freely. Beyond a limit a request is answered 429 (503 when the server's rooms are full) with
// Retry-After, before the store is asked. A presenter's changes are stored at most
// Config.ParamRate a second (the rate of a viewer's own changes), the newest first: changes
// sent meanwhile replace each other.
package api
