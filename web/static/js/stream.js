// The websocket stream (protocol: see the api package documentation). It sends the state's
// scenario whenever it is requested and feeds the replies to the results and the state.
export class Stream extends EventTarget {
  constructor(state, results) {
    super();
    this.state = state;
    this.results = results;
    this.ws = null;
    this.sentId = 0;
    this.query = null; // the newest query asked for
    this.reconnects = 0;
    state.on("request", ({ query }) => this.request(query));
  }

  emit(type, detail) { this.dispatchEvent(new CustomEvent(type, { detail })); }

  // url is the websocket's address: the lab's stream (a room's stream overrides it).
  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}/api/v1/${this.state.spec.name}/stream`;
  }

  connect() {
    const ws = (this.ws = new WebSocket(this.url()));
    ws.addEventListener("open", () => {
      this.reconnects = 0;
      if (this.query !== null) this.send(this.query);
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

  onClose(ws, e) {
    if (this.ws !== ws) return;
    this.ws = null;
    const run = this.state.run;
    if (e.code === 4000) {
      // Closed for idleness: come back when the viewer does.
      run.phase = "idle";
      this.state.emit("run", {});
      const resume = () => {
        document.removeEventListener("visibilitychange", resume);
        document.removeEventListener("focusin", resume);
        document.removeEventListener("pointerdown", resume);
        if (!this.ws) this.connect();
      };
      document.addEventListener("visibilitychange", resume);
      document.addEventListener("focusin", resume);
      document.addEventListener("pointerdown", resume);
      return;
    }
    // Reconnect with capped exponential backoff and full jitter; the scenario is sent again
    // from the state once the connection is back.
    const cap = 10000, base = 250;
    const delay = Math.random() * Math.min(cap, base * 2 ** Math.min(this.reconnects++, 10));
    run.phase = "lost";
    run.message = e.code === 1001 ? "Server restarting — reconnecting…" : "Connection lost — reconnecting…";
    this.state.emit("run", {});
    setTimeout(() => this.connect(), delay);
  }

  // request asks for a run of query; it is sent now or when the connection is back.
  request(query) {
    this.query = query;
    const run = this.state.run;
    const id = this.send(query) ? this.sentId : this.sentId + 1;
    run.wantId = id;
    this.emit("sent", { id, t: performance.now() });
  }

  send(query) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.sentId++;
    this.state.run.wantId = this.sentId;
    this.ws.send(JSON.stringify({ type: "params", id: this.sentId, query }));
    return true;
  }

  onMessage(m) {
    const st = this.state, run = st.run;
    // Replies to requests since superseded still show: a progressive run keeps streaming until
    // its first picture, and its numbers are labelled as those of its own values.
    if (m.id > this.sentId) return;
    switch (m.type) {
      case "start":
        if (m.id < run.startedId) return;
        run.startedId = m.id;
        run.shown = { id: m.id, params: m.params, url: m.url };
        run.phase = "running";
        run.progress = null;
        run.refine = null;
        run.t0 = performance.now();
        this.results.start(m);
        if (m.id === this.sentId) {
          st.errors = {};
          st.emit("accepted", { id: m.id, url: m.url });
        }
        st.emit("run", {});
        break;
      case "frame":
        if (m.id !== run.startedId) return;
        if (m.progress) run.progress = m.progress;
        if (m.refine) {
          run.refine = m.refine;
          run.picture = run.shown.params;
        }
        this.results.frame(m);
        this.emit("frame", m);
        st.emit("run", {});
        break;
      case "done":
        if (m.id !== run.startedId) return;
        run.picture = run.shown.params;
        run.phase = m.id === this.sentId ? "done" : "running";
        run.ms = performance.now() - run.t0;
        this.results.done(m);
        this.emit("done", m);
        st.emit("run", {});
        break;
      case "busy":
        if (m.id !== this.sentId) return;
        run.phase = "busy";
        run.message = `Server busy — retrying in ${(m.retry_ms / 1000).toFixed(1)} s…`;
        st.emit("run", {});
        break;
      case "error":
        this.emit("error", m);
        if (m.id !== this.sentId) return;
        st.serverError(m);
        break;
    }
  }
}
