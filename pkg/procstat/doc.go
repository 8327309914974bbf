// Package procstat reads what the kernel knows about a process — its
// resident memory and the CPU time it has used — from /proc/<pid>. `ctl
// status` shows it for every component, and the benchmarks (W2's idle
// footprint, W6's CPU accounting, `make bench-scale`) measure with it.
// On systems without /proc every function returns an error.
package procstat
