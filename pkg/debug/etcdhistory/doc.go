// Package etcdhistory reads and explains what the apiserver keeps in etcd,
// through its debug API (package debug's etcd routes): every page of keys
// under a prefix, and what each revision of a key's history changed. Both
// `ctl etcd` and the web view's etcd panel use it, so they tell the same
// story.
package etcdhistory
