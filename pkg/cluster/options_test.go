package cluster

import (
	"strings"
	"testing"
)

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name    string
		change  func(*Options)
		wantErr string
	}{
		{"defaults", func(*Options) {}, ""},
		{"no worker nodes", func(o *Options) { o.Nodes = 0 }, ""},
		{"free port", func(o *Options) { o.Port = 0 }, ""},
		{"process runtime", func(o *Options) { o.Runtime = RuntimeProcess }, ""},
		{"no data dir", func(o *Options) { o.DataDir = "" }, "--data-dir is required"},
		{"negative nodes", func(o *Options) { o.Nodes = -1 }, "--nodes -1 out of range"},
		{"too many nodes for the pod CIDRs", func(o *Options) { o.Nodes = 256 }, "--nodes 256 out of range 0..255"},
		{"unknown runtime", func(o *Options) { o.Runtime = "docker" }, `--runtime "docker"`},
		{"port too high", func(o *Options) { o.Port = 70000 }, "--port 70000 out of range"},
		{"supervisor cannot detach", func(o *Options) { o.Detach, o.Supervisor = true, true }, "cannot detach again"},
		{"verbosity per component", func(o *Options) { o.Verbosity = map[string]int{"scheduler": 4, "kubelet": 2, "kubelet-node2": 3} }, ""},
		{"verbosity of an unknown component", func(o *Options) { o.Verbosity = map[string]int{"schedular": 4} },
			`--v: unknown component "schedular"; the components are apiserver, scheduler, controller-manager, kubelet, kubelet-control-plane, kubelet-node1, kubelet-node2, dns`},
		{"verbosity of a node the cluster lacks", func(o *Options) { o.Verbosity = map[string]int{"kubelet-node3": 1} }, `unknown component "kubelet-node3"`},
		{"negative verbosity", func(o *Options) { o.Verbosity = map[string]int{"apiserver": -1} }, "must not be negative"},
		{"trace informers", func(o *Options) { o.TraceInformers = []string{"scheduler", "kubelet"} }, ""},
		{"trace an unknown component", func(o *Options) { o.TraceInformers = []string{"etcd"} }, `--trace-informers: unknown component "etcd"`},
		{"trace the apiserver", func(o *Options) { o.TraceInformers = []string{"apiserver"} }, "the apiserver runs no informers"},
		{"real informer FIFO", func(o *Options) { o.InformerFIFO = "real" }, ""},
		{"unknown informer FIFO", func(o *Options) { o.InformerFIFO = "lifo" }, `--informer-fifo: unknown informer FIFO "lifo": must be one of delta, real`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions()
			tt.change(&o)
			err := o.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestOptionsCompleteMakesPathsAbsolute(t *testing.T) {
	t.Chdir(t.TempDir())
	o, err := Options{DataDir: ".kplane", BinDir: "bin", Runtime: ""}.complete()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(o.DataDir, "/") || !strings.HasSuffix(o.DataDir, "/.kplane") {
		t.Errorf("DataDir = %q, want an absolute path ending in /.kplane", o.DataDir)
	}
	if !strings.HasPrefix(o.BinDir, "/") {
		t.Errorf("BinDir = %q, want absolute", o.BinDir)
	}
	if o.Runtime != RuntimeSimulated || o.Out == nil || o.ReadyTimeout <= 0 {
		t.Errorf("defaults not filled in: %+v", o)
	}
}
