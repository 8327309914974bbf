package printers

import (
	"time"

	"kplane/pkg/api"
)

var leaseColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Holder", "Who holds the lease: the leader's identity, or the node for a node lease."),
	ageColumn,
}

func leaseCells(lease *api.Lease, now time.Time) []any {
	holder := ""
	if lease.Spec.HolderIdentity != nil {
		holder = *lease.Spec.HolderIdentity
	}
	return []any{lease.Name, holder, age(lease.CreationTimestamp, now)}
}
