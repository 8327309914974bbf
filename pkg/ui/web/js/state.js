// ClusterState is the page's copy of the objects the server streams: the
// browser-side twin of an informer's cache. The stream replaces it with a
// snapshot when it (re)connects, then applies upserts and deletes; views
// read it and never talk to the server about objects.
export class ClusterState {
  constructor() {
    /** @type {Map<string, {kind: string, uid: string, object: object, edges?: object[]}>} */
    this.objects = new Map();
    /** UID of the object the student selected, or null. */
    this.selected = null;
    this.listeners = new Set();
    this.renderScheduled = false;
  }

  // reset replaces every object (a snapshot).
  reset(items) {
    this.objects = new Map(items.map((item) => [item.uid, item]));
    this.changed();
  }

  // upsert adds or replaces one object.
  upsert(item) {
    this.objects.set(item.uid, item);
    this.changed(item.uid);
  }

  // remove forgets one object.
  remove(uid) {
    this.objects.delete(uid);
    this.changed(uid);
  }

  select(uid) {
    this.selected = uid;
    this.changed(uid);
  }

  // ofKind returns the objects of one kind, sorted by namespace and name.
  ofKind(kind) {
    const found = [];
    for (const item of this.objects.values()) {
      if (item.kind === kind) found.push(item);
    }
    return found.sort((a, b) => compareText(objectKey(a), objectKey(b)));
  }

  // onlyEventsChanged says whether every change of this render is to an
  // Event: the views that draw no Events (nodes, graph) skip such renders,
  // which are most of them while pods start (each start writes several
  // Events). A snapshot or a deletion is never "only Events".
  static onlyEventsChanged(state, changedUIDs) {
    if (changedUIDs.size === 0) return false;
    for (const uid of changedUIDs) {
      const item = state.objects.get(uid);
      if (!item || item.kind !== "Event") return false;
    }
    return true;
  }

  // onChange registers a view: fn(state, changedUIDs) runs at most once per
  // animation frame, however many changes arrived in between, so a burst
  // of a thousand pod updates costs one render.
  onChange(fn) {
    this.listeners.add(fn);
  }

  changed(uid) {
    this.pending = this.pending || new Set();
    this.pending.add(uid || everything);
    if (this.renderScheduled) return;
    this.renderScheduled = true;
    requestAnimationFrame(() => {
      this.renderScheduled = false;
      const changedUIDs = this.pending;
      this.pending = new Set();
      for (const fn of this.listeners) fn(this, changedUIDs);
    });
  }
}

// everything stands, among a render's changed UIDs, for a change that is
// not one object's: a snapshot, or a selection cleared.
const everything = "(everything)";

// compareText orders names as String.localeCompare does, through one
// shared collator: far cheaper when a view sorts a thousand pods.
export const compareText = new Intl.Collator().compare;

// objectKey is "namespace/name", or "name" for a cluster-scoped object.
export function objectKey(item) {
  const meta = item.object.metadata || {};
  return meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name;
}
