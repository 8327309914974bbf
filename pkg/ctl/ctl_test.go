package ctl

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"kplane/pkg/cluster"
	"kplane/pkg/procstat"
)

// run executes ctl with args in-process and returns its exit code and output.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

func TestClusterVerbsWithoutCluster(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{[]string{"status", "--data-dir", dir}, 1, "kplane is not running in " + dir + ".\n", ""},
		{[]string{"down", "--data-dir", dir}, 0, "kplane is not running in " + dir + ".\n", ""},
		{[]string{"up", "--data-dir", dir, "--nodes", "-1"}, 1, "", "error: --nodes -1 out of range 0..255\n"},
		{[]string{"up", "--runtime", "docker"}, 1, "", `error: --runtime "docker": must be "simulated" or "process"` + "\n"},
		{[]string{"up", "--bin-dir", dir, "--data-dir", dir}, 1, "", "error: apiserver not found in " + dir + " (run `make build` first)\n"},
		{[]string{"frobnicate"}, 1, "", `error: unknown command "frobnicate" for "ctl"` + "\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := run(t, tt.args...)
			if code != tt.wantCode || out != tt.wantOut || errOut != tt.wantErr {
				t.Errorf("ctl %v = %d, stdout %q, stderr %q; want %d, %q, %q",
					tt.args, code, out, errOut, tt.wantCode, tt.wantOut, tt.wantErr)
			}
		})
	}
}

func TestPrintStatus(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	report := cluster.StatusReport{
		Running: true,
		Server:  "https://127.0.0.1:6443",
		Supervisor: cluster.ComponentStatus{Name: "supervisor", PID: 100, Running: true, StartedAt: now.Add(-5 * time.Minute),
			Memory: procstat.Memory{RSS: 22 << 20}},
		Components: []cluster.ComponentStatus{
			{Name: "apiserver", PID: 101, Running: true, StartedAt: now.Add(-5 * time.Minute), Memory: procstat.Memory{RSS: 64<<20 + 512<<10}},
			{Name: "kubelet-node1", PID: 102, Running: false, Restarts: 4},
		},
		Nodes: []cluster.NodeStatus{{Name: "control-plane", Ready: true, Status: "Ready"}, {Name: "node1", Status: "NotReady: KubeletNotReady"}},
	}
	var out bytes.Buffer
	printStatus(&out, ".kplane", report, now)
	want := `kplane is running in .kplane; apiserver https://127.0.0.1:6443

COMPONENT       PID   STATUS    RESTARTS   AGE   MEMORY
supervisor      100   Running   0          5m    22.0Mi
apiserver       101   Running   0          5m    64.5Mi
kubelet-node1   102   Exited    4          -     -
2 processes hold 86.5Mi of resident memory (RSS; docs/performance.md, W2).

NODE            STATUS
control-plane   Ready
node1           NotReady: KubeletNotReady
`
	if out.String() != want {
		t.Errorf("status output:\n%s\nwant:\n%s", out.String(), want)
	}

	report.DNS = "127.0.0.1:40053"
	out.Reset()
	printStatus(&out, ".kplane", report, now)
	if !strings.HasPrefix(out.String(), "kplane is running in .kplane; apiserver https://127.0.0.1:6443\ndns 127.0.0.1:40053\n\nCOMPONENT") {
		t.Errorf("status with a DNS:\n%s", out.String())
	}

	report.DNS, report.MetricsServer = "", "https://127.0.0.1:24443"
	out.Reset()
	printStatus(&out, ".kplane", report, now)
	if !strings.HasPrefix(out.String(), "kplane is running in .kplane; apiserver https://127.0.0.1:6443\nmetrics-server https://127.0.0.1:24443\n\nCOMPONENT") {
		t.Errorf("status with metrics-server:\n%s", out.String())
	}

	report.Nodes, report.APIError = nil, "connection refused"
	out.Reset()
	printStatus(&out, ".kplane", report, now)
	if !strings.HasSuffix(out.String(), "\nThe apiserver did not answer: connection refused\n") {
		t.Errorf("status without the API:\n%s", out.String())
	}
}

func TestHumanDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0s"},
		{90 * time.Second, "90s"},
		{5 * time.Minute, "5m"},
		{3 * time.Hour, "3h"},
		{72 * time.Hour, "3d"},
	}
	for _, tt := range tests {
		if got := humanDuration(tt.d); got != tt.want {
			t.Errorf("humanDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestSupervisorArgsParseAsUpFlags(t *testing.T) {
	// The detached supervisor is started with cluster.SupervisorArgs; the
	// up command must accept every one of them.
	opts := cluster.DefaultOptions()
	opts.BinDir, opts.Port, opts.DefaultStorageClass, opts.DebugRingSize, opts.VirtualClock = "/bin-dir", 0, false, 0, true
	opts.Verbosity, opts.TraceInformers, opts.InformerFIFO = map[string]int{"scheduler": 4, "kubelet": 2}, []string{"kubelet-node1", "scheduler"}, "real"
	args := cluster.SupervisorArgs(opts)
	up := newUpCommand(IOStreams{})
	if err := up.ParseFlags(args[1:]); err != nil {
		t.Fatalf("up does not accept %v: %v", args, err)
	}
	for flag, want := range map[string]string{"supervise": "true", "data-dir": ".kplane", "port": "0", "bin-dir": "/bin-dir", "nodes": "2", "runtime": "simulated", "ready-timeout": "1m0s",
		"default-storage-class": "false", "controller-managers": "1", "debug-ring-size": "0", "v": "kubelet=2,scheduler=4", "trace-informers": "[kubelet-node1,scheduler]", "informer-fifo": "real",
		"virtual-clock": "true"} {
		if got := up.Flags().Lookup(flag).Value.String(); got != want {
			t.Errorf("--%s = %q, want %q", flag, got, want)
		}
	}
}
