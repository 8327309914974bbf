package tainteviction

import (
	"time"

	"kplane/pkg/api"
	"kplane/pkg/scheduler/plugins"
)

// noExecuteTaints are the taints of a node that evict pods.
func noExecuteTaints(taints []api.Taint) []api.Taint {
	var out []api.Taint
	for _, t := range taints {
		if t.Effect == api.TaintEffectNoExecute {
			out = append(out, t)
		}
	}
	return out
}

// matchingTolerations reports whether every taint is tolerated by one of
// tolerations and, if so, returns for each taint the first toleration that
// tolerates it (upstream's GetMatchingTolerations). The matching rules are
// the scheduler's: the same taint that keeps a pod off a node is the one
// that evicts it.
func matchingTolerations(taints []api.Taint, tolerations []api.Toleration) (allTolerated bool, used []api.Toleration) {
	for i := range taints {
		found := false
		for j := range tolerations {
			if plugins.ToleratesTaint(&tolerations[j], &taints[i]) {
				used = append(used, tolerations[j])
				found = true
				break
			}
		}
		if !found {
			return false, nil
		}
	}
	return true, used
}

// forever is what minTolerationTime returns for tolerations that never
// run out.
const forever time.Duration = -1

// minTolerationTime is how long a pod may stay given the tolerations it
// uses: the smallest tolerationSeconds among them; forever when none has
// one; zero when one is zero or negative (evict at once), or when there is
// no toleration at all.
func minTolerationTime(used []api.Toleration) time.Duration {
	if len(used) == 0 {
		return 0
	}
	shortest := forever
	for _, t := range used {
		if t.TolerationSeconds == nil {
			continue
		}
		if *t.TolerationSeconds <= 0 {
			return 0
		}
		d := time.Duration(*t.TolerationSeconds) * time.Second
		if shortest == forever || d < shortest {
			shortest = d
		}
	}
	return shortest
}
