// haptic studio: the page's analyses (`POST /api/analyze`), fetched off the page's main thread.
// During a drag the main thread is busy with the moves and frames, and Chromium hands a fetch's
// answer there in several tasks (the headers, then the body), each waiting for a gap between
// frames; here the answer is received and read whole, then given to the page in one message.
// The page posts { id, url, token, body }; the answer is { id, status, text, headers } or
// { id, failed } (`headers`: ms from the message to the answer's headers, this worker's clock).
"use strict";

self.onmessage = async ({ data }) => {
  const start = performance.now();
  try {
    const response = await fetch(data.url, {
      method: "POST", credentials: "omit", priority: "high", body: data.body,
      headers: { "X-Studio-Token": data.token, "Content-Type": "application/json" },
    });
    const headers = performance.now() - start;
    const text = await response.text();
    self.postMessage({ id: data.id, status: response.status, text, headers });
  } catch (error) {
    self.postMessage({ id: data.id, failed: String(error && error.message || error) });
  }
};
