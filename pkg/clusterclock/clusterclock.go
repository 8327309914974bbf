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
// wall clock, and Read says so (ErrWallClock). The ConfigMap's names and
// format are in pkg/api (api.ClusterClockName, api.ClusterClockOffset),
// which the apiserver reads too.
package clusterclock

import (
	"errors"
	"time"

	"kplane/pkg/api"
)

// Where the cluster clock's offset is kept (see api.NewClusterClock).
const (
	Namespace = api.ClusterClockNamespace
	Name      = api.ClusterClockName
	OffsetKey = api.ClusterClockOffsetKey
)

// FlagHelp is the help text of the --virtual-clock flag of the components
// that follow the cluster clock.
const FlagHelp = "run on the cluster clock kept in ConfigMap kube-system/kplane-clock, which 'ctl time advance' moves forward"

// ErrWallClock says that the cluster has no virtual clock: it was not
// started with --virtual-clock, so its time is the wall clock's.
var ErrWallClock = errors.New("this cluster runs on the wall clock; start it with `ctl up --virtual-clock`")

// Offset reads the offset a cluster clock ConfigMap holds.
func Offset(cm *api.ConfigMap) (time.Duration, error) { return api.ClusterClockOffset(cm) }
