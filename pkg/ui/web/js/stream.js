// connect opens the page's one server-sent-events stream (/api/stream) and
// feeds state from it. Each event has a type:
//   snapshot  {objects: [...]}   every object the server holds; sent first
//             and again after each reconnect, so the page never misses a
//             change while it was away (no replay needed).
//   upsert    {kind, uid, object, edges}   an object added or changed
//   delete    {kind, uid}                   an object gone
// EventSource reconnects by itself after a dropped connection.
export function connect(state, setStatus) {
  const source = new EventSource("/api/stream");
  source.addEventListener("open", () => setStatus("live", "live: watching the cluster"));
  source.addEventListener("snapshot", (event) => {
    state.reset(JSON.parse(event.data).objects);
  });
  source.addEventListener("upsert", (event) => state.upsert(JSON.parse(event.data)));
  source.addEventListener("delete", (event) => state.remove(JSON.parse(event.data).uid));
  source.addEventListener("error", () => {
    if (source.readyState === EventSource.CLOSED) {
      // The server refused the reconnect (401: ctl ui was restarted and
      // the session is gone). Only a new login link helps.
      setStatus("signed-out", "disconnected: open a new login link from `ctl ui`");
    } else {
      setStatus("connecting", "reconnecting… (the page gets a fresh snapshot when it is back)");
    }
  });
  return source;
}
