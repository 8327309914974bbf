package api

// This file holds the coordination.k8s.io/v1 Lease, the lock record used for
// leader election and for node heartbeats.

// Lease records who holds a lock and until when. Leader election renews a
// Lease in kube-system; each kubelet renews one named after its node in
// kube-node-lease as a cheap heartbeat.
type Lease struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       LeaseSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// LeaseSpec is the holder and timing of a Lease. A lease has expired when
// renewTime + leaseDurationSeconds is in the past.
type LeaseSpec struct {
	HolderIdentity       *string    `json:"holderIdentity,omitempty" protobuf:"bytes,1,opt,name=holderIdentity"`
	LeaseDurationSeconds *int32     `json:"leaseDurationSeconds,omitempty" protobuf:"varint,2,opt,name=leaseDurationSeconds"`
	AcquireTime          *MicroTime `json:"acquireTime,omitempty" protobuf:"bytes,3,opt,name=acquireTime"`
	RenewTime            *MicroTime `json:"renewTime,omitempty" protobuf:"bytes,4,opt,name=renewTime"`
	LeaseTransitions     *int32     `json:"leaseTransitions,omitempty" protobuf:"varint,5,opt,name=leaseTransitions"`
	Strategy             *string    `json:"strategy,omitempty" protobuf:"bytes,6,opt,name=strategy"`
	PreferredHolder      *string    `json:"preferredHolder,omitempty" protobuf:"bytes,7,opt,name=preferredHolder"`
}
