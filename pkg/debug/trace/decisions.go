package trace

import (
	"context"
	"slices"

	"kplane/pkg/debug"
)

// Decisions reads the decision records about the object resource/key
// ("deployments.apps", "default/web") from every endpoint, oldest first.
// A component that does not answer is an error in the second list; the
// others' records are still returned.
func Decisions(ctx context.Context, c *debug.Client, endpoints []debug.Endpoint, resource, key string) ([]debug.Record, []error) {
	var (
		records []debug.Record
		errs    []error
	)
	query := debug.RecordQuery{Types: debug.TypeDecision, Resource: resource, Key: key}
	for _, ep := range endpoints {
		err := c.Records(ctx, ep, query, func(r debug.Record) error {
			records = append(records, r)
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	slices.SortStableFunc(records, func(a, b debug.Record) int { return a.Time.Compare(b.Time) })
	return records, errs
}

// LatestPerActor keeps, of records (oldest first), the newest of each
// actor in each component, ordered by when that newest one was recorded:
// what `ctl why` prints without --all.
func LatestPerActor(records []debug.Record) []debug.Record {
	type actor struct{ component, name string }
	latest := map[actor]int{}
	for i, r := range records {
		latest[actor{r.Component, r.Actor}] = i
	}
	var out []debug.Record
	for i, r := range records {
		if latest[actor{r.Component, r.Actor}] == i {
			out = append(out, r)
		}
	}
	return out
}
