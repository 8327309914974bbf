package controllermanager

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"kplane/pkg/controllers/podautoscaler"
)

// HPAOptions are the horizontal pod autoscaler's flags, with
// kube-controller-manager's names and defaults: the controller's Tunables,
// which it passes on as they are.
type HPAOptions struct {
	podautoscaler.Tunables
}

// DefaultHPAOptions returns upstream's defaults.
func DefaultHPAOptions() HPAOptions {
	return HPAOptions{podautoscaler.DefaultTunables()}
}

// AddFlags binds the --horizontal-pod-autoscaler-* flags to o.
func (o *HPAOptions) AddFlags(f *pflag.FlagSet) {
	f.DurationVar(&o.SyncPeriod, "horizontal-pod-autoscaler-sync-period", o.SyncPeriod,
		"how often the horizontal pod autoscaler reconciles each HPA")
	f.DurationVar(&o.DownscaleStabilization, "horizontal-pod-autoscaler-downscale-stabilization", o.DownscaleStabilization,
		"the window over which the autoscaler takes the highest recommendation before scaling down (an HPA's own behavior.scaleDown overrides it)")
	f.Float64Var(&o.Tolerance, "horizontal-pod-autoscaler-tolerance", o.Tolerance,
		"how far from 1.0 the ratio of usage to target may be before the autoscaler acts")
	f.DurationVar(&o.CPUInitializationPeriod, "horizontal-pod-autoscaler-cpu-initialization-period", o.CPUInitializationPeriod,
		"how long after a pod starts its CPU samples may be skipped")
	f.DurationVar(&o.InitialReadinessDelay, "horizontal-pod-autoscaler-initial-readiness-delay", o.InitialReadinessDelay,
		"how long after a pod starts its readiness changes count as initial readiness")
}

// validate reports every bad value.
func (o HPAOptions) validate() []error {
	var errs []error
	durations := []struct {
		flag  string
		value time.Duration
	}{
		{"--horizontal-pod-autoscaler-sync-period", o.SyncPeriod},
		{"--horizontal-pod-autoscaler-downscale-stabilization", o.DownscaleStabilization},
		{"--horizontal-pod-autoscaler-cpu-initialization-period", o.CPUInitializationPeriod},
		{"--horizontal-pod-autoscaler-initial-readiness-delay", o.InitialReadinessDelay},
	}
	for _, d := range durations {
		if d.value <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive, got %v", d.flag, d.value))
		}
	}
	if o.Tolerance <= 0 {
		errs = append(errs, fmt.Errorf("--horizontal-pod-autoscaler-tolerance must be positive, got %v", o.Tolerance))
	}
	return errs
}
