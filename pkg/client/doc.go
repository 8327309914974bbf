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
//
// # Using kplane's client and informers in your own controller
//
// The client is a public API: a controller of your own uses it the way
// kplane's built-in controllers do. There are two paths.
//
// The typed path, for a kind you have a Go type for — typically the custom
// resource your CustomResourceDefinition declares. Any struct that embeds
// api.TypeMeta and api.ObjectMeta is an api.Object; name where it is served
// with a Resource and ask For for a client of that type. No code generation
// and no registration are needed:
//
//	type Website struct {
//		api.TypeMeta   `json:",inline"`
//		api.ObjectMeta `json:"metadata,omitempty"`
//		Spec           WebsiteSpec   `json:"spec"`
//		Status         WebsiteStatus `json:"status,omitempty"`
//	}
//	var websites = client.Resource{Group: "examples.kplane.dev", Version: "v1alpha1",
//		Resource: "websites", Kind: "Website", Namespaced: true}
//
//	ws := client.For[*Website](c, websites).Namespace("default")
//	site, err := ws.Get(ctx, "hello", client.GetOptions{})
//	site.Status.ReadyReplicas = 2
//	_, err = ws.UpdateStatus(ctx, site, client.UpdateOptions{}) // through /status
//
// The dynamic (unstructured) path, for kinds chosen at run time: c.Dynamic
// returns a DynamicClient whose objects are map[string]any, as client-go's
// dynamic client returns unstructured objects:
//
//	obj, err := c.Dynamic(websites).Namespace("default").Get(ctx, "hello", client.GetOptions{})
//	image := obj["spec"].(map[string]any)["image"].(string)
//
// ExampleFor and ExampleClient_Dynamic (example_test.go) run both against
// the fake apiserver of kplane's tests. To keep a cache of those objects
// and be told of changes, put an informer on top (pkg/informer, its
// informer.ForResource). examples/controller is a complete controller built
// this way, and docs/write-a-controller.md walks through it.
package client
