package simshell

import (
	"testing"
	"time"
)

// TestSleepRun reads the command lines that only sleep, in busybox's
// units, and refuses every other one.
func TestSleepRun(t *testing.T) {
	for _, c := range []struct {
		argv    []string
		want    time.Duration
		forever bool
		ok      bool
	}{
		{[]string{"sleep", "3600"}, time.Hour, false, true},
		{[]string{"/bin/sleep", "0.5"}, 500 * time.Millisecond, false, true},
		{[]string{"sleep", "90s"}, 90 * time.Second, false, true},
		{[]string{"sleep", "10m"}, 10 * time.Minute, false, true},
		{[]string{"sleep", "2h"}, 2 * time.Hour, false, true},
		{[]string{"sleep", "1d"}, 24 * time.Hour, false, true},
		{[]string{"sleep", "infinity"}, 0, true, true},
		{[]string{"sh", "-c", "sleep 30"}, 30 * time.Second, false, true},
		{[]string{"bash", "-c", " exec sleep 1h "}, time.Hour, false, true},
		{[]string{"sleep"}, 0, false, false},
		{[]string{"sleep", "soon"}, 0, false, false},
		{[]string{"sleep", "-1"}, 0, false, false},
		{[]string{"sleep", "1", "2"}, 0, false, false},
		{[]string{"sh", "-c", "sleep 1; echo done"}, 0, false, false},
		{[]string{"sh", "-c", "echo hi && sleep 5"}, 0, false, false},
		{[]string{"nginx"}, 0, false, false},
		{nil, 0, false, false},
	} {
		d, forever, ok := SleepRun(c.argv)
		if d != c.want || forever != c.forever || ok != c.ok {
			t.Errorf("SleepRun(%q) = %v, %v, %v; want %v, %v, %v", c.argv, d, forever, ok, c.want, c.forever, c.ok)
		}
	}
}
