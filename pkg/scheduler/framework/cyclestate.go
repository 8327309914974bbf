package framework

// CycleState is what the PreFilter plugins found out about a pod in one
// scheduling cycle and left for their Filters, each under its plugin's
// name: upstream's CycleState, reduced to what kplane's plugins need.
// VolumeBinding, for one, looks up the pod's claims and volumes once in
// PreFilter, and its Filter then checks each node against the volumes it
// found instead of reading the informer caches again per node — which
// could also see a claim change half-way through a cycle.
//
// The zero value is empty and ready to use.
//
// Invariant: only PreFilter plugins write, on the scheduling loop, before
// any Filter of the cycle runs; afterwards the state is read-only, so
// Filters may read it from any goroutine.
type CycleState struct {
	data map[string]any
}

// Write stores value under key (the writing plugin's name), replacing
// what was there.
func (s *CycleState) Write(key string, value any) {
	if s.data == nil {
		s.data = map[string]any{}
	}
	s.data[key] = value
}

// Read returns the value stored under key, or nil when there is none.
func (s *CycleState) Read(key string) any {
	return s.data[key]
}
