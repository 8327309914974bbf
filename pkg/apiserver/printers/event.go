package printers

import (
	"cmp"
	"strings"
	"time"

	"kplane/pkg/api"
)

// Upstream orders the event columns for reading: when, what kind, why, about
// what, and the message; -o wide adds the rest after the message.
var eventColumns = []api.TableColumnDefinition{
	text("Last Seen", "When the event last happened."),
	text("Type", "Normal or Warning."),
	text("Reason", "A short, machine-readable word for why the event happened."),
	text("Object", "The object the event is about, as kind/name."),
	wide(text("Subobject", "The part of the object the event is about, e.g. spec.containers{nginx}.")),
	wide(text("Source", "The component (and host) that reported the event.")),
	text("Message", "What happened, for humans."),
	wide(text("First Seen", "When the event first happened.")),
	wide(text("Count", "How many times the event happened.")),
	wide(api.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: nameColumn.Description}),
}

// eventCells is upstream's printEvent. It reads both event shapes: core/v1
// events (firstTimestamp, lastTimestamp, count, source) and the newer
// events.k8s.io style that sets only eventTime, series and reporting*.
func eventCells(ev *api.Event, now time.Time) []any {
	firstSeen := since(ev.FirstTimestamp.Time, now)
	if ev.FirstTimestamp.IsZero() {
		firstSeen = since(ev.EventTime.Time, now)
	}
	lastSeen := since(ev.LastTimestamp.Time, now)
	if ev.LastTimestamp.IsZero() {
		lastSeen = firstSeen
	}
	count := ev.Count
	switch {
	case ev.Series != nil:
		lastSeen = since(ev.Series.LastObservedTime.Time, now)
		count = ev.Series.Count
	case count == 0:
		count = 1 // an event that happened once may not count itself
	}

	object := strings.ToLower(ev.InvolvedObject.Kind)
	if ev.InvolvedObject.Name != "" {
		object += "/" + ev.InvolvedObject.Name
	}

	return []any{
		lastSeen,
		ev.Type,
		ev.Reason,
		object,
		ev.InvolvedObject.FieldPath,
		eventSource(ev),
		strings.TrimSpace(ev.Message),
		firstSeen,
		int64(count),
		ev.Name,
	}
}

// eventSource renders who reported the event as "component, host", falling
// back to reportingComponent and reportingInstance, and leaving out an empty
// host.
func eventSource(ev *api.Event) string {
	component := cmp.Or(ev.Source.Component, ev.ReportingController)
	host := cmp.Or(ev.Source.Host, ev.ReportingInstance)
	if host == "" {
		return component
	}
	return component + ", " + host
}
