package serviceaccount

// This file records, for the debug journal (what `ctl why sa/default -n
// x` shows), each ServiceAccount the controller decides to create. A
// namespace that has its accounts, or is being deleted, records nothing.

import (
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file whose syncNamespace this mirrors.
const decisionSource = "pkg/controller/serviceaccount/serviceaccounts_controller.go"

// recordCreate records that namespace ns lacks the account name.
func (c *Controller) recordCreate(ns *api.Namespace, name string) {
	if !c.decisions.Enabled() {
		return
	}
	c.decisions.Record(&api.ObjectMeta{Namespace: ns.Name, Name: name}, debug.Decision{
		Message: fmt.Sprintf("namespace %s (phase %s) has no ServiceAccount %s → create it", ns.Name, phaseOf(ns), name),
		Values:  map[string]string{"namespace": ns.Name},
		Source:  decisionSource,
	})
}

// phaseOf is ns's phase, Active when not yet written.
func phaseOf(ns *api.Namespace) api.NamespacePhase {
	if ns.Status.Phase == "" {
		return api.NamespaceActive
	}
	return ns.Status.Phase
}
