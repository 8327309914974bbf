package cluster

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/informer"
)

func TestInformerFIFOsAreTheInformersKinds(t *testing.T) {
	var kinds []string
	for _, k := range informer.FIFOKinds {
		kinds = append(kinds, string(k))
	}
	if !slices.Equal(InformerFIFOs, kinds) {
		t.Errorf("cluster.InformerFIFOs = %q, informer.FIFOKinds = %q", InformerFIFOs, kinds)
	}
}

func TestParseVerbosity(t *testing.T) {
	got, err := ParseVerbosity([]string{"scheduler=4", "kubelet=2", "scheduler=5"})
	if err != nil || !maps.Equal(got, map[string]int{"scheduler": 5, "kubelet": 2}) {
		t.Errorf("ParseVerbosity = %v, %v; want scheduler 5 (the last wins), kubelet 2", got, err)
	}
	for value, wantErr := range map[string]string{
		"scheduler":    "want component=N",
		"=4":           "want component=N",
		"scheduler=x":  "whole number",
		"scheduler=-1": "whole number",
	} {
		if _, err := ParseVerbosity([]string{value}); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("ParseVerbosity(%q) = %v, want an error containing %q", value, err, wantErr)
		}
	}
}

// TestPlanComponentsPassesComponentFlags checks the command lines `ctl up
// --v scheduler=4 --v kubelet=2 --v kubelet-node1=5 --trace-informers
// kubelet --trace-informers controller-manager --informer-fifo real` plans.
func TestPlanComponentsPassesComponentFlags(t *testing.T) {
	bin := fakeBinDir(t, "apiserver", "scheduler", "kubelet", "controller-manager")
	o := Options{DataDir: "/data", BinDir: bin, Nodes: 1, Runtime: RuntimeSimulated, Port: 6443,
		Verbosity:      map[string]int{"scheduler": 4, "kubelet": 2, "kubelet-node1": 5, "apiserver": 4},
		TraceInformers: []string{"kubelet", "controller-manager"},
		InformerFIFO:   "real",
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	plan, err := planComponents(o)
	if err != nil {
		t.Fatal(err)
	}
	// What each command line ends with: ctl up passes these on after the
	// component's own flags, and nowhere else.
	want := map[string]string{
		"apiserver":             "--v=4",
		"scheduler":             "--v=4 --informer-fifo real",
		"controller-manager":    "--trace-informers --informer-fifo real",
		"kubelet-control-plane": "--v=2 --trace-informers --informer-fifo real",
		"kubelet-node1":         "--v=5 --trace-informers --informer-fifo real",
	}
	if len(plan) != len(want) {
		t.Fatalf("plan has %d components, want %d", len(plan), len(want))
	}
	for _, c := range plan {
		got := strings.Join(c.args, " ")
		if !strings.HasSuffix(got, " "+want[c.name]) || countComponentFlags(c.args) != len(strings.Fields(want[c.name]))-strings.Count(want[c.name], " real") {
			t.Errorf("%s:\n got %s\nwant it to end with %s, and those flags only there", c.name, got, want[c.name])
		}
	}
}

// countComponentFlags counts the --v, --trace-informers and
// --informer-fifo flags in args.
func countComponentFlags(args []string) int {
	n := 0
	for _, arg := range args {
		if strings.HasPrefix(arg, "--v=") || arg == "--trace-informers" || arg == "--informer-fifo" {
			n++
		}
	}
	return n
}

func TestPlanComponentsWithoutComponentFlagsKeepsTheDefaults(t *testing.T) {
	bin := fakeBinDir(t, "apiserver", "scheduler", "kubelet", "controller-manager")
	plan, err := planComponents(Options{DataDir: "/data", BinDir: bin, Runtime: RuntimeSimulated})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range plan {
		if n := countComponentFlags(c.args); n != 0 {
			t.Errorf("%s got %d component flags though ctl up was given none: %s", c.name, n, strings.Join(c.args, " "))
		}
	}
}

func TestSupervisorArgsCarryTheComponentFlags(t *testing.T) {
	o := DefaultOptions()
	o.Verbosity = map[string]int{"scheduler": 4, "apiserver": 2}
	o.TraceInformers = []string{"kubelet-node1"}
	o.InformerFIFO = "real"
	got := strings.Join(SupervisorArgs(o), " ")
	want := "--v apiserver=2 --v scheduler=4 --trace-informers kubelet-node1 --informer-fifo real"
	if !strings.HasSuffix(got, " "+want) {
		t.Errorf("SupervisorArgs = %s\nwant it to end with %s", got, want)
	}
}
