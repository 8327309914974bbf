package api

import (
	"fmt"
	"time"
)

// The cluster clock of a cluster started with `ctl up --virtual-clock`
// (see pkg/clusterclock): the wall clock plus an offset that only grows,
// kept in one ConfigMap that the apiserver creates and stamps timestamps
// by, every component follows, and `ctl time advance` moves. It is here,
// beside the kinds, because all of them read the same object.
const (
	// ClusterClockNamespace and ClusterClockName name the ConfigMap.
	ClusterClockNamespace = "kube-system"
	ClusterClockName      = "kplane-clock"
	// ClusterClockOffsetKey is the data key of the offset, a Go duration
	// ("1h5m0s").
	ClusterClockOffsetKey = "offset"
)

// NewClusterClock returns the ConfigMap that says the cluster clock is
// offset ahead of the wall clock.
func NewClusterClock(offset time.Duration) *ConfigMap {
	return &ConfigMap{
		ObjectMeta: ObjectMeta{Namespace: ClusterClockNamespace, Name: ClusterClockName,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "kplane"}},
		Data: map[string]string{ClusterClockOffsetKey: offset.String()},
	}
}

// ClusterClockOffset reads the offset a cluster clock ConfigMap holds.
func ClusterClockOffset(cm *ConfigMap) (time.Duration, error) {
	value, ok := cm.Data[ClusterClockOffsetKey]
	if !ok {
		return 0, fmt.Errorf("configmap %s/%s has no data.%s", ClusterClockNamespace, ClusterClockName, ClusterClockOffsetKey)
	}
	d, err := time.ParseDuration(value)
	if err != nil {
		return 0, fmt.Errorf("configmap %s/%s: data.%s %q is not a duration: %w", ClusterClockNamespace, ClusterClockName, ClusterClockOffsetKey, value, err)
	}
	if d < 0 {
		return 0, fmt.Errorf("configmap %s/%s: data.%s %q is negative; the cluster clock never runs behind the wall clock",
			ClusterClockNamespace, ClusterClockName, ClusterClockOffsetKey, value)
	}
	return d, nil
}
