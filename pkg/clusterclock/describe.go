package clusterclock

import (
	"fmt"
	"time"
)

// Describe says what the cluster clock reads at wall time wall, next to the
// wall clock, as `ctl time` prints it and the web view's clock panel shows
// it; virtual is false on a cluster that runs on the wall clock.
func Describe(wall time.Time, offset time.Duration, virtual bool) string {
	note := fmt.Sprintf("virtual, %v ahead of the wall clock", offset)
	if !virtual {
		note = "the wall clock: this cluster was started without --virtual-clock"
	}
	return fmt.Sprintf("cluster clock: %s (%s)\nwall clock:    %s\n", Format(wall.Add(offset)), note, Format(wall))
}

// AdvancedText says that an advance by `by` left the clock offset ahead
// of the wall clock, at wall time now.
func AdvancedText(now time.Time, by, offset time.Duration) string {
	return fmt.Sprintf("cluster clock advanced %v to %s (%v ahead of the wall clock)\n", by, Format(now.Add(offset)), offset)
}

// Format prints t as the API's timestamps are written: RFC 3339 in UTC, to
// the second.
func Format(t time.Time) string { return t.UTC().Format(time.RFC3339) }
