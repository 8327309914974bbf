package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"testing"
	"testing/iotest"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// FuzzWatchDecode feeds arbitrary bytes to the watch decoder as a response
// body and checks that it always ends (its channel closes at the end of the
// body) and that:
//
//   - every event it delivers is well formed: a known type; an object for
//     ADDED, MODIFIED, DELETED and BOOKMARK; a Status error and no object
//     for ERROR;
//   - an event the client made up because the stream could not be read
//     (a 500 "unable to decode …") is the last one;
//   - framing does not depend on how the body arrives: read one byte at a
//     time, it gives the same events;
//   - decoding is idempotent: the events, written back as a watch stream
//     the way the apiserver writes one, decode to the same events.
func FuzzWatchDecode(f *testing.F) {
	for _, seed := range []string{
		`{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"6"}}}` + "\n" +
			`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"9"}}}` + "\n",
		`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old","reason":"Expired","code":410}}`,
		`{"type":"MODIFIED","object":{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"100m"}}}]}}}{"type":"DELETED","object":{}}`,
		`{"type":"ADDED","object":null}`, `{"type":"WHAT","object":{}}`, `{"type":"ERROR","object":{}}`,
		`{"type":"ADDED","object":[]}`, `{"type":1}`, `[]`, `{`, "\n\n  ", `{"type":"ADDED","object":{"metadata":{"name":5}}}`,
		`{"type":"MODIFIED","object":{"metadata":{"creationTimestamp":"2024-01-01T00:00:00.5Z"},"spec":{"activeDeadlineSeconds":1e3}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		events := decodeWatchBody(bytes.NewReader(body))
		for i, ev := range events {
			if err := checkEvent(ev); err != nil {
				t.Fatalf("%q: event %d %+v: %v", body, i, ev, err)
			}
			if madeUp(ev) && i != len(events)-1 {
				t.Fatalf("%q: the decoder reported %v and went on", body, ev.Err)
			}
		}
		bytewise := decodeWatchBody(iotest.OneByteReader(bytes.NewReader(body)))
		if !slices.Equal(describeEvents(t, events), describeEvents(t, bytewise)) {
			t.Fatalf("%q: read whole %q, read byte by byte %q", body, describeEvents(t, events), describeEvents(t, bytewise))
		}
		again := decodeWatchBody(bytes.NewReader(encodeWatchEvents(t, events)))
		if !slices.Equal(describeEvents(t, events), describeEvents(t, again)) {
			t.Fatalf("%q: decoded %q, re-encoded and decoded %q", body, describeEvents(t, events), describeEvents(t, again))
		}
	})
}

// decodeWatchBody runs the typed Pod decoder over body and returns every
// event it delivers until its channel closes.
func decodeWatchBody(body io.Reader) []Event {
	_, cancel := context.WithCancel(context.Background())
	w := newStreamWatcher(&http.Response{Body: io.NopCloser(body)}, cancel, typedEvents[*api.Pod](), slog.New(slog.DiscardHandler))
	defer w.Stop()
	var events []Event
	for ev := range w.ResultChan() {
		events = append(events, ev)
	}
	return events
}

// checkEvent says what is malformed about ev, or nil.
func checkEvent(ev Event) error {
	if checkEventType(ev.Type) != nil {
		return errors.New("unknown type")
	}
	if ev.Type == Error {
		var status *apierrors.StatusError
		if ev.Object != nil || !errors.As(ev.Err, &status) {
			return errors.New("an ERROR without a Status error, or with an object")
		}
		return nil
	}
	if pod, ok := ev.Object.(*api.Pod); !ok || pod == nil || ev.Err != nil {
		return errors.New("an object event without a Pod, or with an error")
	}
	return nil
}

// madeUp reports an ERROR the client made because the stream was unreadable.
func madeUp(ev Event) bool {
	return ev.Type == Error && apierrors.ReasonOf(ev.Err) == apierrors.ReasonInternalError
}

// encodeWatchEvents writes events as the apiserver writes a watch: one
// {"type":…,"object":…} line each, ERRORs with their Status.
func encodeWatchEvents(t *testing.T, events []Event) []byte {
	var buf bytes.Buffer
	for _, ev := range events {
		var object any = ev.Object
		if ev.Type == Error {
			var se *apierrors.StatusError
			errors.As(ev.Err, &se)
			status := se.Status()
			object = &status
		}
		line, err := json.Marshal(map[string]any{"type": ev.Type, "object": object})
		if err != nil {
			t.Fatalf("encode %+v: %v", ev, err)
		}
		buf.Write(append(line, '\n'))
	}
	return buf.Bytes()
}

// describeEvents gives each event as comparable text: its type and its
// object's JSON, or its Status (only the reason of one the client made up).
func describeEvents(t *testing.T, events []Event) []string {
	var out []string
	for _, ev := range events {
		var b []byte
		var err error
		switch {
		case madeUp(ev):
			// Its message quotes the input, which may not be valid
			// UTF-8 and so cannot survive being written back as JSON.
			b = []byte("InternalError")
		case ev.Type == Error:
			var se *apierrors.StatusError
			errors.As(ev.Err, &se)
			b, err = json.Marshal(se.Status())
		default:
			b, err = json.Marshal(ev.Object)
		}
		if err != nil {
			t.Fatalf("describe %+v: %v", ev, err)
		}
		out = append(out, string(ev.Type)+" "+string(b))
	}
	return out
}
