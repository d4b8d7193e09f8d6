// The websocket stream of runs (protocol: see the api package documentation). It sends the
// state's scenario whenever it is requested and hands the replies to the results (the
// numbers) and to the state, whose methods move the run through its phases. A room's page
// (js/room.js) makes one for the room's stream with options instead of a subclass: its own
// address, what to do on opening and closing, messages of its own handled first, and the
// listeners of the lab stream told of its runs.
export class Stream extends EventTarget {
  // opts: url() the websocket's address (default: the lab's stream); connecting(), which may
  // return false to stay closed (a room that has ended); onOpen(ws); onClose(e),
  // after the stream's own handling; onMessage(m), returning true for a message it handled
  // itself; events, the EventTarget told of "frame", "done" and "error" (default: this);
  // requests: false when the stream does not send the state's requests itself.
  constructor(state, results, opts = {}) {
    super();
    this.state = state;
    this.results = results;
    this.opts = opts;
    this.events = opts.events || this;
    this.ws = null;
    this.sentId = 0; // the newest request sent (a room's: its version)
    this.query = null; // the newest query asked for
    this.reconnects = 0;
    if (opts.requests !== false) state.on("request", ({ query, drag }) => this.request(query, drag));
  }

  emit(type, detail) { this.dispatchEvent(new CustomEvent(type, { detail })); }

  url() {
    if (this.opts.url) return this.opts.url();
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}/api/v1/${this.state.spec.name}/stream`;
  }

  connect() {
    if (this.opts.connecting?.() === false) return;
    const ws = (this.ws = new WebSocket(this.url()));
    ws.addEventListener("open", () => {
      this.reconnects = 0;
      if (this.opts.requests !== false && this.query !== null) this.send(this.query);
      this.opts.onOpen?.(ws);
    });
    ws.addEventListener("message", (e) => this.onMessage(JSON.parse(e.data)));
    ws.addEventListener("close", (e) => this.onClose(ws, e));
  }

  // close ends the connection for good (no reconnect) until connect is called again.
  close() {
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close(1000);
  }

  open() { return !!this.ws && this.ws.readyState === WebSocket.OPEN; }

  onClose(ws, e) {
    if (this.ws !== ws) return;
    this.ws = null;
    this.state.disconnected(e.code);
    if (e.code === 4000) {
      // Closed for idleness: come back when the viewer does.
      const resume = () => {
        document.removeEventListener("visibilitychange", resume);
        document.removeEventListener("focusin", resume);
        document.removeEventListener("pointerdown", resume);
        if (!this.ws) this.connect();
      };
      document.addEventListener("visibilitychange", resume);
      document.addEventListener("focusin", resume);
      document.addEventListener("pointerdown", resume);
    } else {
      // Reconnect with capped exponential backoff and full jitter; the scenario is sent again
      // from the state once the connection is back.
      const cap = 10000, base = 250;
      const delay = Math.random() * Math.min(cap, base * 2 ** Math.min(this.reconnects++, 10));
      setTimeout(() => this.connect(), delay);
    }
    this.opts.onClose?.(e);
  }

  // request asks for a run of query; it is sent now or when the connection is back. drag
  // marks a step of a slider's drag: the server lets the run in flight show its picture first,
  // where any other request supersedes it at once.
  // The scenario running or shown already is not asked for again (a typed value's input and
  // change events both request it): the server would only restart the same run.
  request(query, drag = false) {
    const phase = this.state.run.phase;
    if (query === this.query && this.open() && this.state.run.wantId === this.sentId && (phase === "running" || phase === "done")) return;
    this.query = query;
    const id = this.send(query, drag) ? this.sentId : this.sentId + 1;
    this.state.requested(id);
    this.emit("sent", { id, t: performance.now() });
  }

  send(query, drag = false) {
    if (!this.open()) return false;
    this.sentId++;
    this.state.requested(this.sentId);
    this.ws.send(JSON.stringify({ type: "params", id: this.sentId, query, drag: drag || undefined })); // no "drag" unless one
    return true;
  }

  onMessage(m) {
    if (this.opts.onMessage?.(m)) return;
    const st = this.state;
    // Replies to requests since superseded still show: a progressive run keeps streaming until
    // its first picture, and its numbers are labelled as those of its own values.
    if (m.id > this.sentId) return;
    const current = m.id === this.sentId;
    const tell = (type) => this.events.dispatchEvent(new CustomEvent(type, { detail: m }));
    switch (m.type) {
      case "start":
        if (m.id < st.run.startedId) return;
        this.results.start(m);
        st.started(m, current);
        break;
      case "frame":
        if (!st.framed(m)) return;
        this.results.frame(m);
        tell("frame");
        break;
      case "done":
        if (!st.finished(m, current)) return;
        this.results.done(m);
        tell("done");
        break;
      case "busy":
        if (current) st.busy(m);
        break;
      case "error":
        tell("error");
        if (current) st.serverError(m);
        break;
    }
  }
}
