// Package fault runs the faults `ctl fault` injects and the web view's fault
// buttons click, once for both: each function does the fault through the
// components' debug APIs (pkg/debug) and answers what it did and what to
// watch for next, as text ctl prints and the page shows.
package fault
