package describe

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"kplane/pkg/api"
)

// describeEvents prints the Events table at the end of a description:
// by lastTimestamp, oldest first, with repeats folded into one row as "64s (x2 over 2m18s)"
// (last seen, count, first seen), or "Events: <none>".
func describeEvents(events []api.Event, w prefixWriter, s Settings) {
	if len(events) == 0 {
		w.write(level0, "Events:\t<none>\n")
		return
	}
	sorted := append([]api.Event(nil), events...)
	sortByLastTimestamp(sorted)
	w.write(level0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n")
	w.write(level1, "----\t------\t----\t----\t-------\n")
	for _, e := range sorted {
		source := e.Source.Component
		if source == "" {
			source = e.ReportingController
		}
		message := strings.TrimSpace(e.Message)
		if e.InvolvedObject.FieldPath != "" {
			message = e.InvolvedObject.FieldPath + ": " + message
		}
		w.write(level1, "%v\t%v\t%s\t%v\t%v\n", e.Type, e.Reason, EventInterval(e, s.Now), source, message)
	}
}

// EventInterval is the Age cell of an event: when it was last seen and,
// for a repeated event, how often since when — "64s (x2 over 2m18s)". An
// event of the newer shape counts repeats in series; an older one in
// count with first and last timestamps.
func EventInterval(e api.Event, now time.Time) string {
	s := Settings{Now: now}
	firstSeen := s.since(e.EventTime.Time)
	if e.EventTime.IsZero() {
		firstSeen = s.since(e.FirstTimestamp.Time)
	}
	switch {
	case e.Series != nil:
		return fmt.Sprintf("%s (x%d over %s)", s.since(e.Series.LastObservedTime.Time), e.Series.Count, firstSeen)
	case e.Count > 1:
		return fmt.Sprintf("%s (x%d over %s)", s.since(e.LastTimestamp.Time), e.Count, firstSeen)
	}
	return firstSeen
}

// SortEvents orders events by when they last happened, oldest first, as
// kubectl events' SortableEvents does: the series' last observation, else
// lastTimestamp, else eventTime. Like kubectl it uses sort.Sort, so events
// of the same second keep the server's order in short lists.
func SortEvents(events []api.Event) {
	sort.Sort(byEventTime(events))
}

// sortByLastTimestamp orders events as kubectl describe does (its
// util/event SortableEvents): by lastTimestamp alone, so an
// events.k8s.io/v1 event, whose core/v1 view has no lastTimestamp, comes
// before the dated ones. kubectl events, and SortEvents, use the newer key.
func sortByLastTimestamp(events []api.Event) {
	sort.Sort(byLastTimestamp(events))
}

type byLastTimestamp []api.Event

func (l byLastTimestamp) Len() int      { return len(l) }
func (l byLastTimestamp) Swap(i, j int) { l[i], l[j] = l[j], l[i] }
func (l byLastTimestamp) Less(i, j int) bool {
	return l[i].LastTimestamp.Time.Before(l[j].LastTimestamp.Time)
}

type byEventTime []api.Event

func (l byEventTime) Len() int           { return len(l) }
func (l byEventTime) Swap(i, j int)      { l[i], l[j] = l[j], l[i] }
func (l byEventTime) Less(i, j int) bool { return l[i].LastObserved().Before(l[j].LastObserved()) }
