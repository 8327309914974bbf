// Package lab holds kplane's guided labs: the seeds' scenarios (a Job,
// a StatefulSet and its DNS names, a DaemonSet, a Deployment's rollout,
// deletion with and without cascading, leader-election failover, …) as
// steps a student follows against a running cluster.
//
// A Lab is data plus checks. Each Step says what to do (the commands and
// the embedded YAML they use), how to tell that it was done — a Check
// that reads the cluster's real state through pkg/client, never a
// record of what the student typed — what happened inside the control
// plane (which components acted, and which `ctl trace`, `ctl why` and
// `ctl queues` views show it), and hints. Every text is written in
// English and in Chinese side by side (Text), so both languages always
// tell the same lab.
//
// Progress — which lab, which step, how many hints were shown — lives in
// the cluster, in the ConfigMap kube-system/kplane-lab (progress.go), so
// `ctl lab` and the web page (`ctl ui`) read and move the same progress
// with the same credentials. `ctl lab` (pkg/ctl/lab.go) only renders what
// this package decides; docs/labs.md is the student's guide.
package lab
