package simshell

import (
	"path"
	"strconv"
	"strings"
	"time"
)

// SleepRun reads a container's command line that does nothing but sleep
// (`sleep 3600`, `sh -c "sleep 30"`, `sh -c "exec sleep infinity"`) and
// returns how long its run lasts, as a real container's would: forever for
// `sleep infinity`. ok is false for any other command line, whose length
// the simulated runtime cannot know.
func SleepRun(argv []string) (d time.Duration, forever, ok bool) {
	if len(argv) == 3 && isShell(argv[0]) && argv[1] == "-c" {
		argv = strings.Fields(argv[2])
		if len(argv) > 0 && argv[0] == "exec" {
			argv = argv[1:]
		}
	}
	if len(argv) != 2 || path.Base(argv[0]) != "sleep" {
		return 0, false, false
	}
	return parseSleep(argv[1])
}

// parseSleep reads sleep's operand as busybox does: a number of seconds
// (fractions allowed) with an optional suffix s, m, h or d, or infinity.
func parseSleep(operand string) (d time.Duration, forever, ok bool) {
	if operand == "infinity" || operand == "inf" {
		return 0, true, true
	}
	unit := time.Second
	if n := len(operand); n > 1 {
		if u, ok := sleepUnits[operand[n-1]]; ok {
			unit, operand = u, operand[:n-1]
		}
	}
	n, err := strconv.ParseFloat(operand, 64)
	if err != nil || n < 0 || n > float64(1<<62)/float64(unit) {
		return 0, false, false
	}
	return time.Duration(n * float64(unit)), false, true
}

// sleepUnits are the suffixes busybox's sleep accepts.
var sleepUnits = map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour}
