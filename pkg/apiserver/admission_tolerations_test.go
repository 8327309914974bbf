package apiserver

import (
	"fmt"
	"testing"

	"kplane/pkg/api"
)

func TestAddDefaultTolerations(t *testing.T) {
	seconds := func(n int64) *int64 { return &n }
	defaultNotReady := api.Toleration{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: seconds(300)}
	defaultUnreachable := api.Toleration{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: seconds(300)}
	ownUnreachable := api.Toleration{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: seconds(5)}
	gpu := api.Toleration{Key: "gpu", Operator: api.TolerationOpEqual, Value: "true", Effect: api.TaintEffectNoSchedule}

	tests := []struct {
		name  string
		given []api.Toleration
		old   *[]api.Toleration // nil: a create
		want  []api.Toleration
	}{
		{name: "no tolerations: both defaults, not-ready first",
			want: []api.Toleration{defaultNotReady, defaultUnreachable}},
		{name: "other tolerations are kept, defaults appended",
			given: []api.Toleration{gpu}, want: []api.Toleration{gpu, defaultNotReady, defaultUnreachable}},
		{name: "own unreachable toleration wins; only not-ready added",
			given: []api.Toleration{ownUnreachable}, want: []api.Toleration{ownUnreachable, defaultNotReady}},
		{name: "tolerate-forever (no seconds) counts",
			given: []api.Toleration{{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute}},
			want:  []api.Toleration{{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute}, defaultUnreachable}},
		{name: "empty key and effect tolerate everything",
			given: []api.Toleration{{Operator: api.TolerationOpExists}}, want: []api.Toleration{{Operator: api.TolerationOpExists}}},
		{name: "empty key with NoExecute covers both keys",
			given: []api.Toleration{{Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute}},
			want:  []api.Toleration{{Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute}}},
		{name: "a NoSchedule toleration of the key does not count",
			given: []api.Toleration{{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}},
			want: []api.Toleration{{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
				defaultNotReady, defaultUnreachable}},
		{name: "update that leaves tolerations as stored (a status write): untouched",
			given: []api.Toleration{gpu}, old: &[]api.Toleration{gpu}, want: []api.Toleration{gpu}},
		{name: "update that drops the defaults (a replace): they come back",
			given: nil, old: &[]api.Toleration{defaultNotReady, defaultUnreachable},
			want: []api.Toleration{defaultNotReady, defaultUnreachable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &api.Pod{Spec: api.PodSpec{Tolerations: tt.given}}
			var old *api.Pod
			if tt.old != nil {
				old = &api.Pod{Spec: api.PodSpec{Tolerations: *tt.old}}
			}
			addDefaultTolerations(pod, old)
			if got, want := describeTolerations(pod.Spec.Tolerations), describeTolerations(tt.want); got != want {
				t.Errorf("tolerations =\n  %s\nwant\n  %s", got, want)
			}
		})
	}
}

// Each added toleration has a tolerationSeconds of its own: changing one
// must not change another, in this pod or the next.
func TestAddDefaultTolerationsDoesNotShareSeconds(t *testing.T) {
	a, b := &api.Pod{}, &api.Pod{}
	addDefaultTolerations(a, nil)
	addDefaultTolerations(b, nil)
	*a.Spec.Tolerations[0].TolerationSeconds = 1
	if got := *a.Spec.Tolerations[1].TolerationSeconds; got != DefaultTolerationSeconds {
		t.Errorf("unreachable tolerationSeconds = %d after changing not-ready's", got)
	}
	if got := *b.Spec.Tolerations[0].TolerationSeconds; got != DefaultTolerationSeconds {
		t.Errorf("second pod's tolerationSeconds = %d after changing the first pod's", got)
	}
}

func describeTolerations(ts []api.Toleration) string {
	s := ""
	for _, t := range ts {
		seconds := "forever"
		if t.TolerationSeconds != nil {
			seconds = fmt.Sprintf("%ds", *t.TolerationSeconds)
		}
		s += fmt.Sprintf("{%s %s %s %s %s} ", t.Key, t.Operator, t.Value, t.Effect, seconds)
	}
	return s
}
