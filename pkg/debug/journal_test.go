package debug

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestJournalRingKeepsTheNewestRecords(t *testing.T) {
	j := NewJournal("scheduler", 3, nil)
	for _, key := range []string{"a", "b", "c", "d", "e"} {
		j.Trace("watch", key, "resource=pods rv=7 type=ADDED")
	}
	got, last := j.After(0)
	if last != 5 || len(got) != 3 || got[0].Key != "c" || got[0].Seq != 3 || got[2].Key != "e" {
		t.Fatalf("After(0) = %+v, last %d; want c, d, e (seq 3–5), last 5", got, last)
	}
	if got[0].Resource != "pods" || got[0].ResourceVersion != "7" || got[0].Detail != "type=ADDED" || got[0].Component != "scheduler" {
		t.Fatalf("trace detail not split into fields: %+v", got[0])
	}
	if more, _ := j.After(4); len(more) != 1 || more[0].Key != "e" {
		t.Fatalf("After(4) = %+v, want only e", more)
	}
}

func TestTraceLiftsFieldsOutOfTheDetail(t *testing.T) {
	tests := []struct {
		resource, detail                string
		wantResource, wantRV, wantActor string
		wantDetail                      string
	}{
		{"", "resource=pods rv=7 type=ADDED", "pods", "7", "", "type=ADDED"},
		{"pods", "rv=8 handler=rs.(*Controller).addPod method=OnAdd", "pods", "8", "rs.(*Controller).addPod", "handler=rs.(*Controller).addPod method=OnAdd"},
		{"", "queue=deployment event=get", "", "", "deployment", "queue=deployment event=get"},
		{"", "type=Updated rv=9 resource=pods", "pods", "9", "", "type=Updated"},
		{"pods", "", "pods", "", "", ""},
	}
	for _, tt := range tests {
		j := NewJournal("c", 10, nil)
		j.TraceResource(tt.resource, "delta", "default/web", tt.detail)
		got, _ := j.After(0)
		r := got[0]
		if r.Resource != tt.wantResource || r.ResourceVersion != tt.wantRV || r.Actor != tt.wantActor || r.Detail != tt.wantDetail {
			t.Errorf("TraceResource(%q, %q) = resource %q rv %q actor %q detail %q; want %q %q %q %q", tt.resource, tt.detail,
				r.Resource, r.ResourceVersion, r.Actor, r.Detail, tt.wantResource, tt.wantRV, tt.wantActor, tt.wantDetail)
		}
	}
}

func TestNilJournalRecordsNothing(t *testing.T) {
	var j *Journal
	j.Trace("watch", "a", "")
	j.Decision(Decision{Actor: "x"})
	if got, _ := j.After(0); got != nil || j.Enabled() || j.Tracer() != nil {
		t.Fatal("a nil journal must record nothing")
	}
}

func TestFollowDeliversRecordsAddedLater(t *testing.T) {
	j := NewJournal("controller-manager", 10, nil)
	j.Trace("watch", "old", "")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got := make(chan Record, 10)
	go func() {
		_ = j.Follow(ctx, 1, func(batch []Record) error {
			for _, r := range batch {
				got <- r
			}
			return nil
		})
	}()
	time.Sleep(10 * time.Millisecond)
	j.Decision(Decision{Actor: "deployment", Key: "default/web", Message: "scale up"})
	select {
	case r := <-got:
		if r.Type != TypeDecision || r.Key != "default/web" || r.Seq != 2 {
			t.Fatalf("followed %+v, want the decision (seq 2)", r)
		}
	case <-ctx.Done():
		t.Fatal("Follow did not deliver a record added after it started")
	}
}

func TestHandlerAdmitsOnlyAdmins(t *testing.T) {
	j := NewJournal("scheduler", 10, nil)
	authn := func(r *http.Request) (string, []string, bool) {
		switch r.Header.Get("Authorization") {
		case "Bearer admin":
			return "kubernetes-admin", []string{AdminGroup}, true
		case "Bearer node":
			return "system:node:node1", []string{"system:nodes"}, true
		}
		return "", nil, false
	}
	srv := httptest.NewServer(j.Handler(authn, false))
	defer srv.Close()
	ep := Endpoint{Component: "scheduler", URL: srv.URL}
	for token, want := range map[string]string{"": "(401)", "node": "(403)"} {
		c := &Client{Token: token}
		var info Info
		if err := c.Get(context.Background(), ep, PathInfo, &info); err == nil || !contains(err.Error(), want) {
			t.Errorf("token %q: err %v, want one ending %s", token, err, want)
		}
	}
	j.Trace("watch", "default/web", "resource=pods")
	c := &Client{Token: "admin"}
	var keys []string
	if err := c.Records(context.Background(), ep, RecordQuery{Resource: "pods"}, func(r Record) error {
		keys = append(keys, r.Key)
		return nil
	}); err != nil || len(keys) != 1 || keys[0] != "default/web" {
		t.Fatalf("records = %v, %v; want [default/web]", keys, err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func TestRoutesAddedAfterTheServerStartsAreServed(t *testing.T) {
	j := NewJournal("kubelet-node1", 10, nil)
	srv := httptest.NewServer(j.Handler(nil, false))
	defer srv.Close()
	j.Handle("POST /debug/kplane/pause", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	resp, err := http.Post(srv.URL+"/debug/kplane/pause", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST pause = %d, want 204 from the route added after the server started", resp.StatusCode)
	}
}

// TestJournalRingGrowsOnlyWithItsRecords: a journal allocates room for the
// records it holds, not for its whole ring up front, and still wraps at
// its size once it is full.
func TestJournalRingGrowsOnlyWithItsRecords(t *testing.T) {
	j := NewJournal("kubelet-node1", 1000, nil)
	for i := 0; i < 10; i++ {
		j.Trace("watch", "k", "resource=pods")
	}
	if c := cap(j.ring); c >= 1000 {
		t.Fatalf("after 10 records the ring has room for %d; want it to grow with its records", c)
	}
	for i := 0; i < 2500; i++ {
		j.Trace("watch", "k", "resource=pods")
	}
	if c := cap(j.ring); c != 1000 {
		t.Fatalf("a full ring has room for %d records, want exactly its size 1000", c)
	}
	got, last := j.After(0)
	if last != 2510 || len(got) != 1000 || got[0].Seq != 1511 || got[999].Seq != 2510 {
		t.Fatalf("After(0) = %d records from seq %d, last %d; want 1000 records 1511–2510", len(got), got[0].Seq, last)
	}
	if info := j.info(); info.RingSize != 1000 {
		t.Fatalf("info reports ring size %d, want 1000 whatever the ring holds", info.RingSize)
	}
}
