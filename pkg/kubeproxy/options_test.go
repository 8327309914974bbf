package kubeproxy

import (
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	valid := func() Options {
		o := DefaultOptions()
		o.Kubeconfig, o.HostnameOverride, o.ClusterCIDR = "k", "node1", "10.244.0.0/16"
		return o
	}
	if o := valid(); o.Validate() != nil {
		t.Fatalf("defaults with a kubeconfig and node: %v", o.Validate())
	}
	for _, tc := range []struct {
		name  string
		tweak func(*Options)
		want  string
	}{
		{"no kubeconfig", func(o *Options) { o.Kubeconfig = "" }, "--kubeconfig is required"},
		{"no node", func(o *Options) { o.HostnameOverride = "" }, "--hostname-override is required"},
		{"unknown mode", func(o *Options) { o.Mode = "userspace" }, `--proxy-mode "userspace"`},
		{"bad cidr", func(o *Options) { o.ClusterCIDR = "10.244.0.0" }, "--cluster-cidr"},
		{"min above max", func(o *Options) { o.MinSyncPeriod = time.Minute }, "--min-sync-period"},
		{"not loopback", func(o *Options) { o.MetricsBindAddress = "0.0.0.0:10249" }, "loopback"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := valid()
			tc.tweak(&o)
			if err := o.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
