// postJSON makes one of the page's state-changing requests (a fault button,
// the clock's advance) and answers the server's JSON, or throws an Error
// with the message of the Kubernetes-style Status the server answered.
// The browser adds the page's Origin header, which the server checks.
export async function postJSON(url, body) {
  const init = { method: "POST", credentials: "same-origin" };
  if (body !== undefined) {
    init.headers = { "Content-Type": "application/json" };
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.message || `${response.status} ${response.statusText}`);
  return answer;
}
