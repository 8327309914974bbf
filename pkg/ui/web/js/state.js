// ClusterState is the page's copy of the objects the server streams: the
// browser-side twin of an informer's cache. The stream replaces it with a
// snapshot when it (re)connects, then applies upserts and deletes; views
// read it and never talk to the server about objects.
export class ClusterState {
  constructor() {
    /** @type {Map<string, {kind: string, uid: string, object: object, edges?: object[]}>} */
    this.objects = new Map();
    /** The same objects by kind: kind → (uid → item), so a view that
     *  draws pods never walks the thousands of Events. */
    this.byKind = new Map();
    /** Each object's Events: involvedObject.uid → Set of Event UIDs, kept
     *  as Events come and go (what `kubectl describe` matches on), so the
     *  details view never scans every Event. */
    this.eventsByObject = new Map();
    /** UID of the object the student selected, or null. */
    this.selected = null;
    this.listeners = new Set();
    this.renderScheduled = false;
  }

  // reset replaces every object (a snapshot).
  reset(items) {
    this.objects = new Map();
    this.byKind = new Map();
    this.eventsByObject = new Map();
    for (const item of items) this.store(item);
    this.changed();
  }

  // upsert adds or replaces one object.
  upsert(item) {
    this.forget(item.uid);
    this.store(item);
    this.changed(item.uid);
  }

  // remove forgets one object.
  remove(uid) {
    this.forget(uid);
    this.changed(uid);
  }

  // store files an object in the map and the indexes.
  store(item) {
    this.objects.set(item.uid, item);
    if (!this.byKind.has(item.kind)) this.byKind.set(item.kind, new Map());
    this.byKind.get(item.kind).set(item.uid, item);
    const involved = involvedUID(item);
    if (involved) {
      if (!this.eventsByObject.has(involved)) this.eventsByObject.set(involved, new Set());
      this.eventsByObject.get(involved).add(item.uid);
    }
  }

  // forget removes an object from the map and the indexes.
  forget(uid) {
    const item = this.objects.get(uid);
    if (!item) return;
    this.objects.delete(uid);
    this.byKind.get(item.kind).delete(uid);
    const involved = involvedUID(item);
    const events = involved && this.eventsByObject.get(involved);
    if (events) {
      events.delete(uid);
      if (events.size === 0) this.eventsByObject.delete(involved);
    }
  }

  // eventsOf returns the Events whose involvedObject is the object uid.
  eventsOf(uid) {
    return [...(this.eventsByObject.get(uid) || [])].map((eventUID) => this.objects.get(eventUID));
  }

  select(uid) {
    this.selected = uid;
    this.changed(uid);
  }

  // ofKind returns the objects of one kind, sorted by namespace and name.
  ofKind(kind) {
    const found = [...(this.byKind.get(kind) || new Map()).values()];
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

// involvedUID is, for an Event, the UID of the object it is about.
function involvedUID(item) {
  return item.kind === "Event" && item.object.involvedObject ? item.object.involvedObject.uid : null;
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
