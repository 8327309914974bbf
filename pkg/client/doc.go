// Package client is kplane's REST client for the Kubernetes API: what every
// component other than the apiserver uses to read and write objects.
//
// A Client holds one HTTP/2 connection pool to one apiserver, authenticated
// with a bearer token, and turns calls into the Kubernetes REST conventions:
//
//	c, _ := client.New(cfg)                          // cfg from ConfigFromKubeconfig
//	pod, err := c.Pods("default").Get(ctx, "web-0", client.GetOptions{})
//	if errors.IsNotFound(err) { … }                  // kplane/pkg/api/errors
//	w, _ := c.Pods("").Watch(ctx, client.ListOptions{ResourceVersion: list.ResourceVersion})
//	for ev := range w.ResultChan() { … }             // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
//
// Reading order: config.go (where the server is) → client.go (the
// connection pool) → resources.go, paths.go and options.go (what a URL and
// its query look like) → request.go (one request, with retries from
// retry.go and throttling from ratelimit.go) → errors.go and warnings.go
// (what comes back besides the object) → typed.go and kinds.go (a Go type
// per kind) → watch.go (the event stream) → dynamic.go and unstructured.go
// (kinds chosen at run time, as JSON maps) → subresources.go (scale,
// binding) → writehook.go (Config.OnWrite: each accepted write reported to
// the component's debug journal).
//
// What it mirrors from client-go, on purpose: typed and dynamic clients over
// one REST layer, a client-side token bucket (QPS/Burst), a user agent per
// component, Retry-After honoured, and a watch that is just a decoded stream
// of JSON lines — resuming and relisting are the reflector's job
// (pkg/informer), not the client's.
package client
