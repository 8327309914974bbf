package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"sync"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// watchStep is one event the fuzzed server sends: an object event, a
// bookmark, or the ERROR that ends a stream.
type watchStep struct {
	eventType string // ADDED, MODIFIED, DELETED, BOOKMARK or ERROR
	pod       *api.Pod
	revision  int64  // BOOKMARK
	message   string // ERROR
}

// FuzzWatchFraming sends fuzzed event sequences through the server's watch
// encoder (watchStream: send, sendBookmark, sendError) over HTTP to the
// client's decoder (client.Watch) and checks the round trip: the client
// delivers exactly the events sent, in order — each object as stored, each
// bookmark with its resourceVersion and annotations, the ERROR as the 410
// Status it was — and closes its channel when the server ends the stream.
func FuzzWatchFraming(f *testing.F) {
	f.Add([]byte{0, 1, 3, 2}, "web", "nginx", "true", "too old resource version: 5 (10)", int64(7))
	f.Add([]byte{0, 0, 0, 4}, "a\nb", "", "", "", int64(0))
	f.Add([]byte{3, 3}, "x\"}{", "\xff", "\u2028", "line\nbreak", int64(-1))
	f.Add([]byte{}, "", "", "", "", int64(1<<62))

	var mu sync.Mutex
	var steps []watchStep // what the server sends next; one fuzz worker runs inputs one at a time
	pods := newRegistry(builtinResources()).lookup("", "v1", "pods")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		script := steps
		mu.Unlock()
		ws := &watchStream{s: &Server{log: slog.New(slog.DiscardHandler)}, w: w, res: pods}
		ws.start()
		for _, step := range script {
			switch step.eventType {
			case "BOOKMARK":
				ws.sendBookmark(step.revision, step.pod.Annotations)
			case "ERROR":
				ws.sendError(apierrors.NewGone(step.message))
				return
			default:
				raw, err := json.Marshal(step.pod)
				if err != nil {
					panic(err)
				}
				ws.send(step.eventType, &storedObject{res: pods, obj: step.pod, raw: raw})
			}
		}
	}))
	f.Cleanup(srv.Close)
	c, err := client.New(&client.Config{Host: srv.URL, MaxRetries: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(c.Close)

	f.Fuzz(func(t *testing.T, script []byte, name, label, annotation, message string, revision int64) {
		var sent []watchStep
		for i, b := range script {
			pod := &api.Pod{TypeMeta: api.TypeMeta{Kind: "Pod", APIVersion: "v1"}}
			pod.Name, pod.Namespace = name+strconv.Itoa(i), "default"
			pod.ResourceVersion = strconv.FormatInt(revision+int64(i), 10)
			pod.Labels = map[string]string{"app": label}
			pod.Annotations = map[string]string{"fuzz/annotation": annotation}
			step := watchStep{eventType: []string{"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"}[b%5], pod: pod, revision: revision + int64(i), message: message}
			sent = append(sent, step)
			if step.eventType == "ERROR" {
				break
			}
		}
		mu.Lock()
		steps = sent
		mu.Unlock()

		w, err := c.Pods("default").Watch(context.Background(), client.ListOptions{})
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		defer w.Stop()
		var got []client.Event
		for ev := range w.ResultChan() {
			got = append(got, ev)
		}
		if len(got) != len(sent) {
			t.Fatalf("sent %d events, received %d: %+v", len(sent), len(got), got)
		}
		for i, step := range sent {
			if err := sameEvent(step, got[i]); err != nil {
				t.Fatalf("event %d: %v", i, err)
			}
		}
	})
}

// sameEvent says how ev, as the client received it, differs from the step
// the server sent; nil when it does not.
func sameEvent(step watchStep, ev client.Event) error {
	if string(ev.Type) != step.eventType {
		return fmt.Errorf("type %s, sent %s (%v)", ev.Type, step.eventType, ev.Err)
	}
	switch step.eventType {
	case "ERROR":
		want := jsonRoundTrip(step.message)
		if !apierrors.IsGone(ev.Err) || ev.Err.Error() != want || ev.Object != nil {
			return fmt.Errorf("ERROR %v (%v), sent 410 %q", ev.Err, ev.Object, want)
		}
	case "BOOKMARK":
		pod, ok := ev.Object.(*api.Pod)
		want := strconv.FormatInt(step.revision, 10)
		if !ok || pod.ResourceVersion != want || !reflect.DeepEqual(pod.Annotations, jsonRoundTrip(step.pod.Annotations)) {
			return fmt.Errorf("BOOKMARK %#v, sent resourceVersion %s with %q", ev.Object, want, step.pod.Annotations)
		}
	default:
		want := jsonRoundTrip(step.pod)
		if !reflect.DeepEqual(ev.Object, want) {
			return fmt.Errorf("%s %#v, sent %#v", step.eventType, ev.Object, want)
		}
	}
	return nil
}

// jsonRoundTrip is v as JSON gives it back: the server stores and sends
// JSON, so invalid UTF-8 arrives as U+FFFD.
func jsonRoundTrip[T any](v T) T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}
