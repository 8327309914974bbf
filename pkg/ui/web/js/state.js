// ClusterState is the page's copy of the objects the server streams: the
// browser-side twin of an informer's cache. The stream carries every kind
// but Event (too many to ship to show a few; the details view asks the
// server for the selected object's Events). The stream replaces it with a
// snapshot when it (re)connects, then applies upserts and deletes; views
// read it and never talk to the server about objects.
export class ClusterState {
  constructor() {
    /** @type {Map<string, {kind: string, uid: string, object: object, edges?: object[]}>} */
    this.objects = new Map();
    /** The same objects by kind: kind → (uid → item), so a view that
     *  draws pods walks only pods. */
    this.byKind = new Map();
    /** Per kind, its UIDs sorted by namespace and name (ofKind), kept until
     *  an object of the kind comes or goes: names never change, so an
     *  update does not reorder, and a render need not sort a thousand pods. */
    this.sortedUIDs = new Map();
    /** UID of the object the student selected, or null. */
    this.selected = null;
    this.listeners = new Set();
    this.renderScheduled = false;
  }

  // reset replaces every object (a snapshot).
  reset(items) {
    this.objects = new Map();
    this.byKind = new Map();
    this.sortedUIDs = new Map();
    for (const item of items) this.store(item);
    this.changed();
  }

  // upsert adds or replaces one object.
  upsert(item) {
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
    if (!this.objects.has(item.uid)) this.sortedUIDs.delete(item.kind); // a newcomer: sort again
    this.objects.set(item.uid, item);
    if (!this.byKind.has(item.kind)) this.byKind.set(item.kind, new Map());
    this.byKind.get(item.kind).set(item.uid, item);
  }

  // forget removes an object from the map and the indexes.
  forget(uid) {
    const item = this.objects.get(uid);
    if (!item) return;
    this.objects.delete(uid);
    this.byKind.get(item.kind).delete(uid);
    this.sortedUIDs.delete(item.kind);
  }

  select(uid) {
    this.selected = uid;
    this.changed(uid);
  }

  // ofKind returns the objects of one kind, sorted by namespace and name.
  ofKind(kind) {
    const items = this.byKind.get(kind) || new Map();
    if (!this.sortedUIDs.has(kind)) this.sortedUIDs.set(kind, sortedByKey([...items.values()]).map((item) => item.uid));
    return this.sortedUIDs.get(kind).map((uid) => items.get(uid));
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

// sortedByKey sorts objects by namespace and name, computing each key
// once rather than at every comparison.
export function sortedByKey(items) {
  return items.map((item) => ({ item, key: objectKey(item) }))
    .sort((a, b) => compareText(a.key, b.key))
    .map(({ item }) => item);
}

// objectKey is "namespace/name", or "name" for a cluster-scoped object.
export function objectKey(item) {
  const meta = item.object.metadata || {};
  return meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name;
}
