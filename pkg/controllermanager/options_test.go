package controllermanager

import (
	"strings"
	"testing"
	"time"
)

func TestDefaultOptions(t *testing.T) {
	o := DefaultOptions()
	if o.LeaderElectResourceNamespace != "kube-system" || o.LeaderElectResourceName != "kube-controller-manager" {
		t.Errorf("lease = %s/%s, want kube-system/kube-controller-manager", o.LeaderElectResourceNamespace, o.LeaderElectResourceName)
	}
	if o.LeaseDuration != 15*time.Second || o.RenewDeadline != 10*time.Second || o.RetryPeriod != 2*time.Second {
		t.Errorf("election timings = %v/%v/%v, want 15s/10s/2s", o.LeaseDuration, o.RenewDeadline, o.RetryPeriod)
	}
	if o.NodeMonitorGracePeriod != 50*time.Second {
		t.Errorf("node-monitor-grace-period = %v, want 50s", o.NodeMonitorGracePeriod)
	}
	if o.BindAddress != "127.0.0.1:10257" {
		t.Errorf("bind-address = %s, want 127.0.0.1:10257", o.BindAddress)
	}
	if o.KubeAPIQPS != 2000 || o.KubeAPIBurst != 4000 {
		t.Errorf("kube-api-qps/burst = %v/%d, want 2000/4000", o.KubeAPIQPS, o.KubeAPIBurst)
	}
	if n := o.ConcurrentSyncs["serviceaccount"]; n != 1 {
		t.Errorf("concurrent-serviceaccount-syncs = %d, want 1", n)
	}
	o.Kubeconfig = "/k"
	if err := o.Validate(); err != nil {
		t.Errorf("defaults plus a kubeconfig do not validate: %v", err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name      string
		change    func(*Options)
		wantInErr string // "" means valid
	}{
		{"defaults", func(*Options) {}, ""},
		{"no kubeconfig", func(o *Options) { o.Kubeconfig = "" }, "--kubeconfig is required"},
		{"unknown controller", func(o *Options) { o.Controllers = []string{"*", "-replicaset-typo"} }, `"-replicaset-typo" not in the list of known controllers`},
		{"zero workers", func(o *Options) { o.ConcurrentSyncs["serviceaccount"] = 0 }, "--concurrent-serviceaccount-syncs must be at least 1"},
		{"election timings out of order", func(o *Options) { o.LeaderElect, o.RenewDeadline = true, 20*time.Second }, "leaseDuration (15s) > renewDeadline (20s)"},
		{"bad timings without election are ignored", func(o *Options) { o.RenewDeadline = 20 * time.Second }, ""},
		{"no grace period", func(o *Options) { o.NodeMonitorGracePeriod = 0 }, "--node-monitor-grace-period must be positive"},
		{"hostpath provisioner without a dir", func(o *Options) { o.Controllers = []string{"*", "hostpath-provisioner"} },
			"--hostpath-volumes-dir is required by the hostpath-provisioner controller"},
		{"hostpath provisioner with a dir", func(o *Options) {
			o.Controllers, o.HostPathVolumesDir = []string{"*", "hostpath-provisioner"}, "/tmp/volumes"
		}, ""},
		{"free port", func(o *Options) { o.BindAddress = "127.0.0.1:0" }, ""},
		{"IPv6 loopback", func(o *Options) { o.BindAddress = "[::1]:10257" }, ""},
		{"localhost", func(o *Options) { o.BindAddress = "localhost:10257" }, ""},
		{"all interfaces", func(o *Options) { o.BindAddress = "0.0.0.0:10257" }, "must be on a loopback address"},
		{"empty host", func(o *Options) { o.BindAddress = ":10257" }, "must be on a loopback address"},
		{"other host", func(o *Options) { o.BindAddress = "10.0.0.1:10257" }, "must be on a loopback address"},
		{"no port", func(o *Options) { o.BindAddress = "127.0.0.1" }, "must be host:port"},
		{"port out of range", func(o *Options) { o.BindAddress = "127.0.0.1:70000" }, "port must be a number from 0 to 65535"},
		{"negative verbosity", func(o *Options) { o.Verbosity = -1 }, "--v must not be negative"},
		{"real informer FIFO", func(o *Options) { o.InformerFIFO = "real" }, ""},
		{"unknown informer FIFO", func(o *Options) { o.InformerFIFO = "lifo" }, `--informer-fifo: unknown informer FIFO "lifo": must be one of delta, real`},
		{"no client limit", func(o *Options) { o.KubeAPIQPS = 0 }, ""},
		{"negative qps", func(o *Options) { o.KubeAPIQPS = -1 }, "--kube-api-qps (-1) and --kube-api-burst (4000) must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions()
			o.Kubeconfig = "/k"
			tt.change(&o)
			err := o.Validate()
			switch {
			case tt.wantInErr == "" && err != nil:
				t.Fatalf("Validate = %v, want nil", err)
			case tt.wantInErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantInErr)):
				t.Fatalf("Validate = %v, want an error containing %q", err, tt.wantInErr)
			}
		})
	}
}

// Validate reports every problem at once, not only the first.
func TestValidateReportsAllProblems(t *testing.T) {
	o := DefaultOptions()
	o.BindAddress, o.Verbosity = "0.0.0.0:1", -1
	err := o.Validate()
	for _, want := range []string{"--kubeconfig", "--bind-address", "--v"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %v, want it to mention %s", err, want)
		}
	}
}

func TestSyncsFlag(t *testing.T) {
	o := DefaultOptions()
	v := o.SyncsFlag("serviceaccount")
	if v.String() != "1" || v.Type() != "int" {
		t.Fatalf("flag value = %q (type %s), want the default 1 (int)", v.String(), v.Type())
	}
	if err := v.Set("3"); err != nil {
		t.Fatal(err)
	}
	if o.ConcurrentSyncs["serviceaccount"] != 3 || o.workers(Descriptor{Name: "serviceaccount", DefaultWorkers: 1}) != 3 {
		t.Fatalf("after --concurrent-serviceaccount-syncs=3: syncs = %v", o.ConcurrentSyncs)
	}
	if err := v.Set("many"); err == nil {
		t.Fatal("Set(\"many\") succeeded, want an error")
	}
	// A controller missing from the map falls back to its default.
	if n := o.workers(Descriptor{Name: "unlisted", DefaultWorkers: 5}); n != 5 {
		t.Fatalf("workers for an unlisted controller = %d, want its default 5", n)
	}
}
