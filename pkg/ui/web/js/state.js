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
    return found.sort((a, b) => objectKey(a).localeCompare(objectKey(b)));
  }

  // onChange registers a view: fn(state, changedUIDs) runs at most once per
  // animation frame, however many changes arrived in between, so a burst
  // of a thousand pod updates costs one render.
  onChange(fn) {
    this.listeners.add(fn);
  }

  changed(uid) {
    this.pending = this.pending || new Set();
    if (uid) this.pending.add(uid);
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

// objectKey is "namespace/name", or "name" for a cluster-scoped object.
export function objectKey(item) {
  const meta = item.object.metadata || {};
  return meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name;
}
