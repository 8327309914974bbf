package bench

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system, every thread) this process
// has used so far. The difference across a timed part, divided by the work
// done, is a cost per operation that holds up on a loaded machine, where
// a rate mostly says how much of the cores the benchmark was given.
func processCPU() time.Duration {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}
