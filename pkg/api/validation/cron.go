package validation

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A CronJob's schedule is a standard five-field cron line
// ("minute hour day-of-month month day-of-week", e.g. "*/5 * * * 1-5") or a
// descriptor ("@hourly", "@every 90s"). Upstream validates it by parsing it
// with robfig/cron's standard parser; parseCronSchedule follows the same
// grammar and reports the same problems in the same words, so a bad schedule
// is rejected with the message a real cluster gives.

// cronField describes one of the five fields: its allowed range and, for
// months and weekdays, the names that may stand for numbers.
type cronField struct {
	min, max int
	names    map[string]int
}

var cronFields = []cronField{
	{min: 0, max: 59}, // minute
	{min: 0, max: 23}, // hour
	{min: 1, max: 31}, // day of month
	{min: 1, max: 12, names: map[string]int{ // month
		"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
		"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
	}},
	{min: 0, max: 6, names: map[string]int{ // day of week, Sunday is 0
		"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6,
	}},
}

// cronDescriptors are the "@" shorthands and what they stand for.
var cronDescriptors = map[string]string{
	"@yearly":   "0 0 1 1 *",
	"@annually": "0 0 1 1 *",
	"@monthly":  "0 0 1 * *",
	"@weekly":   "0 0 * * 0",
	"@daily":    "0 0 * * *",
	"@midnight": "0 0 * * *",
	"@hourly":   "0 * * * *",
}

// parseCronSchedule returns nil if spec is a schedule the CronJob controller
// can run, or an error saying what is wrong with it.
func parseCronSchedule(spec string) error {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return fmt.Errorf("empty spec string")
	}
	// A leading TZ=… or CRON_TZ=… picks the time zone the line is read in.
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		eq := strings.Index(spec, "=")
		space := strings.Index(spec, " ")
		if space < 0 {
			space = len(spec)
		}
		zone := spec[eq+1 : space]
		if _, err := time.LoadLocation(zone); err != nil {
			return fmt.Errorf("provided bad location %s: %w", zone, err)
		}
		spec = strings.TrimSpace(spec[space:])
	}
	if strings.HasPrefix(spec, "@") {
		return parseCronDescriptor(spec)
	}
	fields := strings.Fields(spec)
	if len(fields) != len(cronFields) {
		return fmt.Errorf("expected exactly %d fields, found %d: %s", len(cronFields), len(fields), fields)
	}
	for i, f := range fields {
		if err := parseCronField(f, cronFields[i]); err != nil {
			return err
		}
	}
	return nil
}

func parseCronDescriptor(spec string) error {
	if _, ok := cronDescriptors[spec]; ok {
		return nil
	}
	if every, ok := strings.CutPrefix(spec, "@every "); ok {
		if _, err := time.ParseDuration(every); err != nil {
			return fmt.Errorf("failed to parse duration %s: %w", spec, err)
		}
		return nil
	}
	return fmt.Errorf("unrecognized descriptor: %s", spec)
}

// parseCronField checks one field: a comma-separated list of ranges.
func parseCronField(field string, bounds cronField) error {
	for _, expr := range strings.Split(field, ",") {
		if err := parseCronRange(expr, bounds); err != nil {
			return err
		}
	}
	return nil
}

// parseCronRange checks one range: "*", "?", "n", "a-b", each optionally
// followed by "/step"; "n/step" means from n to the field's maximum.
func parseCronRange(expr string, bounds cronField) error {
	rangeAndStep := strings.Split(expr, "/")
	lowAndHigh := strings.Split(rangeAndStep[0], "-")
	var start, end int
	var err error
	if lowAndHigh[0] == "*" || lowAndHigh[0] == "?" {
		start, end = bounds.min, bounds.max
	} else {
		if start, err = parseCronNumber(lowAndHigh[0], bounds.names); err != nil {
			return err
		}
		switch len(lowAndHigh) {
		case 1:
			end = start
		case 2:
			if end, err = parseCronNumber(lowAndHigh[1], bounds.names); err != nil {
				return err
			}
		default:
			return fmt.Errorf("too many hyphens: %s", expr)
		}
	}
	step := 1
	switch len(rangeAndStep) {
	case 1:
	case 2:
		if step, err = parseCronInt(rangeAndStep[1]); err != nil {
			return err
		}
		if len(lowAndHigh) == 1 {
			end = bounds.max
		}
	default:
		return fmt.Errorf("too many slashes: %s", expr)
	}
	switch {
	case start < bounds.min:
		return fmt.Errorf("beginning of range (%d) below minimum (%d): %s", start, bounds.min, expr)
	case end > bounds.max:
		return fmt.Errorf("end of range (%d) above maximum (%d): %s", end, bounds.max, expr)
	case start > end:
		return fmt.Errorf("beginning of range (%d) beyond end of range (%d): %s", start, end, expr)
	case step == 0:
		return fmt.Errorf("step of range should be a positive number: %s", expr)
	}
	return nil
}

// parseCronNumber reads a number or, where the field has names, a name
// ("jan", "MON").
func parseCronNumber(expr string, names map[string]int) (int, error) {
	if n, ok := names[strings.ToLower(expr)]; ok {
		return n, nil
	}
	return parseCronInt(expr)
}

func parseCronInt(expr string) (int, error) {
	n, err := strconv.Atoi(expr)
	if err != nil {
		return 0, fmt.Errorf("failed to parse int from %s: %w", expr, err)
	}
	if n < 0 {
		return 0, fmt.Errorf("negative number (%d) not allowed: %s", n, expr)
	}
	return n, nil
}
