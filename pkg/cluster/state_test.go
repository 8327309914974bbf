package cluster

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

func TestCommandLineMatches(t *testing.T) {
	self := os.Getpid()
	tests := []struct {
		name string
		pid  int
		args []string
		want bool
	}{
		{"this process", self, os.Args, true},
		{"other arguments", self, append(slices.Clone(os.Args), "--extra"), false},
		{"fewer arguments", self, os.Args[:1], len(os.Args) == 1},
		{"no arguments recorded", self, nil, false},
		{"no such process", 1 << 30, os.Args, false},
	}
	for _, tt := range tests {
		if got := commandLineMatches(tt.pid, tt.args); got != tt.want {
			t.Errorf("%s: commandLineMatches = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCommandLineMatchesEmptyArgumentsAndExit(t *testing.T) {
	args := []string{"/bin/sh", "-c", "while :; do sleep 0.05; done", ""}
	cmd := exec.Command(args[0], args[1:]...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rec := ProcessRecord{PID: cmd.Process.Pid, Args: args}
	// Right after a vfork+exec the kernel may not have published the new
	// command line yet (it reads empty for a moment), so poll briefly.
	deadline := time.Now().Add(5 * time.Second)
	for !rec.Running() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if !rec.Running() {
		t.Error("a running process with an empty last argument does not match its record")
	}
	cmd.Process.Kill()
	// Not yet reaped, the process is a zombie: its command line is empty,
	// so it no longer counts as running.
	deadline = time.Now().Add(5 * time.Second)
	for rec.Running() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if rec.Running() {
		t.Error("a killed process still counts as running")
	}
	cmd.Wait()
}

func TestStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadState(dir); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("ReadState without cluster.json = %v, want ErrNotRunning", err)
	}
	ready := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	s := &State{DataDir: dir, Server: "https://127.0.0.1:6443", ReadyAt: &ready,
		Supervisor: ProcessRecord{PID: 10, Args: []string{"ctl", "up"}},
		Components: map[string]ProcessRecord{"apiserver": {PID: 11, Args: []string{"apiserver"}, Restarts: 2}}}
	if err := s.write(layout{dir}.stateFile()); err != nil {
		t.Fatal(err)
	}
	got, err := ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Server != s.Server || got.Supervisor.PID != 10 || got.Components["apiserver"].Restarts != 2 || !got.ReadyAt.Equal(ready) {
		t.Errorf("read back %+v", got)
	}
}
