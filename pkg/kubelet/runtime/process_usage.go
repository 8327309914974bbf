package runtime

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// This file measures a process runtime container from /proc: what
// cAdvisor reads from a cgroup (cpuacct.usage, memory.working_set), kplane
// reads from the processes of the container's process group.

// clockTicksPerSecond is the unit of the CPU times in /proc/<pid>/stat
// (USER_HZ). It is 100 on every Linux architecture Go supports; reading it
// properly (sysconf(_SC_CLK_TCK)) would need cgo.
const clockTicksPerSecond = 100

// nanosecondsPerTick converts clock ticks to nanoseconds of CPU time.
const nanosecondsPerTick = uint64(time.Second) / clockTicksPerSecond

// minUsageWindow is the shortest interval a CPU rate is computed over: two
// samples closer together than a few clock ticks would report noise, so the
// previous rate is returned instead.
const minUsageWindow = 100 * time.Millisecond

// usageSampler measures a process group's CPU and memory the way cAdvisor
// measures a container's cgroup: CPU time as a counter (utime + stime of
// every process of the group, and of the children they reaped), the CPU
// rate as that counter's change between two samples, and the working set
// as the resident set size now.
type usageSampler struct {
	pgid      int
	startedAt time.Time

	lastAt    time.Time // zero before the first sample
	lastTicks uint64
	lastRate  uint64 // nanocores
	// highTicks is the highest counter seen: a process that exits without
	// being reaped by the group takes its CPU time with it, and a counter
	// must not go back.
	highTicks uint64
}

// sample returns the group's CPU time since the container started, its
// rate since the previous sample (the first one: since the container
// started) and its resident memory.
func (s *usageSampler) sample(now time.Time) Usage {
	ticks, rssPages := processGroupStats(s.pgid)
	s.highTicks = max(s.highTicks, ticks)
	u := Usage{Time: now, UsageCoreNanoSeconds: s.highTicks * nanosecondsPerTick,
		WorkingSetBytes: rssPages * uint64(os.Getpagesize())}

	prevAt, prevTicks := s.lastAt, s.lastTicks
	if prevAt.IsZero() {
		prevAt, prevTicks = s.startedAt, 0
	} else if now.Sub(prevAt) < minUsageWindow {
		u.UsageNanoCores = s.lastRate
		return u
	}
	if elapsed := now.Sub(prevAt); s.highTicks > prevTicks && elapsed > 0 {
		// nanocores = CPU nanoseconds used per second of wall clock.
		cpuNanoseconds := float64((s.highTicks - prevTicks) * nanosecondsPerTick)
		u.UsageNanoCores = uint64(cpuNanoseconds / elapsed.Seconds())
	}
	s.lastAt, s.lastTicks, s.lastRate = now, s.highTicks, u.UsageNanoCores
	return u
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
