package framework

import (
	"os/exec"
	"testing"
)

func TestStartProcessStopsItByPIDOnce(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	calls := 0
	stop := StartProcess(t, "sleep", cmd, func() { calls++ })
	stop()
	if cmd.ProcessState == nil {
		t.Fatal("the process has not been waited for after stop")
	}
	stop() // the test's cleanup calls it again too
	if calls != 1 {
		t.Fatalf("afterExit ran %d times, want 1", calls)
	}
}
