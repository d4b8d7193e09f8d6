// The front page's previews: one the server was too busy to draw (a cold server, its run
// slots taken) is asked for again — after the wait the server names (Retry-After), else a
// capped exponential backoff with full jitter — until it is drawn, as the lab page's stream
// reconnects: how long the slots stay taken depends on the machine, so no count of tries is
// right. The page fills in instead of showing a broken image.
const cap = 8000, base = 500;

for (const img of document.querySelectorAll(".preview img")) {
  const url = img.getAttribute("src");
  let n = 0;
  const retry = async (after) => {
    const backoff = Math.random() * Math.min(cap, base * 2 ** Math.min(n++, 10));
    await new Promise((r) => setTimeout(r, after > 0 ? after * 1000 : backoff));
    let resp;
    try {
      resp = await fetch(url);
    } catch {
      return retry(0);
    }
    if (resp.status === 404 || resp.status === 400) return; // no such preview: nothing to wait for
    if (!resp.ok) return retry(Number(resp.headers.get("Retry-After")) || 0);
    // Drawn now (and cached): the image loads it again, under a new fragment (not sent).
    img.src = `${url}#${n}`;
  };
  let waiting = false;
  const failed = () => {
    if (waiting) return;
    waiting = true;
    retry(0).finally(() => { waiting = false; });
  };
  img.addEventListener("error", failed); // again if the reload fails too
  if (img.complete && img.naturalWidth === 0 && img.currentSrc) failed(); // failed before this ran
}
