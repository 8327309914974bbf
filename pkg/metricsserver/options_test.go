package metricsserver

import (
	"strings"
	"testing"
	"time"
)

func TestOptionsValidate(t *testing.T) {
	valid := DefaultOptions()
	valid.Kubeconfig, valid.TLSCertFile, valid.TLSPrivateKeyFile, valid.ClientCAFile = "kc", "crt", "key", "ca"
	if err := valid.Validate(); err != nil {
		t.Fatalf("valid options: %v", err)
	}
	if valid.MetricResolution != 15*time.Second || valid.BindAddress != "127.0.0.1" {
		t.Errorf("defaults %v on %s, want upstream's 15s on loopback", valid.MetricResolution, valid.BindAddress)
	}
	tests := []struct {
		name   string
		change func(*Options)
		want   string
	}{
		{"no files", func(o *Options) { *o = DefaultOptions() }, "--kubeconfig is required"},
		{"not loopback", func(o *Options) { o.BindAddress = "0.0.0.0" }, "must be a loopback address"},
		{"resolution too short", func(o *Options) { o.MetricResolution = 100 * time.Millisecond }, "must be at least 1s"},
		{"client key alone", func(o *Options) { o.KubeletClientKey = "k" }, "go together"},
		{"bad port", func(o *Options) { o.SecurePort = 70000 }, "between 0 and 65535"},
	}
	for _, tc := range tests {
		o := valid
		tc.change(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}
