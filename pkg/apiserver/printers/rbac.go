package printers

import (
	"strings"
	"time"

	"kplane/pkg/api"
)

// Roles and ClusterRoles have no printer upstream and get the default table.

// Both kinds of role binding print alike; the subjects show only with -o wide.
var roleBindingColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Role", "The role the binding grants, as Kind/name."),
	ageColumn,
	wide(text("Users", "The users the binding grants the role to.")),
	wide(text("Groups", "The groups the binding grants the role to.")),
	wide(text("ServiceAccounts", "The service accounts the binding grants the role to, as namespace/name.")),
}

// roleBindingCells is upstream's printRoleBinding and printClusterRoleBinding:
// ROLE as Kind/name, then the subjects sorted into users, groups and service
// accounts, each list joined by ", ".
func roleBindingCells(meta *api.ObjectMeta, roleRef api.RoleRef, subjects []api.Subject, now time.Time) []any {
	var users, groups, serviceAccounts []string
	for _, s := range subjects {
		switch s.Kind {
		case api.UserKind:
			users = append(users, s.Name)
		case api.GroupKind:
			groups = append(groups, s.Name)
		case api.ServiceAccountKind:
			serviceAccounts = append(serviceAccounts, s.Namespace+"/"+s.Name)
		}
	}
	return []any{
		meta.Name,
		roleRef.Kind + "/" + roleRef.Name,
		age(meta.CreationTimestamp, now),
		strings.Join(users, ", "),
		strings.Join(groups, ", "),
		strings.Join(serviceAccounts, ", "),
	}
}
