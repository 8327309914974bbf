// Package cache is the apiserver's watch cache: an in-memory copy of every
// object under one store prefix (one resource, such as /registry/pods/) that
// serves LIST and WATCH without asking etcd. It plays the part of upstream's
// Cacher (k8s.io/apiserver/pkg/storage/cacher) and is built only on
// store.Interface.
//
// # How it works
//
//	     store.Interface (etcd)
//	          │  List once, then Watch from the list's revision
//	          ▼
//	┌──────── Run goroutine (the reflector) ────────┐
//	│ decode each change once (Decoder)             │
//	│ apply it to the snapshot   ── Get, List read  │
//	│ append it to the history   ── Watch replays   │
//	│ hand it to every watcher whose prefix matches │
//	└───────────────────────────────────────────────┘
//	          │ one buffered channel per watcher
//	          ▼
//	cacheWatcher goroutine: replay from history, then live events
//	          │
//	          ▼
//	ResultChan() read by the apiserver's watch handler
//
// The parts, one file each:
//
//   - The snapshot (snapshot.go) is the latest state of every key, sorted by
//     key, so a LIST is a binary search and a copy.
//   - Pages (page.go): a paginated list's later pages show the list as of
//     its first page's revision, rebuilt from the snapshot and the history
//     while the history still reaches back to that revision.
//   - The history (history.go) is a ring of the most recent events. A watch
//     that resumes from a revision still inside the ring is replayed from
//     memory; an older one falls back to a watch on the store (which answers
//     store.ErrGone once that revision is compacted).
//   - Fan-out (dispatch.go) never lets one slow client hold the others back:
//     a watcher whose buffer stays full beyond a small, shared time budget is
//     closed, and its client re-watches from the last revision it saw. Upstream
//     does exactly this ("Forcing watcher close due to unresponsiveness").
//   - Consistent reads (freshness.go): List with minRevision 0 asks the store
//     for its current revision and waits until the cache has caught up,
//     requesting a progress notification from etcd when the revision moved
//     because of writes outside the prefix.
//
// # Invariants worth knowing
//
//   - Only the Run goroutine changes the snapshot, the history, the revision
//     and the watchers' input channels; it appends an event to the history
//     and chooses the watchers that get it live in one critical section. A new
//     watcher snapshots the history and registers in one critical section too,
//     so every event reaches it exactly once: either in its replay or live.
//   - Objects returned by the Decoder are shared by the snapshot, the history
//     and every watcher. Nobody may modify them.
//   - When the cache has to re-list (its own watch fell behind a compaction),
//     every live watcher gets an Error event wrapping store.ErrGone and its
//     channel closes: its client must re-list too (the apiserver turns this
//     into 410 Gone, reason Expired).
//   - DropWatches (drop.go) ends every watch without an Error event and
//     empties the history, so every client resumes through the store, which
//     knows what etcd has compacted: the apiserver's `ctl fault compact`.
package cache
