// Package fakeapi is the one fake apiserver of kplane's controller unit
// tests: a recording server behind a real *client.Client, so a controller
// under test talks to it exactly as it talks to the apiserver.
//
// A controller test reads as sample-controller's do:
//
//	server := fakeapi.New(t, fakeapi.WithClock(clk))
//	ctrl, _ := New(server.Client(), server.Informers(), recorder, opts)
//	server.Put(t, deployment)               // in the apiserver and the caches
//	ctrl.sync(ctx, "default/web")           // one sync, no goroutines
//	server.ExpectActions(t,                 // the exact writes, in order
//		"create replicasets web-5d4f8c7b9",
//		"update deployments/status web")
//
// The server keeps the objects it is given (Put stores them and puts them
// in the informers' caches; Add and Cache do one of the two, for a cache
// that lags the apiserver) and those written to it,
// and answers as the apiserver would for what a controller does: create
// (names from generateName, uid, resourceVersion, creationTimestamp),
// get, list (label selectors), update and update of status (optimistic
// concurrency on resourceVersion), JSON, merge and strategic merge
// patches, delete (preconditions; propagationPolicy Foreground and Orphan
// add the garbage collector's finalizers; an object with finalizers — for
// a namespace, spec.finalizers too — or a pod bound to a node, is only
// marked for deletion) and deletecollection. It
// serves no watches: a unit test fills the informers' caches itself.
//
// WithCustomResource and SetCustomResources make it serve made-up
// resources with no Go type (objects as maps, *api.CustomObject in
// Add) and list them in the discovery documents it serves at /api and
// /apis beside the built-in ones, as the apiserver does for a CRD's
// resource (custom.go).
//
// FailOn and React inject failures per verb, resource and name. Every
// request is recorded as an Action; ExpectActions compares the writes
// (create, update, patch, delete, deletecollection) since the previous
// call with the expected ones and fails the test on any extra, missing or
// reordered write; InAnyOrder groups the writes a controller makes
// concurrently. Sent and Result decode what a write sent and what it
// stored; Get and List read what the server holds.
package fakeapi
