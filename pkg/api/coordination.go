package api

// This file holds the coordination.k8s.io/v1 Lease, the lock record used for
// leader election and for node heartbeats.

// Lease records who holds a lock and until when. Leader election renews a
// Lease in kube-system; each kubelet renews one named after its node in
// kube-node-lease as a cheap heartbeat.
type Lease struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       LeaseSpec `json:"spec,omitempty"`
}

// LeaseSpec is the holder and timing of a Lease. A lease has expired when
// renewTime + leaseDurationSeconds is in the past.
type LeaseSpec struct {
	HolderIdentity       *string    `json:"holderIdentity,omitempty"`
	LeaseDurationSeconds *int32     `json:"leaseDurationSeconds,omitempty"`
	AcquireTime          *MicroTime `json:"acquireTime,omitempty"`
	RenewTime            *MicroTime `json:"renewTime,omitempty"`
	LeaseTransitions     *int32     `json:"leaseTransitions,omitempty"`
	Strategy             *string    `json:"strategy,omitempty"`
	PreferredHolder      *string    `json:"preferredHolder,omitempty"`
}
