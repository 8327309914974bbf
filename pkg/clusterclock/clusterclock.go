// Package clusterclock keeps one clock for a whole cluster started with
// `ctl up --virtual-clock`, across its processes: the apiserver, the
// controller-manager, the scheduler and every kubelet.
//
// The design is the simplest that is faithful: the cluster clock is the
// wall clock plus an offset, and the offset lives in the API, in the
// ConfigMap kube-system/kplane-clock (data.offset, a Go duration such as
// "5m0s"). Every component started with --virtual-clock runs on a
// clock.Virtual and follows that ConfigMap with an informer (Follow): when
// the offset grows, its clock jumps, and every timer the jump passes fires
// at once — Lease renewals, the node-lifecycle controller's monitor loop,
// taint-eviction deadlines, back-offs. The apiserver creates the ConfigMap
// when it starts with --virtual-clock and stamps creation and deletion
// timestamps on the same clock. `ctl time advance 5m` moves the offset
// (Advance); `ctl time` prints it (Read).
//
// The offset only grows: time never goes back, or every deadline already
// computed would be wrong. A cluster without the ConfigMap runs on the
// wall clock, and Read says so (ErrWallClock).
package clusterclock

import (
	"errors"
	"fmt"
	"time"

	"kplane/pkg/api"
)

// Where the cluster clock's offset is kept.
const (
	// Namespace and Name name the ConfigMap holding the offset.
	Namespace = "kube-system"
	Name      = "kplane-clock"
	// OffsetKey is the data key of the offset, a Go duration ("1h5m0s").
	OffsetKey = "offset"
)

// ErrWallClock says that the cluster has no virtual clock: it was not
// started with --virtual-clock, so its time is the wall clock's.
var ErrWallClock = errors.New("this cluster runs on the wall clock; start it with `ctl up --virtual-clock`")

// NewConfigMap returns the ConfigMap that says the cluster clock is offset
// ahead of the wall clock.
func NewConfigMap(offset time.Duration) *api.ConfigMap {
	return &api.ConfigMap{
		ObjectMeta: api.ObjectMeta{Namespace: Namespace, Name: Name,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "kplane"}},
		Data: map[string]string{OffsetKey: offset.String()},
	}
}

// IsClockConfigMap reports whether namespace/name is the cluster clock's
// ConfigMap.
func IsClockConfigMap(namespace, name string) bool {
	return namespace == Namespace && name == Name
}

// Offset reads the offset a cluster clock ConfigMap holds.
func Offset(cm *api.ConfigMap) (time.Duration, error) {
	value, ok := cm.Data[OffsetKey]
	if !ok {
		return 0, fmt.Errorf("configmap %s/%s has no data.%s", Namespace, Name, OffsetKey)
	}
	d, err := time.ParseDuration(value)
	if err != nil {
		return 0, fmt.Errorf("configmap %s/%s: data.%s %q is not a duration: %w", Namespace, Name, OffsetKey, value, err)
	}
	if d < 0 {
		return 0, fmt.Errorf("configmap %s/%s: data.%s %q is negative; the cluster clock never runs behind the wall clock", Namespace, Name, OffsetKey, value)
	}
	return d, nil
}
