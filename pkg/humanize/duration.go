// Package humanize renders values the short way kubectl prints them for
// people to read. The apiserver's table printers and ctl's describe both
// use it, so an age reads the same in `ctl get` and `ctl describe`.
package humanize

import (
	"fmt"
	"time"
)

// Duration renders d the way kubectl's AGE column does: two or three
// significant figures, finer units while the duration is short ("22s",
// "5m25s", "13m", "6h1m", "3d4h") and coarser ones as it grows ("32d",
// "2y30d", "9y"). It is upstream's apimachinery duration.HumanDuration.
//
// A duration up to a second in the future reads as "0s", because the clocks
// of two machines are never exactly equal; anything further in the future
// is "<invalid>".
func Duration(d time.Duration) string {
	seconds := int(d.Seconds())
	switch {
	case seconds < -1:
		return "<invalid>"
	case seconds < 0:
		return "0s"
	case seconds < 2*60:
		return fmt.Sprintf("%ds", seconds)
	}

	minutes := int(d / time.Minute)
	switch {
	case minutes < 10:
		return withRemainder(minutes, "m", seconds%60, "s")
	case minutes < 3*60:
		return fmt.Sprintf("%dm", minutes)
	}

	hours := int(d / time.Hour)
	days := hours / 24
	switch {
	case hours < 8:
		return withRemainder(hours, "h", minutes%60, "m")
	case hours < 48:
		return fmt.Sprintf("%dh", hours)
	case hours < 8*24:
		return withRemainder(days, "d", hours%24, "h")
	case hours < 2*365*24:
		return fmt.Sprintf("%dd", days)
	case hours < 8*365*24:
		return withRemainder(days/365, "y", days%365, "d")
	}
	return fmt.Sprintf("%dy", days/365)
}

// withRemainder prints "5m25s", or just "5m" when the smaller unit is zero.
func withRemainder(major int, majorUnit string, minor int, minorUnit string) string {
	if minor == 0 {
		return fmt.Sprintf("%d%s", major, majorUnit)
	}
	return fmt.Sprintf("%d%s%d%s", major, majorUnit, minor, minorUnit)
}

// Since is how long before now t was, as Duration renders it, or
// "<unknown>" for an unset time: kubectl's translateTimestampSince, which
// the AGE column and `kubectl describe` both print.
func Since(t, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return Duration(now.Sub(t))
}
