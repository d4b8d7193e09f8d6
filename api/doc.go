// Package api serves the playground over HTTP: lab pages, the JSON API, websocket streams and
// the operator endpoints. It knows labs only through a [lab.Registry] and runs them only
// through a [hub.Hub].
//
// # Routes
//
//	GET /                         index of labs
//	GET /{lab}?{params}           a lab's page; a bad URL still renders, with its errors shown
//	GET /embed/{lab}?{params}     charts only, the one view that may be framed
//	GET /api/v1/{lab}?{params}    the whole result as JSON
//	GET /api/v1/{lab}/stream      websocket stream of runs
//	GET /healthz  /readyz  /metrics
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
//	{"type": "params", "id": 7, "query": "clients=100&base=5ms"}
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
// A newer params message supersedes the run being streamed at once, except for a progressive
// lab's run that has not yet completed its first picture: that one is streamed until it has,
// and then the newest request is served. A viewer dragging a slider thus sees a picture at
// every step the server has time for.
//
// Limits per connection: parameter changes are paced by a token bucket (excess requests are
// coalesced to the newest); messages larger than the read limit close the connection with
// 1009, malformed messages with 1007 (invalid payload) and a reason; connections that stop
// answering pings are closed, and so are streams that send no request for the idle timeout
// (close code 4000, "idle"; the page reconnects when its viewer returns). Only same-origin
// connections are accepted unless the origin is on the configured allow-list. When the server drains, each stream finishes its run and is
// closed with 1001 (going away); the page reconnects and restores its view from its URL.
package api
