package runtime

// This file keeps the simulated runtime's writable files: one
// simshell.PodStorage per pod, holding the pod's emptyDir volumes and the
// quota of all it writes, and in it a writable layer per container run.
// Nothing runs in a simulated container, but `kubectl cp` and
// `kubectl exec -- sh -c 'echo hi > /tmp/a'` write through the simulated
// shell, and what they write must last as on a real node: the layer as long
// as the run (a restarted container starts from its image again), the
// emptyDir volumes as long as the pod. All of it is in the kubelet's
// memory, bounded by simshell.DefaultStorageLimit per pod.

import "kplane/pkg/kubelet/runtime/simshell"

// podStorage returns the writable storage of the pod with uid, made on
// first use.
func (s *Simulated) podStorage(uid string) *simshell.PodStorage {
	s.storageMu.Lock()
	defer s.storageMu.Unlock()
	st, ok := s.storage[uid]
	if !ok {
		st = simshell.NewPodStorage(simshell.DefaultStorageLimit)
		s.storage[uid] = st
	}
	return st
}

// ForgetPod drops a deleted pod's storage, its emptyDir volumes with it
// (PodForgetter). A session still open in one of its containers keeps
// what it holds until it ends.
func (s *Simulated) ForgetPod(uid string) {
	s.storageMu.Lock()
	defer s.storageMu.Unlock()
	delete(s.storage, uid)
}
