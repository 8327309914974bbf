package cluster

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// startRecorded starts a shell loop the way the launcher starts a
// component and returns its record.
func startRecorded(t *testing.T) (ProcessRecord, *exec.Cmd) {
	t.Helper()
	args := []string{"/bin/sh", "-c", "while :; do sleep 0.05; done"}
	cmd := exec.Command(args[0], args[1:]...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	rec := ProcessRecord{PID: cmd.Process.Pid, Args: args, StartedAt: time.Now()}
	waitFor(t, "the command line to appear", rec.Running)
	return rec, cmd
}

func TestDownStopsRecordedProcesses(t *testing.T) {
	dir := t.TempDir()
	kubelet, kubeletCmd := startRecorded(t)
	apiserver, apiserverCmd := startRecorded(t)
	// A record whose PID is alive but runs something else (PID reuse) must
	// never be signalled: this test process stands in for the stranger.
	stranger := ProcessRecord{PID: os.Getpid(), Args: []string{"/usr/bin/not-this"}}
	s := &State{DataDir: dir,
		Supervisor: ProcessRecord{PID: 1 << 30, Args: []string{"ctl", "up"}}, // gone
		Components: map[string]ProcessRecord{"apiserver": apiserver, "kubelet-node1": kubelet, "scheduler": stranger}}
	if err := s.write(layout{dir}.stateFile()); err != nil {
		t.Fatal(err)
	}
	if err := Down(dir); err != nil {
		t.Fatalf("Down: %v", err)
	}
	for name, cmd := range map[string]*exec.Cmd{"kubelet": kubeletCmd, "apiserver": apiserverCmd} {
		err := cmd.Wait()
		if err == nil || !strings.Contains(err.Error(), "signal: terminated") {
			t.Errorf("%s ended with %v, want SIGTERM", name, err)
		}
	}
	if _, err := os.Stat(layout{dir}.stateFile()); !os.IsNotExist(err) {
		t.Errorf("cluster.json still exists: %v", err)
	}
}

func TestDownWithoutCluster(t *testing.T) {
	dir := t.TempDir()
	if err := Down(dir); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Down of an empty dir = %v, want ErrNotRunning", err)
	}
	// A stale cluster.json (nothing it names runs) is removed.
	s := &State{DataDir: dir, Supervisor: ProcessRecord{PID: 1 << 30, Args: []string{"ctl"}}}
	s.write(layout{dir}.stateFile())
	if err := Down(dir); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Down with a stale cluster.json = %v, want ErrNotRunning", err)
	}
	if _, err := os.Stat(layout{dir}.stateFile()); !os.IsNotExist(err) {
		t.Errorf("stale cluster.json not removed: %v", err)
	}
}

func TestDownRefusesItsOwnProcess(t *testing.T) {
	dir := t.TempDir()
	s := &State{DataDir: dir, Supervisor: ProcessRecord{PID: os.Getpid(), Args: os.Args}}
	s.write(layout{dir}.stateFile())
	if err := Down(dir); err == nil || !strings.Contains(err.Error(), "call (*Cluster).Stop") {
		t.Errorf("Down of this process's own cluster = %v, want a refusal", err)
	}
}

func TestRefuseIfRunning(t *testing.T) {
	dir := t.TempDir()
	if err := refuseIfRunning(dir, dir); err != nil {
		t.Errorf("no cluster.json: %v", err)
	}
	rec, _ := startRecorded(t)
	s := &State{DataDir: dir, Supervisor: ProcessRecord{PID: 1 << 30}, Components: map[string]ProcessRecord{"kubelet-node1": rec}}
	s.write(layout{dir}.stateFile())
	if err := refuseIfRunning(dir, dir); err == nil || !strings.Contains(err.Error(), "kubelet-node1") {
		t.Errorf("a component still runs: %v, want a refusal naming it", err)
	}
}
