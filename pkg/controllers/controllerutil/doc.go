// Package controllerutil holds what every kplane controller shares: the worker
// loop that drains a workqueue into a sync function, controller
// expectations, ownerReference helpers (adopting and releasing objects by
// selector), pod readiness and availability, and PodControl, the one place
// pods are created and deleted on a controller's behalf.
//
// It is not a controller itself: the controllers live one per folder beside
// it under pkg/controllers (deployment, replicaset, …) and import it; see
// docs/controllers.md for how a change flows from an informer event to an
// API write.
package controllerutil
