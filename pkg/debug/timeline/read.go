package timeline

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/debug"
)

// EventLister lists the cluster's Events, of every namespace.
type EventLister func(ctx context.Context) ([]api.Event, error)

// ListEvents is the EventLister of c: every Event of every namespace,
// page by page (500 at a time, kubectl's chunk size).
func ListEvents(c *client.Client) EventLister {
	return func(ctx context.Context) ([]api.Event, error) {
		var events []api.Event
		opts := client.ListOptions{Limit: 500}
		for {
			list, err := c.Events("").List(ctx, opts)
			if err != nil {
				return events, fmt.Errorf("list events: %w", err)
			}
			for _, e := range list.Items {
				events = append(events, *e)
			}
			if list.Continue == "" {
				return events, nil
			}
			opts.Continue = list.Continue
		}
	}
}

// Read reads what every endpoint's journal still holds of the writes, and
// the Events, and merges them (Merge). A component that does not answer,
// or Events that cannot be listed, are errors in the second list; the
// timeline holds what the others answered.
func Read(ctx context.Context, c *debug.Client, endpoints []debug.Endpoint, listEvents EventLister, f Filter) (Timeline, []error) {
	var (
		records []debug.Record
		errs    []error
	)
	for _, ep := range endpoints {
		err := c.Records(ctx, ep, debug.RecordQuery{Types: debug.TypeWrite}, func(r debug.Record) error {
			if f.Followed == nil || f.Followed.MayConcern(&r) {
				records = append(records, r)
			}
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	var events []api.Event
	if f.wants(KindEvent) {
		var err error
		if events, err = listEvents(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return Merge(records, events, f), errs
}
