package controllertest

import (
	"strings"
	"testing"

	"kplane/pkg/debug"
)

// ExpectDecision checks the newest of records (a fakeapi server's
// Decisions(key)): its Message is message (unless message is "": the
// caller checks it), its Values hold every pair of values, and its Source
// names an upstream file. It returns that record.
func ExpectDecision(t testing.TB, records []debug.Record, message string, values map[string]string) debug.Record {
	t.Helper()
	if len(records) == 0 {
		t.Fatalf("no decision recorded; want %q", message)
	}
	got := records[len(records)-1]
	if message != "" && got.Message != message {
		t.Errorf("decision message\n  %q\nwant\n  %q", got.Message, message)
	}
	for name, want := range values {
		if v, ok := got.Values[name]; !ok || v != want {
			t.Errorf("decision value %s = %q (present %t); want %q (all values %v)", name, v, ok, want, got.Values)
		}
	}
	// Upstream's files are under pkg/, or under staging/ for the libraries
	// published apart (the cloud controllers live in k8s.io/cloud-provider).
	if !(strings.HasPrefix(got.Source, "pkg/") || strings.HasPrefix(got.Source, "staging/")) || !strings.HasSuffix(got.Source, ".go") {
		t.Errorf("decision source %q; want the upstream file it mirrors (pkg/….go or staging/….go)", got.Source)
	}
	if got.Type != debug.TypeDecision || got.Actor == "" || got.Resource == "" {
		t.Errorf("decision record %+v; want type decision with an actor and a resource", got)
	}
	return got
}

// ExpectNoDecision checks that records (a fakeapi server's Decisions(key))
// is empty: the sync had nothing to decide.
func ExpectNoDecision(t testing.TB, records []debug.Record) {
	t.Helper()
	for _, r := range records {
		t.Errorf("unexpected decision %q", r.Message)
	}
}
