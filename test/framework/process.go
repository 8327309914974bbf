package framework

import (
	"os/exec"
	"sync"
	"testing"
)

// StartProcess starts cmd (named name in errors) and stops it by its PID —
// kill, then wait for it — when the test ends or when the returned stop is
// called, whichever comes first. afterExit, when not nil, runs once the
// process has exited, e.g. to log its output if the test failed.
func StartProcess(t testing.TB, name string, cmd *exec.Cmd, afterExit func()) (stop func()) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			_ = cmd.Process.Kill() // this process only, by its PID
			<-exited
			if afterExit != nil {
				afterExit()
			}
		})
	}
	t.Cleanup(stop)
	return stop
}
