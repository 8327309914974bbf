package controllertest

import (
	"slices"
	"sync"
	"testing"

	"kplane/pkg/events"
)

// Recorder is the event recorder of a controller's unit test: an
// events.FakeRecorder that also remembers how many of its Events
// ExpectEvents has compared, so that each call checks only the Events of
// the sync just run — what fakeapi's ExpectActions does for the API
// writes.
type Recorder struct {
	events.FakeRecorder

	mu sync.Mutex
	// checked is how many of the recorded Events ExpectEvents has
	// compared.
	checked int
}

// ExpectEvents fails the test unless the Events recorded since the
// previous ExpectEvents (or since the recorder was made) are exactly want,
// in order. Each is "<type> <reason> <message>", as FakeRecorder keeps
// them: "Normal SuccessfulCreate Created pod: web-00001". Calling it with
// no want asserts that no Event was recorded.
func (r *Recorder) ExpectEvents(t testing.TB, want ...string) {
	t.Helper()
	all := r.Events()
	r.mu.Lock()
	got := all[r.checked:]
	r.checked = len(all)
	r.mu.Unlock()
	if !slices.Equal(got, want) {
		t.Errorf("Events differ from the expected ones\n got: %q\nwant: %q", got, want)
	}
}
