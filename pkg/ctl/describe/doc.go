// Package describe renders objects the way `kubectl describe` (v1.32) does:
// a `Name:` / `Namespace:` / `Labels:` / `Annotations:` header, the fields a
// user asks about for each kind, nested sections indented by two spaces,
// `<none>` where a list is empty, and the object's Events as a table at the
// end.
//
// It is pure rendering: the caller (the `ctl describe` verb) fetches the
// object, its Events and the related objects some kinds need (a
// Deployment's ReplicaSets, the pods behind a ReplicaSet, a Service's
// EndpointSlices, a Node's pods and Lease) and passes them in an Input, so every
// describer can be tested with golden files and no server.
//
// The layout is kubectl's, reproduced by the same means: each line is
// written at a nesting level (LEVEL_0, LEVEL_1, … in upstream's
// k8s.io/kubectl/pkg/describe) into a text/tabwriter with kubectl's settings,
// so "Label:\tvalue" pairs that follow each other line up in a column.
// Kinds without a describer of their own fall back to a generic one that
// prints every field of the object, as kubectl's genericDescriber does.
package describe
