package events

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// retryDelay is the wait before a write that could not reach the apiserver
// is tried again, jittered by up to 25% so that many recorders do not retry
// in step (upstream: 10 s).
const retryDelay = 10 * time.Second

// runWriter writes queued events until the queue is shut down and drained.
func (r *Recorder) runWriter() {
	for {
		name, shutdown := r.queue.Get()
		if shutdown {
			return
		}
		r.writeNext(name)
		r.queue.Done(name)
	}
}

// writeNext writes the latest state of the event called name, then forgets
// it unless a newer state arrived meanwhile (which the queue has re-queued).
func (r *Recorder) writeNext(name string) {
	r.mu.Lock()
	p := r.pending[name]
	if p == nil {
		// A retry parked with AddAfter came due after a fresh Add of the
		// same name had already written the event and forgotten it.
		r.mu.Unlock()
		return
	}
	ev, repeat := p.event, p.repeat
	r.mu.Unlock()

	err := r.stopCtx.Err()
	if err == nil {
		ctx, cancel := context.WithTimeout(r.stopCtx, 10*time.Second)
		err = r.write(ctx, ev, repeat)
		cancel()
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil && retriable(err) && r.stopCtx.Err() == nil && !r.closed && p.tries+1 < maxTries {
		p.tries++
		r.queue.AddAfter(name, retryDelay+time.Duration(rand.Int64N(int64(retryDelay/4))))
		return
	}
	if err != nil && r.stopCtx.Err() == nil {
		r.log.Warn("could not record event", "object", ev.InvolvedObject.Namespace+"/"+ev.InvolvedObject.Name, "reason", ev.Reason, "err", err)
	}
	p.repeat = true // from now on the event exists: later states patch it
	if p.event == ev {
		delete(r.pending, name)
	}
}

// retriable reports whether a failed write may succeed later: the
// apiserver could not be reached or was overloaded. A rejected event
// (invalid, forbidden) is not tried again, as upstream.
func retriable(err error) bool {
	code := apierrors.CodeOf(err)
	return code == 0 || code == http.StatusTooManyRequests || code >= http.StatusInternalServerError
}

// write sends one event: a create the first time, else a patch of its
// count (core/v1) or series (events.k8s.io/v1); a patch of an event someone
// deleted creates it again.
func (r *Recorder) write(ctx context.Context, ev *api.Event, repeat bool) error {
	if repeat {
		err := r.patch(ctx, ev)
		if err == nil || !apierrors.IsNotFound(err) {
			return err
		}
	}
	created := *ev
	created.ResourceVersion = ""
	if r.eventsV1 {
		_, err := r.client.EventsV1Events(ev.Namespace).Create(ctx, api.EventsV1EventFromCore(&created), client.CreateOptions{})
		if apierrors.IsAlreadyExists(err) && ev.Series != nil {
			return r.patch(ctx, ev) // the first write of the event won the race with this one
		}
		return err
	}
	_, err := r.client.Events(ev.Namespace).Create(ctx, &created, client.CreateOptions{})
	return err
}

// patch sends a repeat: what changes on a repeat and nothing else.
func (r *Recorder) patch(ctx context.Context, ev *api.Event) error {
	if r.eventsV1 {
		body, err := json.Marshal(map[string]any{"series": ev.Series})
		if err != nil {
			return err
		}
		_, err = r.client.EventsV1Events(ev.Namespace).Patch(ctx, ev.Name, client.MergePatchType, body, client.PatchOptions{})
		return err
	}
	body, err := json.Marshal(map[string]any{"count": ev.Count, "lastTimestamp": ev.LastTimestamp, "message": ev.Message})
	if err != nil {
		return err
	}
	_, err = r.client.Events(ev.Namespace).Patch(ctx, ev.Name, client.MergePatchType, body, client.PatchOptions{})
	return err
}
