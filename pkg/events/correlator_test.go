package events

import (
	"fmt"
	"testing"
	"time"

	"kplane/pkg/api"
)

var t0 = time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)

func podEvent(pod, reason, message string) *api.Event {
	return &api.Event{InvolvedObject: api.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: "default", Name: pod, UID: "uid-" + pod},
		Type: api.EventTypeNormal, Reason: reason, Message: message, Source: api.EventSource{Component: "kubelet", Host: "node1"}}
}

func TestCorrelatorCountsIdenticalRepeats(t *testing.T) {
	c := newCorrelator(CorrelatorOptions{})
	first, repeat, ok := c.correlate(podEvent("p", "BackOff", "Back-off restarting failed container"), t0)
	if !ok || repeat || first.Count != 1 {
		t.Fatalf("first: %+v repeat %v ok %v", first, repeat, ok)
	}
	second, repeat, ok := c.correlate(podEvent("p", "BackOff", "Back-off restarting failed container"), t0.Add(time.Minute))
	if !ok || !repeat || second.Count != 2 || second.Name != first.Name || !second.FirstTimestamp.Equal(t0) || !second.LastTimestamp.Equal(t0.Add(time.Minute)) {
		t.Fatalf("repeat: %+v repeat %v ok %v; want count 2 on %s", second, repeat, ok, first.Name)
	}
}

func TestCorrelatorCombinesSimilarEventsFromTheTenth(t *testing.T) {
	c := newCorrelator(CorrelatorOptions{})
	names := map[string]bool{}
	var last *api.Event
	for i := range 15 {
		ev, _, ok := c.correlate(podEvent("p", "Pulled", fmt.Sprintf("Successfully pulled image img%d", i)), t0)
		if !ok {
			t.Fatalf("event %d dropped", i)
		}
		names[ev.Name] = true
		last = ev
	}
	// Nine stand alone, the tenth to fifteenth count on one combined event.
	if len(names) != 10 || last.Count != 6 || last.Message != "(combined from similar events): Successfully pulled image img14" {
		t.Fatalf("%d distinct events, last %q count %d; want 10 events, the combined one at count 6", len(names), last.Message, last.Count)
	}
	// Ten minutes of quiet and the class starts over.
	ev, repeat, _ := c.correlate(podEvent("p", "Pulled", "Successfully pulled image fresh"), t0.Add(11*time.Minute))
	if repeat || ev.Message != "Successfully pulled image fresh" {
		t.Fatalf("after the interval: %q repeat %v", ev.Message, repeat)
	}
}

func TestSpamFilterAllows25PerObjectThenOneEveryFiveMinutes(t *testing.T) {
	c := newCorrelator(CorrelatorOptions{})
	kept := 0
	for i := range 40 {
		if _, _, ok := c.correlate(podEvent("p", fmt.Sprintf("Reason%d", i), "m"), t0); ok {
			kept++
		}
	}
	if kept != 25 {
		t.Fatalf("kept %d of 40 events about one object, want 25", kept)
	}
	if _, _, ok := c.correlate(podEvent("other", "Reason", "m"), t0); !ok {
		t.Fatal("another object's event was dropped: budgets are per object")
	}
	if _, _, ok := c.correlate(podEvent("p", "Late", "m"), t0.Add(4*time.Minute)); ok {
		t.Fatal("an event 4 minutes later passed; the bucket refills one per 5 minutes")
	}
	if _, _, ok := c.correlate(podEvent("p", "Later", "m"), t0.Add(5*time.Minute)); !ok {
		t.Fatal("an event 5 minutes later was dropped")
	}
}

func TestSeriesCacheFoldsIsomorphicEvents(t *testing.T) {
	s := &seriesCache{events: map[seriesKey]*api.Event{}}
	ev := func(note string) *api.Event {
		e := podEvent("p", "FailedScheduling", note)
		e.Action, e.ReportingController, e.EventTime = "Scheduling", "default-scheduler", api.MicroTime{Time: t0}
		return e
	}
	if out, patch := s.observe(ev("0/3 nodes are available"), t0); out == nil || patch || out.Series != nil {
		t.Fatalf("first: %+v patch %v; want a create without series", out, patch)
	}
	// The note is not part of the identity, as upstream.
	out, patch := s.observe(ev("0/4 nodes are available"), t0.Add(time.Second))
	if out == nil || !patch || out.Series.Count != 2 {
		t.Fatalf("first repeat: %+v patch %v; want series count 2 written at once", out, patch)
	}
	if out, _ := s.observe(ev("x"), t0.Add(2*time.Second)); out != nil {
		t.Fatalf("third: %+v; later repeats wait for the heartbeat", out)
	}
	open := s.open()
	if len(open) != 1 || open[0].Series.Count != 3 || !open[0].Series.LastObservedTime.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("heartbeat writes %+v", open)
	}
	if final := s.finish(t0.Add(2*time.Second+DefaultSeriesFinish+time.Second), DefaultSeriesFinish); len(final) != 1 || len(s.events) != 0 {
		t.Fatalf("finish wrote %d, kept %d; want the quiet series written and forgotten", len(final), len(s.events))
	}
}
