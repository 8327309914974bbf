package runtime

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// clockTicksPerSecond is the unit of the CPU times in /proc/<pid>/stat
// (USER_HZ). It is 100 on every Linux architecture Go supports; reading it
// properly (sysconf(_SC_CLK_TCK)) would need cgo.
const clockTicksPerSecond = 100

// minUsageWindow is the shortest interval a CPU rate is computed over: two
// samples closer together than a few clock ticks would report noise, so the
// previous rate is returned instead.
const minUsageWindow = 100 * time.Millisecond

// usageSampler measures a process group's CPU and memory the way cAdvisor
// measures a container's cgroup: CPU as the rate of CPU time between two
// samples, memory as the resident set size now.
type usageSampler struct {
	pgid      int
	startedAt time.Time

	lastAt    time.Time // zero before the first sample
	lastTicks uint64
	lastMilli int64
}

// sample returns the group's CPU use in millicores since the previous sample
// (the first one: since the container started) and its resident memory in
// bytes.
func (s *usageSampler) sample(now time.Time) (milliCPU, memoryBytes int64) {
	ticks, rssPages := processGroupStats(s.pgid)
	memoryBytes = int64(rssPages) * int64(os.Getpagesize())

	prevAt, prevTicks := s.lastAt, s.lastTicks
	if prevAt.IsZero() {
		prevAt, prevTicks = s.startedAt, 0
	} else if now.Sub(prevAt) < minUsageWindow {
		return s.lastMilli, memoryBytes
	}
	elapsed := now.Sub(prevAt)
	if ticks > prevTicks && elapsed > 0 {
		// CPU seconds = ticks / USER_HZ; millicores = CPU seconds per
		// wall-clock second × 1000.
		milliCPU = int64(ticks-prevTicks) * (1000 / clockTicksPerSecond) * int64(time.Second) / int64(elapsed)
	}
	s.lastAt, s.lastTicks, s.lastMilli = now, ticks, milliCPU
	return milliCPU, memoryBytes
}

// processGroupStats adds up, over every process whose process group is pgid,
// the CPU time in clock ticks (user and system, of the process and of its
// children it has reaped, so CPU used by a finished child still counts) and
// the resident pages.
func processGroupStats(pgid int) (ticks uint64, rssPages uint64) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, 0
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := readProcStat(pid)
		if err != nil || stat.pgrp != pgid {
			continue // gone already, or not ours
		}
		ticks += stat.utime + stat.stime + stat.cutime + stat.cstime
		if pages, err := readResidentPages(pid); err == nil {
			rssPages += pages
		}
	}
	return ticks, rssPages
}

// procStat is the part of /proc/<pid>/stat the sampler needs.
type procStat struct {
	pgrp                         int
	utime, stime, cutime, cstime uint64
}

// readProcStat reads /proc/<pid>/stat.
func readProcStat(pid int) (procStat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	s, err := parseProcStat(data)
	if err != nil {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return s, nil
}

// parseProcStat parses the contents of /proc/<pid>/stat (see proc(5)). The
// second field, the command name in parentheses, may itself hold spaces and
// parentheses, so the fields are counted from the last ')'.
func parseProcStat(data []byte) (procStat, error) {
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return procStat{}, fmt.Errorf("no command name in %q", data)
	}
	// fields[0] is field 3 (state), so field n is fields[n-3].
	fields := bytes.Fields(data[end+1:])
	if len(fields) < 17-3+1 {
		return procStat{}, fmt.Errorf("%d fields after the command name, want at least 15", len(fields))
	}
	var s procStat
	var err error
	if s.pgrp, err = strconv.Atoi(string(fields[5-3])); err != nil {
		return procStat{}, fmt.Errorf("pgrp: %w", err)
	}
	for i, dst := range []*uint64{&s.utime, &s.stime, &s.cutime, &s.cstime} {
		// cutime and cstime are signed in proc(5) but never negative.
		v, err := strconv.ParseInt(string(fields[14-3+i]), 10, 64)
		if err != nil {
			return procStat{}, fmt.Errorf("field %d: %w", 14+i, err)
		}
		if v > 0 {
			*dst = uint64(v)
		}
	}
	return s, nil
}

// readResidentPages reads the resident set size, in pages, from the second
// field of /proc/<pid>/statm.
func readResidentPages(pid int) (uint64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0, err
	}
	fields := bytes.Fields(data)
	if len(fields) < 2 {
		return 0, fmt.Errorf("malformed /proc/%d/statm", pid)
	}
	return strconv.ParseUint(string(fields[1]), 10, 64)
}
