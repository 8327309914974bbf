package kubelet

import "time"

// crashBackOff is the CrashLoopBackOff bookkeeping of one pod's containers,
// keyed by container name. It reproduces upstream's flowcontrol.Backoff as
// the kubelet uses it:
//
//   - A container that exits with no back-off entry is restarted at once,
//     and its entry starts at the initial delay (10 s).
//   - A container that exits again within its current delay of the last
//     restart waits out the rest of the delay in CrashLoopBackOff, and the
//     delay doubles on the next restart, up to the maximum (5 min).
//   - A container that ran for more than twice the maximum (10 min) since
//     its last restart starts over: its old entry has expired.
//
// So the restarts of a container that crashes at once come after 0 s, 10 s,
// 20 s, 40 s … 5 min. Only the pod's worker goroutine uses it.
type crashBackOff struct {
	initial, max time.Duration
	entries      map[string]*backOffEntry
}

// backOffEntry is one container's current delay and when it last restarted.
type backOffEntry struct {
	delay       time.Duration
	lastRestart time.Time
}

func newCrashBackOff(initial, max time.Duration) *crashBackOff {
	return &crashBackOff{initial: initial, max: max, entries: map[string]*backOffEntry{}}
}

// expired reports whether an entry last updated at lastRestart no longer
// applies to an exit at exitTime.
func (b *crashBackOff) expired(e *backOffEntry, exitTime time.Time) bool {
	return exitTime.Sub(e.lastRestart) > 2*b.max
}

// waitUntil says whether a container that exited at exitTime must still
// wait at now, until when, and the delay it is waiting out (for the
// "back-off 20s restarting failed container" message).
func (b *crashBackOff) waitUntil(name string, exitTime, now time.Time) (until time.Time, delay time.Duration, waiting bool) {
	e, ok := b.entries[name]
	if !ok || b.expired(e, exitTime) {
		return time.Time{}, 0, false
	}
	until = exitTime.Add(e.delay)
	return until, e.delay, now.Before(until)
}

// restarted records a restart at now after an exit at exitTime: a new entry
// at the initial delay, or the old one's delay doubled.
func (b *crashBackOff) restarted(name string, exitTime, now time.Time) {
	e, ok := b.entries[name]
	if !ok || b.expired(e, exitTime) {
		b.entries[name] = &backOffEntry{delay: b.initial, lastRestart: now}
		return
	}
	e.delay = min(2*e.delay, b.max)
	e.lastRestart = now
}
