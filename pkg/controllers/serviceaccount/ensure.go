package serviceaccount

import "kplane/pkg/api"

// DefaultServiceAccountName is the ServiceAccount every namespace gets. The
// apiserver's admission fills a pod's empty spec.serviceAccountName with it,
// so a pod that names no account runs as "default".
const DefaultServiceAccountName = "default"

// acceptsServiceAccounts reports whether the controller may create accounts
// in ns. A namespace that is being deleted gets none: the namespace
// controller is emptying it, NamespaceLifecycle admission would refuse the
// create anyway, and recreating what the namespace controller just deleted
// would only make it loop. Upstream checks the phase alone; the
// deletionTimestamp check covers the moment before the phase is written.
func acceptsServiceAccounts(ns *api.Namespace) bool {
	return ns.Status.Phase != api.NamespaceTerminating && ns.DeletionTimestamp == nil
}

// serviceAccountsToCreate returns, in the order of want, the account names
// that ns should have and does not: exists reports whether the informer's
// cache holds an account of that name in ns. It returns nothing for a
// namespace that does not accept accounts.
func serviceAccountsToCreate(ns *api.Namespace, want []string, exists func(name string) bool) []string {
	if !acceptsServiceAccounts(ns) {
		return nil
	}
	var missing []string
	for _, name := range want {
		if !exists(name) {
			missing = append(missing, name)
		}
	}
	return missing
}
