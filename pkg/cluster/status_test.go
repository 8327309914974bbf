package cluster

import (
	"os"
	"slices"
	"testing"
)

func TestCompareComponents(t *testing.T) {
	got := []string{"kubelet-node10", "scheduler", "kubelet-node2", "kubelet-control-plane", "apiserver", "controller-manager", "kubelet-node1"}
	slices.SortFunc(got, compareComponents)
	want := []string{"apiserver", "scheduler", "controller-manager", "kubelet-control-plane", "kubelet-node1", "kubelet-node2", "kubelet-node10"}
	if !slices.Equal(got, want) {
		t.Errorf("sorted = %v, want %v", got, want)
	}
}

func TestStatusWithoutCluster(t *testing.T) {
	r, err := Status(t.TempDir())
	if err != nil || r.Running || len(r.Components) != 0 {
		t.Errorf("Status of an empty dir = %+v, %v; want not running, no error", r, err)
	}
}

func TestStatusReportsRecordedProcesses(t *testing.T) {
	dir := t.TempDir()
	// This test process plays the supervisor; the apiserver's record names
	// a command line no process has, so it is not running.
	s := &State{DataDir: dir, Supervisor: ProcessRecord{PID: os.Getpid(), Args: os.Args},
		Components: map[string]ProcessRecord{
			"apiserver":     {PID: os.Getpid(), Args: []string{"/nowhere/apiserver"}},
			"kubelet-node1": {PID: os.Getpid(), Args: os.Args, Restarts: 3},
			"dns":           {PID: os.Getpid(), Args: []string{"/nowhere/dns", "--kubeconfig", "k", "--listen", "127.0.0.1:40053"}},
		}}
	if err := s.write(layout{dir}.stateFile()); err != nil {
		t.Fatal(err)
	}
	r, err := Status(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Running || !r.Supervisor.Running {
		t.Errorf("report = %+v, want running", r)
	}
	if len(r.Components) != 3 || r.Components[0].Name != "apiserver" || r.Components[0].Running ||
		r.Components[1].Name != "dns" || !r.Components[2].Running || r.Components[2].Restarts != 3 {
		t.Errorf("components = %+v", r.Components)
	}
	// A running process's memory is read from /proc; an exited one has none.
	if r.Supervisor.Memory.RSS == 0 || r.Components[2].Memory.RSS == 0 || r.Components[0].Memory.RSS != 0 {
		t.Errorf("memory: supervisor %d, kubelet-node1 %d, exited apiserver %d bytes; want the running ones > 0 and the exited one 0",
			r.Supervisor.Memory.RSS, r.Components[2].Memory.RSS, r.Components[0].Memory.RSS)
	}
	if r.TotalRSS() != r.Supervisor.Memory.RSS+r.Components[1].Memory.RSS+r.Components[2].Memory.RSS {
		t.Errorf("TotalRSS = %d, want the sum of the running processes' RSS", r.TotalRSS())
	}
	if r.DNS != "127.0.0.1:40053" {
		t.Errorf("DNS = %q, want the dns component's --listen 127.0.0.1:40053", r.DNS)
	}
	// No kubeconfig: the API part of the report says so instead of failing.
	if r.APIError == "" {
		t.Error("APIError is empty although there is no kubeconfig")
	}
}
