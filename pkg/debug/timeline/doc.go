// Package timeline merges the two records a cluster keeps of what happened
// into one list in time order: the Events the controllers, the scheduler
// and the kubelets recorded (core/v1 and events.k8s.io share their
// storage), and the API writes each component made, read from the
// components' debug journals (package debug) and paired with the
// apiserver's record of storing them. `ctl timeline` prints the list and
// the web view's Timeline panel shows it, both through this package, so
// they tell the same story.
//
// The list is bounded: the journals are rings (--debug-ring-size), Events
// expire after an hour, and Merge keeps the newest Filter.Limit entries.
package timeline
