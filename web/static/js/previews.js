// The front page's previews: one the server was too busy to draw (a cold server, its run
// slots taken) is asked for again, after the wait the server names (Retry-After) or a capped
// exponential backoff with full jitter, a few times — so the page fills in instead of showing
// a broken image.
const tries = 6;

for (const img of document.querySelectorAll(".preview img")) {
  const url = img.getAttribute("src");
  let n = 0;
  const retry = async (after) => {
    if (n++ >= tries) return;
    const backoff = Math.random() * Math.min(8000, 500 * 2 ** n);
    await new Promise((r) => setTimeout(r, after > 0 ? after * 1000 : backoff));
    let resp;
    try {
      resp = await fetch(url);
    } catch {
      return retry(0);
    }
    if (!resp.ok) return retry(Number(resp.headers.get("Retry-After")) || 0);
    // Drawn now (and cached): the image loads it again, under a new fragment (not sent).
    img.src = `${url}#${n}`;
  };
  if (img.complete && img.naturalWidth === 0 && img.currentSrc) retry(0); // failed before this ran
  else img.addEventListener("error", () => retry(0), { once: true });
}
