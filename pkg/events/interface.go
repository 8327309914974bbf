package events

import (
	"fmt"
	"sync"

	"kplane/pkg/api"
)

// EventRecorder is what components need of a Recorder. Controllers depend
// on this interface so that their unit tests can pass a FakeRecorder.
type EventRecorder interface {
	// Event records an event about obj; eventType is api.EventTypeNormal
	// or api.EventTypeWarning, reason a short CamelCase word.
	Event(obj api.Object, eventType, reason, message string)
	// Eventf is Event with a formatted message.
	Eventf(obj api.Object, eventType, reason, format string, args ...any)
}

var _ EventRecorder = (*Recorder)(nil)

// FakeRecorder keeps events in memory as "<type> <reason> <message>"
// strings, for tests. Safe for concurrent use.
type FakeRecorder struct {
	mu     sync.Mutex
	events []string
}

// Event implements EventRecorder.
func (f *FakeRecorder) Event(_ api.Object, eventType, reason, message string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, eventType+" "+reason+" "+message)
}

// Eventf implements EventRecorder.
func (f *FakeRecorder) Eventf(obj api.Object, eventType, reason, format string, args ...any) {
	f.Event(obj, eventType, reason, fmt.Sprintf(format, args...))
}

// Events returns a copy of the events recorded so far, oldest first.
func (f *FakeRecorder) Events() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.events...)
}
