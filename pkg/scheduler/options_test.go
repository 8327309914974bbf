package scheduler

import (
	"strings"
	"testing"
	"time"
)

func TestOptionsValidate(t *testing.T) {
	valid := func() Options {
		o := DefaultOptions()
		o.Kubeconfig = "/tmp/kubeconfig"
		return o
	}
	tests := []struct {
		name    string
		mutate  func(*Options)
		wantErr string
	}{
		{"defaults with a kubeconfig", func(*Options) {}, ""},
		{"leader election defaults", func(o *Options) { o.LeaderElect = true }, ""},
		{"no kubeconfig", func(o *Options) { o.Kubeconfig = "" }, "--kubeconfig is required"},
		{"no scheduler name", func(o *Options) { o.SchedulerName = "" }, "--scheduler-name"},
		{"lease shorter than renew deadline", func(o *Options) {
			o.LeaderElect = true
			o.LeaseDuration = 5 * time.Second
		}, "leaseDuration"},
		{"max back-off below initial", func(o *Options) { o.PodMaxBackoff = 500 * time.Millisecond }, "back-off"},
		{"percentage above 100", func(o *Options) { o.PercentageOfNodesToScore = 101 }, "percentageOfNodesToScore"},
		{"no bind slots", func(o *Options) { o.ParallelBinds = 0 }, "parallelBinds"},
		{"no client limit", func(o *Options) { o.KubeAPIQPS = 0 }, ""},
		{"negative burst", func(o *Options) { o.KubeAPIBurst = -1 }, "--kube-api-burst"},
		{"real informer FIFO", func(o *Options) { o.InformerFIFO = "real" }, ""},
		{"unknown informer FIFO", func(o *Options) { o.InformerFIFO = "lifo" }, `--informer-fifo: unknown informer FIFO "lifo": must be one of delta, real`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := valid()
			tt.mutate(&o)
			err := o.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate = %v, want an error about %q", err, tt.wantErr)
			}
		})
	}
}
