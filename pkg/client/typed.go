package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"reflect"

	"kplane/pkg/api"
)

// TypedClient reads and writes one kind as Go type T (e.g. *api.Pod), in one
// namespace or, for lists and watches, in all of them. It is a small value:
// make one per call site if that reads better.
type TypedClient[T api.Object] struct {
	client    *Client
	resource  Resource
	namespace string
}

// For returns a typed client for res whose objects decode into T, with no
// namespace set. T must be the pointer type of res's kind (*api.Pod for
// PodsResource); nothing checks that, as in client-go's generated clients.
func For[T api.Object](c *Client, res Resource) *TypedClient[T] {
	return &TypedClient[T]{client: c, resource: res}
}

// Namespace returns a copy of the client scoped to ns. "" means all
// namespaces for List and Watch; Create, Update, UpdateStatus then use the
// object's own metadata.namespace, and Get, Patch, Delete need a namespace.
// Cluster-scoped resources ignore it.
func (t *TypedClient[T]) Namespace(ns string) *TypedClient[T] {
	copied := *t
	copied.namespace = ns
	return &copied
}

// Resource returns the resource this client serves.
func (t *TypedClient[T]) Resource() Resource { return t.resource }

// Get reads one object by name.
func (t *TypedClient[T]) Get(ctx context.Context, name string, opts GetOptions) (T, error) {
	var out T
	path, err := objectPath(t.resource, t.namespace, name)
	if err != nil {
		return out, err
	}
	err = t.client.into(ctx, &request{method: http.MethodGet, path: path, query: opts.query()}, &out)
	return out, err
}

// List reads the objects matching opts. The list's ResourceVersion is where
// a watch that should miss nothing starts.
func (t *TypedClient[T]) List(ctx context.Context, opts ListOptions) (*api.List[T], error) {
	path, err := collectionPath(t.resource, t.namespace, false)
	if err != nil {
		return nil, err
	}
	out := &api.List[T]{}
	if err := t.client.into(ctx, &request{method: http.MethodGet, path: path, query: opts.query()}, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Watch streams changes to the objects matching opts, starting after
// opts.ResourceVersion ("" or "0": first an ADDED event per existing object).
func (t *TypedClient[T]) Watch(ctx context.Context, opts ListOptions) (Watcher, error) {
	path, err := collectionPath(t.resource, t.namespace, false)
	if err != nil {
		return nil, err
	}
	w, err := watch(ctx, t.client, path, opts, typedEvents[T]())
	if err != nil {
		// Not w: a nil *streamWatcher in an interface is not a nil interface.
		return nil, err
	}
	return w, nil
}

// Create stores a new object and returns it as stored (name generated,
// uid, resourceVersion and defaults filled in).
func (t *TypedClient[T]) Create(ctx context.Context, obj T, opts CreateOptions) (T, error) {
	var out T
	if isNilObject(obj) {
		return out, fmt.Errorf("create %s: object is nil", t.resource)
	}
	path, err := collectionPath(t.resource, t.namespaceOf(obj), true)
	if err != nil {
		return out, fmt.Errorf("create: %w", err)
	}
	err = t.write(ctx, http.MethodPost, path, opts, obj, &out)
	return out, err
}

// Update replaces an object (spec and metadata; status is ignored for kinds
// with a status subresource). obj's resourceVersion makes it a
// compare-and-swap: a stale one fails with a Conflict.
func (t *TypedClient[T]) Update(ctx context.Context, obj T, opts UpdateOptions) (T, error) {
	return t.replace(ctx, obj, opts, "")
}

// UpdateStatus replaces an object's status through the status subresource,
// leaving spec alone; controllers report what they observed with it.
func (t *TypedClient[T]) UpdateStatus(ctx context.Context, obj T, opts UpdateOptions) (T, error) {
	return t.replace(ctx, obj, opts, "status")
}

func (t *TypedClient[T]) replace(ctx context.Context, obj T, opts UpdateOptions, subresource string) (T, error) {
	var out T
	if isNilObject(obj) {
		return out, fmt.Errorf("update %s: object is nil", t.resource)
	}
	path, err := objectPath(t.resource, t.namespaceOf(obj), obj.GetObjectMeta().Name, subresource)
	if err != nil {
		return out, fmt.Errorf("update: %w", err)
	}
	err = t.write(ctx, http.MethodPut, path, opts, obj, &out)
	return out, err
}

// Patch changes an object (or its subresource, e.g. "status" or "scale"…
// though a scale patch answers a Scale, so use GetScale/UpdateScale for
// that) by a patch of type pt, and returns the result.
func (t *TypedClient[T]) Patch(ctx context.Context, name string, pt PatchType, data []byte, opts PatchOptions, subresource ...string) (T, error) {
	var out T
	path, err := objectPath(t.resource, t.namespace, name, subresource...)
	if err != nil {
		return out, fmt.Errorf("patch: %w", err)
	}
	r := &request{method: http.MethodPatch, path: path, query: opts.query(), body: data, contentType: string(pt)}
	err = t.client.into(ctx, r, &out)
	return out, err
}

// Delete deletes one object. With finalizers (or a Foreground policy) the
// object is only marked for deletion and disappears later.
func (t *TypedClient[T]) Delete(ctx context.Context, name string, opts DeleteOptions) error {
	path, err := objectPath(t.resource, t.namespace, name)
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	return t.client.deleteAt(ctx, path, nil, opts)
}

// DeleteCollection deletes every object matching list in the client's
// namespace (or, for a cluster-scoped kind, everywhere).
func (t *TypedClient[T]) DeleteCollection(ctx context.Context, del DeleteOptions, list ListOptions) error {
	path, err := collectionPath(t.resource, t.namespace, false)
	if err != nil {
		return fmt.Errorf("deletecollection: %w", err)
	}
	return t.client.deleteAt(ctx, path, list.query(), del)
}

// namespaceOf is the namespace a write goes to: the client's, or else the
// object's own.
func (t *TypedClient[T]) namespaceOf(obj T) string {
	if t.namespace != "" {
		return t.namespace
	}
	return obj.GetObjectMeta().Namespace
}

// write sends obj as the JSON body of a create or update.
func (t *TypedClient[T]) write(ctx context.Context, method, path string, opts CreateOptions, obj T, out *T) error {
	r, err := newRequest(method, path, opts.query(), obj)
	if err != nil {
		return err
	}
	return t.client.into(ctx, r, out)
}

// deleteAt sends a DELETE with opts as the body (kind DeleteOptions, as
// kubectl sends it).
func (c *Client) deleteAt(ctx context.Context, path string, query url.Values, opts DeleteOptions) error {
	opts.TypeMeta = api.TypeMeta{Kind: "DeleteOptions", APIVersion: "v1"}
	r, err := newRequest(http.MethodDelete, path, query, opts)
	if err != nil {
		return err
	}
	_, err = c.do(ctx, r)
	return err
}

// isNilObject catches a nil *api.Pod passed as T before it panics deep inside.
func isNilObject(obj any) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
