package fakeapi

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

// NewForExample starts a Server for a package's runnable Example functions
// (example_test.go), which have no *testing.T to report to: where a test
// would fail, it panics with the message instead. stop shuts the server
// down; call it when the example is done.
func NewForExample(opts ...Option) (server *Server, stop func()) {
	t := &exampleTB{}
	return New(t, opts...), t.cleanup
}

// exampleTB is the testing.TB of NewForExample. It implements what the
// Server calls; the embedded nil TB makes any other method panic, which
// is what a failing example should do anyway.
type exampleTB struct {
	testing.TB

	mu       sync.Mutex
	cleanups []func()
}

func (e *exampleTB) Helper()      {}
func (e *exampleTB) Name() string { return "example" }

func (e *exampleTB) Cleanup(f func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cleanups = append(e.cleanups, f)
}

// cleanup runs the registered cleanups, the last registered first, as
// testing does.
func (e *exampleTB) cleanup() {
	e.mu.Lock()
	cleanups := slices.Clone(e.cleanups)
	e.cleanups = nil
	e.mu.Unlock()
	for _, f := range slices.Backward(cleanups) {
		f()
	}
}

func (e *exampleTB) Error(args ...any)                 { panic(fmt.Sprint(args...)) }
func (e *exampleTB) Errorf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (e *exampleTB) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (e *exampleTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
