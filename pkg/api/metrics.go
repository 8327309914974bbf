package api

// This file holds the resource metrics API, metrics.k8s.io/v1beta1: what
// metrics-server serves from the kubelets' figures and what `kubectl top`
// and the horizontal pod autoscaler read. The objects are not stored
// anywhere; each is computed from the latest scrapes when asked for.

import (
	"encoding/json"
	"fmt"
	"time"
)

// NodeMetrics is a node's CPU and memory use over a short window.
type NodeMetrics struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Timestamp is the end of the window the usage was measured over.
	Timestamp Time `json:"timestamp" protobuf:"bytes,2,opt,name=timestamp"`
	// Window is how long the measurement lasted (CPU is the average rate
	// over it).
	Window Duration `json:"window" protobuf:"bytes,3,opt,name=window"`
	// Usage has "cpu" in cores and "memory" (the working set) in bytes.
	Usage ResourceList `json:"usage" protobuf:"bytes,4,rep,name=usage"`
}

// PodMetrics is the CPU and memory use of each of a pod's containers.
type PodMetrics struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Timestamp and Window as in NodeMetrics.
	Timestamp Time     `json:"timestamp" protobuf:"bytes,2,opt,name=timestamp"`
	Window    Duration `json:"window" protobuf:"bytes,3,opt,name=window"`
	// Containers is one entry per running container.
	Containers []ContainerMetrics `json:"containers" protobuf:"bytes,4,rep,name=containers"`
}

// ContainerMetrics is one container's usage.
type ContainerMetrics struct {
	Name  string       `json:"name" protobuf:"bytes,1,opt,name=name"`
	Usage ResourceList `json:"usage" protobuf:"bytes,2,rep,name=usage"`
}

// Duration is a length of time written as Go prints it ("15s", "1m30s"),
// as metav1.Duration is.
type Duration struct {
	time.Duration `protobuf:"varint,1,opt,name=duration,casttype=time.Duration"`
}

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.Duration.String()) }

// UnmarshalJSON reads a duration string such as "15s".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration must be a string such as \"15s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}
