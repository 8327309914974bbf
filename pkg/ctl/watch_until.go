package ctl

import (
	"context"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// watchUntil is client-go's watchtools.UntilWithSync for one named object,
// as kubectl's `rollout status` and `wait` use it: list the object by a
// metadata.name field selector, then watch it from the list's
// resourceVersion, calling check with every version seen until check says
// stop. A watch the server closes is resumed from the last version seen; a
// version too old to resume from (410 Gone) starts over with a list.
//
// gone is called when the object is absent from a list (deleted false) or
// deleted during the watch (deleted true); it decides, like check, whether
// to stop and with what error (`wait --for=delete` is done, `rollout
// status` failed).
func watchUntil(ctx context.Context, dyn *client.DynamicClient, name string, check func(obj map[string]any) (bool, error), gone func(deleted bool) (bool, error)) error {
	opts := client.ListOptions{FieldSelector: "metadata.name=" + name}
	resourceVersion := ""
	for {
		if resourceVersion == "" {
			list, err := dyn.List(ctx, opts)
			if err != nil {
				return err
			}
			if len(list.Items) == 0 {
				if stop, err := gone(false); stop {
					return err
				}
			}
			for _, item := range list.Items {
				if stop, err := check(item); stop {
					return err
				}
			}
			resourceVersion = list.ResourceVersion
		}
		watchOpts := opts
		watchOpts.ResourceVersion = resourceVersion
		w, err := dyn.Watch(ctx, watchOpts)
		if err != nil {
			return err
		}
		stop, err := consumeUntil(ctx, w, check, gone, &resourceVersion)
		w.Stop()
		if stop {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// consumeUntil handles the events of one watch of watchUntil. It returns
// stop when the caller is done (with err its outcome); otherwise the watch
// ended and resourceVersion says where to resume ("" to list again).
func consumeUntil(ctx context.Context, w client.DynamicWatcher, check func(map[string]any) (bool, error), gone func(deleted bool) (bool, error), resourceVersion *string) (bool, error) {
	for {
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case ev, ok := <-w.ResultChan():
			if !ok {
				return false, nil
			}
			switch ev.Type {
			case client.Added, client.Modified:
				*resourceVersion = metadataString(ev.Object, "resourceVersion")
				if stop, err := check(ev.Object); stop {
					return true, err
				}
			case client.Deleted:
				*resourceVersion = metadataString(ev.Object, "resourceVersion")
				if stop, err := gone(true); stop {
					return true, err
				}
			case client.Error:
				if apierrors.IsGone(ev.Err) {
					*resourceVersion = ""
					return false, nil
				}
				return true, ev.Err
			}
		}
	}
}
