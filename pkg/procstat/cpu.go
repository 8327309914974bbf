package procstat

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicksPerSecond is Linux's USER_HZ, the unit of /proc/<pid>/stat's
// utime and stime; it is 100 on every architecture Go supports on Linux.
const clockTicksPerSecond = 100

// CPUTime is the user+system CPU time process pid has used so far.
func CPUTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the CPU time of pid %d: %w", pid, err)
	}
	return parseStat(data)
}

// parseStat reads utime+stime from a /proc/<pid>/stat line.
func parseStat(data []byte) (time.Duration, error) {
	// The command name (field 2) may hold spaces; fields after its closing
	// parenthesis start with field 3, so utime and stime (14 and 15) are
	// the 12th and 13th of them.
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc stat: too few fields")
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicksPerSecond, nil
}
