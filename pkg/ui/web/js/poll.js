// A panel that reads the components' debug APIs (the why and trace panels)
// polls its route for the selected object: every 2 s while it stays
// selected and the page is visible, at once when the selection changes.
// The server reads the journals again at each request (pkg/ui/panel_*.go).
export const pollInterval = 2000;

// SelectedPoller fetches `${prefix}/${uid}` for the selected uid and hands
// each answer (or error) to onAnswer(uid, answer, error).
export class SelectedPoller {
  constructor(prefix, onAnswer) {
    this.prefix = prefix;
    this.onAnswer = onAnswer;
    this.uid = null;
    this.timer = null;
  }

  // follow starts polling for uid (null stops).
  follow(uid) {
    if (uid === this.uid) return;
    this.uid = uid;
    clearInterval(this.timer);
    this.timer = null;
    if (!uid) return;
    this.fetch(uid);
    this.timer = setInterval(() => {
      if (!document.hidden) this.fetch(uid);
    }, pollInterval);
  }

  async fetch(uid) {
    let answer = null;
    let error = null;
    try {
      const response = await fetch(`${this.prefix}/${encodeURIComponent(uid)}`);
      const body = await response.json();
      if (response.ok) answer = body;
      else error = body.message || `HTTP ${response.status}`;
    } catch (e) {
      error = String(e);
    }
    if (uid === this.uid) this.onAnswer(uid, answer, error);
  }
}
