package printers

import (
	"time"

	"kplane/pkg/api"
	"kplane/pkg/humanize"
)

// age is the AGE cell: how long ago t was, or "<unknown>" for an unset time
// (upstream's translateTimestampSince).
func age(t api.Time, now time.Time) string {
	return since(t.Time, now)
}

// since is age for any timestamp type (Events carry MicroTimes).
func since(t time.Time, now time.Time) string { return humanize.Since(t, now) }
