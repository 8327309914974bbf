package trace

import (
	"context"

	"kplane/pkg/debug"
)

// Recorded reads what every endpoint's journal still holds (its ring, not
// a live stream) and returns the records about the objects followed, in
// the order of Before, letting followed grow as `ctl trace --since` does:
// the web view's trace panel reads it again at each refresh. A component
// that does not answer is an error in the second list; the others' records
// are still returned.
func Recorded(ctx context.Context, c *debug.Client, endpoints []debug.Endpoint, followed *FollowedSet) ([]debug.Record, []error) {
	var (
		records []debug.Record
		errs    []error
	)
	for _, ep := range endpoints {
		err := c.Records(ctx, ep, debug.RecordQuery{Types: RecordTypes}, func(r debug.Record) error {
			if followed.MayConcern(&r) {
				records = append(records, r)
			}
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	Sort(records)
	out := records[:0]
	for _, r := range records {
		if followed.Observe(&r) {
			out = append(out, r)
		}
	}
	return out, errs
}
