package informer

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// ListerWatcher is what a Reflector needs from the apiserver: a LIST of the
// whole resource (all pages merged) with the resourceVersion it was read
// at, and a WATCH starting after a resourceVersion. Tests substitute a fake.
type ListerWatcher interface {
	// List returns every object and the list's resourceVersion.
	List(ctx context.Context, opts client.ListOptions) (objects []api.Object, resourceVersion string, err error)
	// Watch streams the changes after opts.ResourceVersion.
	Watch(ctx context.Context, opts client.ListOptions) (client.Watcher, error)
}

// listPageSize is how many objects one LIST page asks for: upstream's
// informers (and kubectl get) page by 500, which keeps each response, and
// the apiserver's memory for it, small however large the resource grows.
const listPageSize = 500

// NewListWatch returns a ListerWatcher for one kind through kplane's REST
// client. tc decides the namespace ("" for all); tweak, if set, adjusts
// every list and watch, typically to add a label or field selector.
func NewListWatch[T api.Object](tc *client.TypedClient[T], tweak func(*client.ListOptions)) ListerWatcher {
	return &typedListWatch[T]{client: tc, tweak: tweak}
}

// typedListWatch adapts a TypedClient to ListerWatcher.
type typedListWatch[T api.Object] struct {
	client *client.TypedClient[T]
	tweak  func(*client.ListOptions)
}

// List pages through the resource and merges the pages. All pages share
// the first page's snapshot: the apiserver encodes the revision in the
// continue token. If that snapshot is compacted before the last page
// (410 Gone on a continue), the list starts over unpaginated, as upstream's
// pager does, since a consistent snapshot matters more than page size.
func (l *typedListWatch[T]) List(ctx context.Context, opts client.ListOptions) ([]api.Object, string, error) {
	if l.tweak != nil {
		l.tweak(&opts)
	}
	opts.Limit = listPageSize
	var objects []api.Object
	for page := 0; ; page++ {
		list, err := l.client.List(ctx, opts)
		if err != nil {
			if page > 0 && apierrors.IsGone(err) {
				return l.listWhole(ctx, opts)
			}
			return nil, "", err
		}
		if objects == nil {
			objects = make([]api.Object, 0, len(list.Items))
		}
		for _, item := range list.Items {
			objects = append(objects, item)
		}
		if list.Continue == "" {
			return objects, list.ResourceVersion, nil
		}
		// A continue token carries the snapshot; the apiserver refuses a
		// resourceVersion next to it.
		opts.Continue, opts.ResourceVersion, opts.ResourceVersionMatch = list.Continue, "", ""
	}
}

// listWhole lists in one request at the latest state.
func (l *typedListWatch[T]) listWhole(ctx context.Context, opts client.ListOptions) ([]api.Object, string, error) {
	opts.Limit, opts.Continue, opts.ResourceVersion, opts.ResourceVersionMatch = 0, "", "", ""
	list, err := l.client.List(ctx, opts)
	if err != nil {
		return nil, "", fmt.Errorf("list again without pages after the continue token expired: %w", err)
	}
	objects := make([]api.Object, 0, len(list.Items))
	for _, item := range list.Items {
		objects = append(objects, item)
	}
	return objects, list.ResourceVersion, nil
}

// Watch starts a watch with the tweaked options.
func (l *typedListWatch[T]) Watch(ctx context.Context, opts client.ListOptions) (client.Watcher, error) {
	if l.tweak != nil {
		l.tweak(&opts)
	}
	return l.client.Watch(ctx, opts)
}
