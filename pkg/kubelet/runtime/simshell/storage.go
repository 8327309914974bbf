package simshell

// This file is a pod's writable storage in the simulated runtime: the
// writable layer of each of its containers and its writable volumes, all
// in the kubelet's memory and all drawing on one quota.
//
// The lifetimes are a real node's. A container's writable layer (what
// overlayfs gives containerd's containers) lives as long as that run of
// the container: a file written in one `kubectl exec` is there in the next,
// and gone once the container restarts. An emptyDir volume lives as long
// as the pod: every container that mounts it sees the same files, and a
// container restart keeps them. The runtime (simulated_storage.go in
// package runtime) keeps one PodStorage per pod and drops it when the pod
// is deleted.

import (
	"sync"
	"time"
)

// DefaultStorageLimit is how many bytes the writable files of one pod may
// take, all its containers' layers and volumes together: 64 MiB, enough for
// any file a tutorial copies in, small enough that a student's `kubectl cp`
// of a disk image cannot exhaust the kubelet's memory. Past it writes fail
// with "No space left on device", as on a full disk.
const DefaultStorageLimit int64 = 64 << 20

// PodStorage is one pod's writable storage: its writable volumes by name
// and the quota they and its containers' layers share. It is safe for
// concurrent use (sessions of several containers of a pod write at once);
// mu guards every tree charged to it.
type PodStorage struct {
	mu sync.Mutex
	// limit is the quota in bytes (negative: none); used is what the
	// trees charged to it hold, content and entryCost per file and
	// directory. Invariant: used is the sum of the costs of the nodes of
	// its unreleased trees, their roots excepted (a root costs nothing).
	limit, used int64
	// volumes are the pod's writable volumes (emptyDir, and the kinds
	// kplane does not back with anything longer-lived), made on first use.
	volumes map[string]*Tree
}

// NewPodStorage returns the storage of a pod whose writable files may take
// limit bytes (DefaultStorageLimit is the kubelet's).
func NewPodStorage(limit int64) *PodStorage {
	return &PodStorage{limit: limit, volumes: map[string]*Tree{}}
}

// newUnlimitedStorage is storage without a quota, for files the pod did
// not write.
func newUnlimitedStorage() *PodStorage { return NewPodStorage(-1) }

// NewLayer returns a new, empty writable layer for a run of one of the
// pod's containers; the shell gives it the image's files in its first
// session. Release it when the run exits.
func (s *PodStorage) NewLayer() *Tree { return newTree(s, time.Time{}) }

// volume returns the pod's writable volume named name, empty the first time.
func (s *PodStorage) volume(name string, now time.Time) *Tree {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.volumes[name]
	if !ok {
		t = newTree(s, now)
		s.volumes[name] = t
	}
	return t
}

// Used returns how many bytes of the quota the pod's files take.
func (s *PodStorage) Used() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used
}
