package client

import (
	"context"
	"fmt"
	"net/http"

	"kplane/pkg/api"
)

// DynamicClient reads and writes objects of a kind chosen at run time (ctl
// apply reading a YAML file, the garbage collector following an
// ownerReference) as JSON maps, the way client-go's dynamic client works
// with unstructured objects. Numbers decode as int64 when they are whole
// and float64 otherwise, so a map survives a round trip unchanged.
type DynamicClient struct {
	client    *Client
	resource  Resource
	namespace string
}

// DynamicEvent is one watch event of a DynamicClient. Object is the object
// as a JSON map (for BOOKMARK, only apiVersion, kind and
// metadata.resourceVersion); for ERROR it is nil and Err is the
// *errors.StatusError the server sent.
type DynamicEvent struct {
	Type   EventType
	Object map[string]any
	Err    error
}

// DynamicWatcher is a running watch of a DynamicClient; it ends as a
// Watcher does.
type DynamicWatcher interface {
	// ResultChan delivers the events in the order the server sent them.
	ResultChan() <-chan DynamicEvent
	// Stop ends the watch and waits until its goroutine has exited.
	Stop()
}

// Dynamic returns a client for res whose objects are JSON maps, with no
// namespace set.
func (c *Client) Dynamic(res Resource) *DynamicClient {
	return &DynamicClient{client: c, resource: res}
}

// Namespace returns a copy of the client scoped to ns, with the same
// meaning as TypedClient.Namespace.
func (d *DynamicClient) Namespace(ns string) *DynamicClient {
	copied := *d
	copied.namespace = ns
	return &copied
}

// Resource returns the resource this client serves.
func (d *DynamicClient) Resource() Resource { return d.resource }

// Get reads one object by name.
func (d *DynamicClient) Get(ctx context.Context, name string, opts GetOptions) (map[string]any, error) {
	path, err := objectPath(d.resource, d.namespace, name)
	if err != nil {
		return nil, err
	}
	return d.object(ctx, &request{method: http.MethodGet, path: path, query: opts.query()})
}

// List reads the objects matching opts: the items, and in ListMeta the
// list's resourceVersion and continue token.
func (d *DynamicClient) List(ctx context.Context, opts ListOptions) (*api.List[map[string]any], error) {
	path, err := collectionPath(d.resource, d.namespace, false)
	if err != nil {
		return nil, err
	}
	resp, err := d.client.do(ctx, &request{method: http.MethodGet, path: path, query: opts.query()})
	if err != nil {
		return nil, err
	}
	out := &api.List[map[string]any]{}
	if err := api.DecodeUnstructured(resp.body, out); err != nil {
		return nil, fmt.Errorf("list %s: decode response: %w", d.resource, err)
	}
	for _, item := range out.Items {
		api.NormalizeNumbers(item)
	}
	return out, nil
}

// Watch streams changes to the objects matching opts.
func (d *DynamicClient) Watch(ctx context.Context, opts ListOptions) (DynamicWatcher, error) {
	path, err := collectionPath(d.resource, d.namespace, false)
	if err != nil {
		return nil, err
	}
	w, err := watch(ctx, d.client, path, opts, dynamicEvents)
	if err != nil {
		// Not w: a nil *streamWatcher in an interface is not a nil interface.
		return nil, err
	}
	return w, nil
}

// Create stores a new object; its namespace is the client's, or else the
// map's metadata.namespace.
func (d *DynamicClient) Create(ctx context.Context, obj map[string]any, opts CreateOptions) (map[string]any, error) {
	path, err := collectionPath(d.resource, d.namespaceOf(obj), true)
	if err != nil {
		return nil, fmt.Errorf("create: %w", err)
	}
	return d.write(ctx, http.MethodPost, path, opts, obj)
}

// Update replaces an object, named by its metadata.name.
func (d *DynamicClient) Update(ctx context.Context, obj map[string]any, opts UpdateOptions) (map[string]any, error) {
	return d.replace(ctx, obj, opts, "")
}

// UpdateStatus replaces an object's status through the status subresource.
func (d *DynamicClient) UpdateStatus(ctx context.Context, obj map[string]any, opts UpdateOptions) (map[string]any, error) {
	return d.replace(ctx, obj, opts, "status")
}

func (d *DynamicClient) replace(ctx context.Context, obj map[string]any, opts UpdateOptions, subresource string) (map[string]any, error) {
	path, err := objectPath(d.resource, d.namespaceOf(obj), metadataString(obj, "name"), subresource)
	if err != nil {
		return nil, fmt.Errorf("update: %w", err)
	}
	return d.write(ctx, http.MethodPut, path, opts, obj)
}

// Patch changes an object (or a subresource of it) by a patch of type pt.
func (d *DynamicClient) Patch(ctx context.Context, name string, pt PatchType, data []byte, opts PatchOptions, subresource ...string) (map[string]any, error) {
	path, err := objectPath(d.resource, d.namespace, name, subresource...)
	if err != nil {
		return nil, fmt.Errorf("patch: %w", err)
	}
	return d.object(ctx, &request{method: http.MethodPatch, path: path, query: opts.query(), body: data, contentType: string(pt)})
}

// Delete deletes one object.
func (d *DynamicClient) Delete(ctx context.Context, name string, opts DeleteOptions) error {
	path, err := objectPath(d.resource, d.namespace, name)
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	return d.client.deleteAt(ctx, path, nil, opts)
}

// DeleteCollection deletes every object matching list.
func (d *DynamicClient) DeleteCollection(ctx context.Context, del DeleteOptions, list ListOptions) error {
	path, err := collectionPath(d.resource, d.namespace, false)
	if err != nil {
		return fmt.Errorf("deletecollection: %w", err)
	}
	return d.client.deleteAt(ctx, path, list.query(), del)
}

func (d *DynamicClient) namespaceOf(obj map[string]any) string {
	if d.namespace != "" {
		return d.namespace
	}
	return metadataString(obj, "namespace")
}

func (d *DynamicClient) write(ctx context.Context, method, path string, opts CreateOptions, obj map[string]any) (map[string]any, error) {
	if obj == nil {
		return nil, fmt.Errorf("%s %s: object is nil", method, path)
	}
	r, err := newRequest(method, path, opts.query(), obj)
	if err != nil {
		return nil, err
	}
	return d.object(ctx, r)
}

// object sends r and decodes the answer as one JSON object.
func (d *DynamicClient) object(ctx context.Context, r *request) (map[string]any, error) {
	resp, err := d.client.do(ctx, r)
	if err != nil {
		return nil, err
	}
	obj, err := api.DecodeObjectMap(resp.body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: decode response: %w", r.method, r.path, err)
	}
	return obj, nil
}

// metadataString reads metadata.<field> of a map, or "".
func metadataString(obj map[string]any, field string) string {
	meta, _ := obj["metadata"].(map[string]any)
	s, _ := meta[field].(string)
	return s
}

// dynamicEvents decodes wire events into DynamicEvents.
var dynamicEvents = eventDecoder[DynamicEvent]{
	decode: func(wire wireEvent) (DynamicEvent, error) {
		if err := checkEventType(wire.Type); err != nil {
			return DynamicEvent{}, err
		}
		if wire.Type == Error {
			statusErr, err := decodeWatchStatus(wire.Object)
			if err != nil {
				return DynamicEvent{}, err
			}
			return DynamicEvent{Type: Error, Err: statusErr}, nil
		}
		if isNull(wire.Object) {
			return DynamicEvent{}, fmt.Errorf("%s watch event without an object", wire.Type)
		}
		obj, err := api.DecodeObjectMap(wire.Object)
		if err != nil {
			return DynamicEvent{}, fmt.Errorf("unable to decode the object of a %s watch event: %w", wire.Type, err)
		}
		return DynamicEvent{Type: wire.Type, Object: obj}, nil
	},
	failure: func(err error) DynamicEvent { return DynamicEvent{Type: Error, Err: err} },
}
