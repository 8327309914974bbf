// Package ui is `ctl ui`: a live web view of a kplane cluster, served on
// loopback behind the cluster's own credentials.
//
// The server is a small informer-driven program, the same shape as a
// controller: it builds kplane's SharedInformerFactory over the cluster's
// API (pkg/client, pkg/informer), registers event handlers that hand each
// object to a Hub, and the Hub pushes every change to the open pages over
// one server-sent-events stream. The page never polls the apiserver and
// never reloads; after a reconnect it gets a fresh snapshot.
//
//	apiserver ─LIST/WATCH─▶ informers (feed_objects.go)
//	                           │ OnAdd/OnUpdate/OnDelete
//	                           ▼
//	                         Hub (hub.go): current and previous version of each object
//	                           │ snapshot, then upsert/delete
//	                           ▼
//	          /api/stream (stream.go, sse.go) ─▶ the page (web/js/stream.js)
//
// One file per data feed on the server (feed_*.go: the object stream) or
// per panel on the machinery (panel_*.go: leases, queues, why, trace,
// etcd, clock, faults, labs — each reads the components' debug APIs, as
// the ctl verb of the same name does, through debug_api.go), and one file
// per view on the page (web/js/views/*.js).
//
// Authentication (auth.go): a request carries the cluster admin's bearer
// token, or a session cookie that a one-time login link printed by
// `ctl ui` handed out. Every asset is embedded (assets.go); the page loads
// nothing from the network but its own server.
package ui
