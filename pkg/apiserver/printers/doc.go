// Package printers defines the columns `kubectl get` shows for every kind
// kplane serves, and fills them in for one object at a time.
//
// kubectl does not format objects itself. It asks the apiserver for a
// meta.k8s.io/v1 Table (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`)
// and prints the columns as they come, upper-casing the names and leaving
// out the priority-1 columns unless told `-o wide`. So the columns — their
// names, their order, and the way a cell such as a pod's STATUS is worked out
// — live here, on the server, and are the ones upstream Kubernetes v1.32
// prints (upstream keeps them in pkg/printers/internalversion).
//
// Columns(kind) gives a kind's column definitions; Cells(obj, now) gives one
// object's row in that order. Time is passed in rather than read, so that an
// AGE computed in a test is the same on every run; Row adds the object's
// metadata, which the server sends with each row by default.
//
// Laying a Table out as text is the client's job, and kplane has one
// renderer for it: ctl's (pkg/ctl/printers.TablePrinter). The golden files
// in testdata/ are printed through it, so they show what `ctl get` prints;
// they were checked byte for byte against kubectl 1.32.
package printers
