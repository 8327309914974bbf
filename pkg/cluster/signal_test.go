package cluster

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestSignalKillsTheRecordedProcessOnlyWhileItIsTheOneRecorded(t *testing.T) {
	dir := t.TempDir()
	args := []string{"/bin/sh", "-c", "while :; do sleep 0.05; done", "kplane-signal-test"}
	cmd := exec.Command(args[0], args[1:]...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	rec := ProcessRecord{PID: cmd.Process.Pid, Args: args}
	deadline := time.Now().Add(5 * time.Second)
	for !rec.Running() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // the new command line appears just after exec
	}
	state := &State{DataDir: dir, Supervisor: ProcessRecord{PID: os.Getpid(), Args: os.Args},
		Components: map[string]ProcessRecord{
			"scheduler": rec,
			// Same PID, another command line: a reused PID.
			"kubelet-node1": {PID: cmd.Process.Pid, Args: []string{"/bin/kubelet"}},
		}}
	if err := state.write(layout{dir}.stateFile()); err != nil {
		t.Fatal(err)
	}

	if _, _, err := Signal(dir, "kubelet-node1", syscall.SIGKILL); err == nil || !strings.Contains(err.Error(), "is not running") {
		t.Errorf("signal a record whose PID runs something else: err %v, want 'is not running'", err)
	}
	if _, _, err := Signal(dir, "controller-manager", syscall.SIGKILL); err == nil || !strings.Contains(err.Error(), "kubelet-node1, scheduler") {
		t.Errorf("signal an unknown component: err %v, want the list of components", err)
	}
	got, supervised, err := Signal(dir, "scheduler", syscall.SIGKILL)
	if err != nil || got.PID != cmd.Process.Pid || !supervised {
		t.Fatalf("Signal(scheduler) = %+v, %v, %v; want its record, supervised (this test process stands for the supervisor)", got, supervised, err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("the process ended with %v, want killed", err)
	}
}
