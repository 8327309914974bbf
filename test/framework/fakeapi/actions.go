package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
)

// The verbs an Action has, named as upstream's authorization does.
const (
	VerbGet              = "get"
	VerbList             = "list"
	VerbWatch            = "watch"
	VerbCreate           = "create"
	VerbUpdate           = "update"
	VerbPatch            = "patch"
	VerbDelete           = "delete"
	VerbDeleteCollection = "deletecollection"
)

// isWrite reports whether verb changes what the server stores.
func isWrite(verb string) bool {
	switch verb {
	case VerbCreate, VerbUpdate, VerbPatch, VerbDelete, VerbDeleteCollection:
		return true
	}
	return false
}

// Action is one request the server received.
type Action struct {
	Verb string
	// Resource is the plural ("replicasets"); Subresource is "status",
	// "scale", "binding", "finalize"… or "".
	Resource, Subresource string
	Namespace             string
	// Name is the object's; for a create, the name the object was sent
	// with, or its generateName when it had none ("web-7d9c4-"), so that
	// tests can name it before the server has made one up.
	Name string
	// Query is the request's query (labelSelector, dryRun…).
	Query url.Values
	// PatchType is a patch's Content-Type.
	PatchType string
	// Body is what the client sent: the object (create, update), the
	// patch, or the DeleteOptions.
	Body []byte
	// Result is the object as stored after a successful create, update or
	// patch, or as marked for deletion by a delete that kept it.
	Result []byte
	// Err is the error the request was answered with, nil on success.
	Err error
}

// String is the action as ExpectActions spells it: the verb, the
// resource with its subresource, and the name if there is one, e.g.
// "create replicasets web-5d4f8c7b9", "update deployments/status web",
// "deletecollection pods".
func (a Action) String() string {
	var b strings.Builder
	b.WriteString(a.Verb)
	b.WriteByte(' ')
	b.WriteString(a.Resource)
	if a.Subresource != "" {
		b.WriteByte('/')
		b.WriteString(a.Subresource)
	}
	if a.Name != "" {
		b.WriteByte(' ')
		b.WriteString(a.Name)
	}
	return b.String()
}

// Actions returns every request received so far, reads included, oldest
// first.
func (s *Server) Actions() []Action {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.actions)
}

// Writes returns the writes received so far (create, update, patch,
// delete, deletecollection), failed ones included, oldest first.
func (s *Server) Writes() []Action {
	var out []Action
	for _, a := range s.Actions() {
		if isWrite(a.Verb) {
			out = append(out, a)
		}
	}
	return out
}

// ExpectActions fails the test unless the writes received since the
// previous ExpectActions (or since New) are exactly want, in order: an
// extra write, a missing one or two swapped ones all fail, and the
// message lists both sequences. Reads are not compared; Actions has them.
// Calling it with no want asserts that nothing was written. A want entry
// made by InAnyOrder matches concurrent writes in any order.
func (s *Server) ExpectActions(t testing.TB, want ...string) {
	t.Helper()
	s.mu.Lock()
	var got []string
	for _, a := range s.actions[s.checked:] {
		if isWrite(a.Verb) {
			got = append(got, a.String())
		}
	}
	s.checked = len(s.actions)
	s.mu.Unlock()
	if matches(got, want) {
		return
	}
	wanted := make([]string, len(want))
	for i, w := range want {
		wanted[i] = w
		if group, ok := anyOrderGroup(w); ok {
			wanted[i] = "in any order: " + strings.Join(group, ", ")
		}
	}
	t.Errorf("API writes differ from the expected ones\n got: %s\nwant: %s", list(got), list(wanted))
}

// anyOrderMark starts, and separates the actions of, a want entry made by
// InAnyOrder; no action's spelling contains it.
const anyOrderMark = "\x00"

// InAnyOrder stands in ExpectActions' want for writes that a controller
// makes concurrently, whose order is not deterministic (the creates of one
// slow-start batch, parallel deletes): the next len(actions) writes must
// be these, in any order. The writes before and after the group keep
// their order.
func InAnyOrder(actions ...string) string {
	return anyOrderMark + strings.Join(actions, anyOrderMark)
}

// anyOrderGroup returns the actions of a want entry made by InAnyOrder.
func anyOrderGroup(w string) ([]string, bool) {
	if !strings.HasPrefix(w, anyOrderMark) {
		return nil, false
	}
	if w == anyOrderMark {
		return nil, true
	}
	return strings.Split(w[len(anyOrderMark):], anyOrderMark), true
}

// matches reports whether the writes got are want, in order, but for the
// InAnyOrder groups in want, which match their writes in any order.
func matches(got, want []string) bool {
	i := 0
	for _, w := range want {
		group, ok := anyOrderGroup(w)
		if !ok {
			group = []string{w}
		}
		if i+len(group) > len(got) {
			return false
		}
		if !slices.Equal(slices.Sorted(slices.Values(got[i:i+len(group)])), slices.Sorted(slices.Values(group))) {
			return false
		}
		i += len(group)
	}
	return i == len(got)
}

// list formats actions one per line for a failure message.
func list(actions []string) string {
	if len(actions) == 0 {
		return "(none)"
	}
	return "\n\t" + strings.Join(actions, "\n\t")
}

// last returns the latest successful action spelled action.
func (s *Server) last(t testing.TB, action string) Action {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.actions) - 1; i >= 0; i-- {
		if a := s.actions[i]; a.String() == action && a.Err == nil {
			return a
		}
	}
	var seen []string
	for _, a := range s.actions {
		seen = append(seen, a.String())
	}
	t.Fatalf("no successful request %q was made; requests: %s", action, list(seen))
	return Action{}
}

// Sent decodes the body of the latest successful request spelled action
// (see Action.String) into a T: the object of a create or update
// (Sent[*api.Pod]), a patch (Sent[map[string]any]) or DeleteOptions.
func Sent[T any](t testing.TB, s *Server, action string) T {
	t.Helper()
	return decode[T](t, action, "body", s.last(t, action).Body)
}

// Result decodes the object the latest successful request spelled action
// left in the server: what a create, update or patch stored.
func Result[T api.Object](t testing.TB, s *Server, action string) T {
	t.Helper()
	a := s.last(t, action)
	if a.Result == nil {
		t.Fatalf("request %q stored no object", action)
	}
	return decode[T](t, action, "result", a.Result)
}

// decode unmarshals data into a new T (json allocates the object a
// pointer type such as *api.Pod points to), failing the test on error.
func decode[T any](t testing.TB, action, what string, data []byte) T {
	t.Helper()
	var out T
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("decode %s of %q: %v", what, action, err)
	}
	return out
}

// String formats the server's actions for a failure message.
func (s *Server) String() string {
	var seen []string
	for _, a := range s.Actions() {
		seen = append(seen, a.String())
	}
	return fmt.Sprint(seen)
}
