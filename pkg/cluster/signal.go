package cluster

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
)

// Signal sends sig to the component of the cluster in dataDir, found by
// its record in cluster.json and signalled only while its command line
// still matches the record (a reused PID is never signalled). It returns
// the record and whether a supervisor runs that will start the component
// again (`ctl up` restarts a component that exits). `ctl fault kill` is
// its user.
func Signal(dataDir, component string, sig syscall.Signal) (rec ProcessRecord, supervised bool, err error) {
	state, err := ReadState(dataDir)
	if err != nil {
		return rec, false, err
	}
	rec, ok := state.Components[component]
	if !ok {
		names := make([]string, 0, len(state.Components))
		for name := range state.Components {
			names = append(names, name)
		}
		slices.Sort(names)
		return rec, false, fmt.Errorf("the cluster in %s has no component %q; it has %s", dataDir, component, strings.Join(names, ", "))
	}
	if !rec.Running() {
		return rec, false, fmt.Errorf("%s (pid %d) is not running; `ctl status --data-dir %s` says what runs", component, rec.PID, dataDir)
	}
	if err := syscall.Kill(rec.PID, sig); err != nil {
		return rec, false, fmt.Errorf("signal %s (pid %d): %w", component, rec.PID, err)
	}
	return rec, state.Supervisor.Running(), nil
}
