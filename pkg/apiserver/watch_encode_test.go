package apiserver

import (
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"kplane/pkg/api"
)

// watchTestPods are pods whose JSON needs escaping of every kind
// json.Marshal does: quotes and newlines, HTML characters, U+2028, invalid
// UTF-8.
func watchTestPods() []*api.Pod {
	var pods []*api.Pod
	for _, text := range []string{"plain", "a\"quote\"\nnew line", "<script>&amp;</script>", "line\u2028separator", "bad\xffutf8"} {
		pod := &api.Pod{TypeMeta: api.TypeMeta{Kind: "Pod", APIVersion: "v1"}}
		pod.Name, pod.Namespace, pod.ResourceVersion = "web", "default", "42"
		pod.Labels = map[string]string{"app": "web"}
		pod.Annotations = map[string]string{"note": text}
		pods = append(pods, pod)
	}
	return pods
}

// TestWatchObjectEventIsWhatJSONMarshalWrites checks that the watch stream's
// object events are byte for byte the line json.Marshal writes for the
// event, for the stored form of objects that need escaping, so skipping the
// second encode changes nothing a client reads.
func TestWatchObjectEventIsWhatJSONMarshalWrites(t *testing.T) {
	pods := newRegistry(builtinResources()).lookup("", "v1", "pods")
	rec := httptest.NewRecorder()
	ws := &watchStream{s: &Server{log: slog.New(slog.DiscardHandler)}, w: rec, res: pods}
	var want []byte
	for i, pod := range watchTestPods() {
		so, err := newStoredObject(pods, pod, 42)
		if err != nil {
			t.Fatal(err)
		}
		eventType := []string{"ADDED", "MODIFIED", "DELETED"}[i%3]
		if !ws.send(eventType, so) {
			t.Fatal("send reported the client gone")
		}
		line, err := json.Marshal(watchEvent{Type: eventType, Object: json.RawMessage(so.raw)})
		if err != nil {
			t.Fatal(err)
		}
		want = append(append(want, line...), '\n')
	}
	if got := rec.Body.String(); got != string(want) {
		t.Errorf("stream wrote\n%s\nwant\n%s", got, want)
	}
}

// BenchmarkWatchStreamSend is the cost of writing one ~1 KiB object event
// (W5's ConfigMap size) to a watch stream, without the network.
func BenchmarkWatchStreamSend(b *testing.B) {
	pods := newRegistry(builtinResources()).lookup("", "v1", "pods")
	pod := watchTestPods()[0]
	pod.Annotations["payload"] = strings.Repeat("x", 900)
	so, err := newStoredObject(pods, pod, 42)
	if err != nil {
		b.Fatal(err)
	}
	ws := &watchStream{s: &Server{log: slog.New(slog.DiscardHandler)}, w: discardWriter{httptest.NewRecorder()}, res: pods}
	b.ReportAllocs()
	for b.Loop() {
		ws.send("ADDED", so)
	}
}

// discardWriter is a ResponseWriter that drops what it is given.
type discardWriter struct{ *httptest.ResponseRecorder }

func (discardWriter) Write(p []byte) (int, error) { return len(p), nil }
