package framework

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// EnvCount reads a count (an integer ≥ 0) from the environment variable
// name, def when it is unset; anything else fails the test. Soak tests use
// it for the sizes `make test` keeps small and their own make target sets.
func EnvCount(t testing.TB, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a count", name, v)
	}
	return n
}

// StartBusyLoops starts n shell busy loops that keep the cores saturated
// until the test ends: cleanup kills each by its PID, and should the test
// binary die first (a timeout, kill -9) Linux kills them too
// (busyLoopProcAttr), so no loop outlives the test and slows what runs
// next. n = 0 starts none.
func StartBusyLoops(t testing.TB, n int) {
	t.Helper()
	for range n {
		cmd := exec.Command("/bin/sh", "-c", "while :; do :; done")
		cmd.SysProcAttr = busyLoopProcAttr()
		if err := cmd.Start(); err != nil {
			t.Fatalf("start busy loop: %v", err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
	}
}
