// The front page's "Join a room" box: a code typed as read off the presenter's screen opens
// its room's page — of a room that has ended, the scenario it showed last, with a note that it
// has ended (the server's answer to its join link); a code that names no room gets a clear
// message beside the box.
const form = document.getElementById("join-room");
const input = document.getElementById("join-code");
const out = document.getElementById("join-error");

function show(msg) {
  out.textContent = msg;
  input.setAttribute("aria-invalid", msg ? "true" : "false");
  if (msg) input.focus();
}

form?.addEventListener("submit", async (e) => {
  e.preventDefault();
  // As the server reads a code: spaces and dashes dropped, any case.
  const code = input.value.replace(/[\s-]/g, "").toUpperCase();
  if (!code) {
    show("Type the room’s code, as the presenter’s screen shows it.");
    return;
  }
  show("");
  let resp;
  try {
    resp = await fetch(`/api/v1/rooms/${encodeURIComponent(code)}`);
  } catch {
    show("The server cannot be reached; try again.");
    return;
  }
  let body = {};
  if (!resp.ok) {
    try { body = await resp.json(); } catch { /* not JSON */ }
  }
  if (resp.ok || (resp.status === 404 && body.url)) {
    location.assign(`/join/${encodeURIComponent(code)}`);
    return;
  }
  const msg = body.error || "";
  show(resp.status === 404
    ? `There is no room with the code ${code}: it has ended, or the code is mistyped.`
    : `Cannot join ${code}: ${msg || resp.statusText}.`);
});
