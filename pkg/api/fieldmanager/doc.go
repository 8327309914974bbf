// Package fieldmanager is server-side apply: it merges an applied
// configuration into the live object, records which manager owns which
// field (metadata.managedFields), and refuses an apply that would change a
// field another manager owns unless the applier forces it.
//
// Upstream splits this between k8s.io/apimachinery's managedfields
// package (the managedFields encoding, the conflict error) and
// sigs.k8s.io/structured-merge-diff (field sets, merge, compare). kplane
// keeps one small version of both, working on decoded JSON (map[string]any,
// []any and scalars).
//
// # Field sets
//
// A Set is a tree of path elements written as managedFields writes them
// (fieldsV1): "f:name" for a field of an object or a key of a map,
// `k:{"name":"web"}` for an item of a list keyed by its map keys,
// `v:"a"` for an item of a set, "i:3" for an item of an atomic list (never
// recorded; atomic lists are owned whole). A node of the tree is a member
// when the path to it is in the set; a member that also has children is
// written with a "." key.
//
// # What the merge needs to know: Shape
//
// The merge and the field sets need, for every node, only the list
// semantics of its schema: is a list atomic, a set, or a map keyed by
// which fields; is an object granular or atomic. Shape is that question,
// and kplane answers it from a CRD's structural schema
// (structural.ApplyShape). A node without a Shape is "deduced" from its
// value as upstream deduces it: objects merge key by key, lists are
// atomic.
//
// # The algorithm (upstream's Updater.Apply and Updater.Update)
//
// Apply: merge the configuration into the live object; the manager's new
// set is the configuration's field set; fields the manager owned before
// but no longer applies are removed unless another manager owns them; the
// fields whose value changes and which another manager owns are
// conflicts — refused (409) unless forced, in which case they move to the
// applier. Update (any other write): the fields the write added or
// changed become the writer's; fields it removed leave every manager.
package fieldmanager
