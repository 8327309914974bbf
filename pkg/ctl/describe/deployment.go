package describe

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"kplane/pkg/api"
)

// describeDeployment prints a Deployment: its selector, the replica
// counts of the rollout, the strategy, the pod template, conditions, the
// old and new ReplicaSets and Events.
func describeDeployment(in Input, s Settings) (string, error) {
	d, err := decode[api.Deployment](in.Object)
	if err != nil {
		return "", err
	}
	oldRSs, newRS := splitReplicaSets(d, in.Related.ReplicaSets)
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", d.Name)
		w.write(level0, "Namespace:\t%s\n", d.Namespace)
		w.write(level0, "CreationTimestamp:\t%s\n", s.timestamp(d.CreationTimestamp.Time))
		printLabelsMultiline(w, "Labels", d.Labels)
		printAnnotationsMultiline(w, "Annotations", d.Annotations)
		w.write(level0, "Selector:\t%s\n", selectorString(d.Spec.Selector))
		w.write(level0, "Replicas:\t%d desired | %d updated | %d total | %d available | %d unavailable\n",
			deref(d.Spec.Replicas), d.Status.UpdatedReplicas, d.Status.Replicas, d.Status.AvailableReplicas, d.Status.UnavailableReplicas)
		w.write(level0, "StrategyType:\t%s\n", d.Spec.Strategy.Type)
		w.write(level0, "MinReadySeconds:\t%d\n", d.Spec.MinReadySeconds)
		if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
			w.write(level0, "RollingUpdateStrategy:\t%s max unavailable, %s max surge\n", intOrString(ru.MaxUnavailable), intOrString(ru.MaxSurge))
		}
		describePodTemplate(&d.Spec.Template, w, s)
		if len(d.Status.Conditions) > 0 {
			w.write(level0, "Conditions:\n  Type\tStatus\tReason\n")
			w.write(level1, "----\t------\t------\n")
			for _, c := range d.Status.Conditions {
				w.write(level1, "%v \t%v\t%v\n", c.Type, c.Status, c.Reason)
			}
		}
		var newRSs []api.ReplicaSet
		if newRS != nil {
			newRSs = append(newRSs, *newRS)
		}
		if len(oldRSs) > 0 || len(newRSs) > 0 {
			w.write(level0, "OldReplicaSets:\t%s\n", replicaSetsSummary(oldRSs))
			w.write(level0, "NewReplicaSet:\t%s\n", replicaSetsSummary(newRSs))
		}
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	}), nil
}

// splitReplicaSets finds, among the ReplicaSets the Deployment controls,
// the new one — the oldest whose pod template equals the Deployment's,
// ignoring the pod-template-hash label — and the old ones (all others,
// scaled to zero or not), as kubectl's deploymentutil does.
func splitReplicaSets(d *api.Deployment, all []api.ReplicaSet) (old []api.ReplicaSet, newRS *api.ReplicaSet) {
	var owned []api.ReplicaSet
	for _, rs := range all {
		if ref := controllerRef(rs.ObjectMeta); ref != nil && ref.UID == d.UID {
			owned = append(owned, rs)
		}
	}
	slices.SortStableFunc(owned, func(a, b api.ReplicaSet) int {
		if a.CreationTimestamp.Equal(b.CreationTimestamp.Time) {
			return strings.Compare(a.Name, b.Name)
		}
		return a.CreationTimestamp.Compare(b.CreationTimestamp.Time)
	})
	for i := range owned {
		if equalIgnoreHash(&owned[i].Spec.Template, &d.Spec.Template) {
			newRS = &owned[i]
			break
		}
	}
	for _, rs := range owned {
		if newRS == nil || rs.UID != newRS.UID {
			old = append(old, rs)
		}
	}
	return old, newRS
}

// equalIgnoreHash compares two pod templates, leaving out the
// pod-template-hash label the deployment controller adds to its
// ReplicaSets' templates. Comparing the JSON forms treats nil and empty
// lists and maps alike, as upstream's semantic equality does.
func equalIgnoreHash(a, b *api.PodTemplateSpec) bool {
	strip := func(t *api.PodTemplateSpec) any {
		c := *t
		c.Labels = make(map[string]string, len(t.Labels))
		for k, v := range t.Labels {
			if k != api.DefaultDeploymentUniqueLabelKey {
				c.Labels[k] = v
			}
		}
		data, err := json.Marshal(c)
		if err != nil {
			return nil
		}
		var out any
		_ = json.Unmarshal(data, &out)
		return out
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

// replicaSetsSummary is "name (3/3 replicas created), …" or <none>.
func replicaSetsSummary(rss []api.ReplicaSet) string {
	if len(rss) == 0 {
		return "<none>"
	}
	parts := make([]string, len(rss))
	for i, rs := range rss {
		parts[i] = fmt.Sprintf("%s (%d/%d replicas created)", rs.Name, rs.Status.Replicas, deref(rs.Spec.Replicas))
	}
	return strings.Join(parts, ", ")
}
