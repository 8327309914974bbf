// Package simload is the load model of kplane's simulated container
// runtime: what CPU and memory a simulated container "uses", read from its
// pod's annotations, so that a lesson can drive `kubectl top` and the
// horizontal pod autoscaler with one `kubectl annotate`.
//
// Upstream has no such thing: a real container's usage is measured by the
// container runtime (cAdvisor reads the cgroup's cpuacct and memory
// files). In kplane's simulated runtime nothing runs, so the pod says what
// its containers use:
//
//	sim.kplane.io/cpu: 300m              every container of the pod uses 300m
//	sim.kplane.io/memory: 200Mi          … and has a 200Mi working set
//	sim.kplane.io/cpu.<container>: 50m   this container instead (wins)
//	sim.kplane.io/memory.<container>: …
//	sim.kplane.io/noise: "0"             no noise for this pod
//
// Each sample is the figure reduced by a random noise of up to MaxNoise
// (2 %), one-sided so that a pod at exactly the figure never reports more:
// the HPA's ceil() of a ratio just over a whole number would otherwise add
// a replica too many. Without annotations a container is idle
// (DefaultMilliCPU, DefaultMemoryBytes). A node's usage is the sum of its
// pods' plus a base for the system (NodeBaseMilliCPU, NodeBaseMemoryBytes).
//
// The package is neutral ground: the kubelet's simulated runtime computes
// usage with it, the apiserver's admission copies a workload's load
// annotations to its new pods with it (LoadAnnotations), and `ctl load`
// writes them with it. docs/kubelet.md §4 documents the model.
package simload

import (
	"fmt"
	"strings"

	"kplane/pkg/api"
)

// Prefix starts every annotation of the simulated runtime.
const Prefix = "sim.kplane.io/"

// The load annotations. CPUAnnotation and MemoryAnnotation may also be
// written with a ".<container>" suffix for one container.
const (
	// CPUAnnotation is the CPU each container uses, a quantity ("300m", "1.5").
	CPUAnnotation = Prefix + "cpu"
	// MemoryAnnotation is each container's working set, a quantity ("200Mi").
	MemoryAnnotation = Prefix + "memory"
	// NoiseAnnotation set to "0" (or "off", "false") turns the noise off
	// for the pod, so it reports exactly its figures.
	NoiseAnnotation = Prefix + "noise"
)

// The model's constants.
const (
	// MaxNoise is the largest fraction by which a sample is below its
	// figure: 2 %, enough that `kubectl top` looks alive, too little to
	// move an HPA past its 10 % tolerance.
	MaxNoise = 0.02
	// DefaultMilliCPU and DefaultMemoryBytes are an idle container's usage
	// (1m, 1Mi), what a container without load annotations reports.
	DefaultMilliCPU    = 1
	DefaultMemoryBytes = 1 << 20
	// NodeBaseMilliCPU and NodeBaseMemoryBytes are what a node uses beyond
	// its pods (the kubelet, the runtime, the system's daemons): 100m and
	// 256Mi, a small real node's idle figures.
	NodeBaseMilliCPU    = 100
	NodeBaseMemoryBytes = 256 << 20
)

// Load is what one container uses, before noise.
type Load struct {
	// MilliCPU is the CPU in millicores.
	MilliCPU int64
	// MemoryBytes is the working set in bytes.
	MemoryBytes int64
	// Noisy is false when the pod's NoiseAnnotation turned the noise off.
	Noisy bool
}

// IsLoadAnnotation reports whether key is one of the load annotations
// (with or without a container suffix).
func IsLoadAnnotation(key string) bool {
	if key == NoiseAnnotation {
		return true
	}
	for _, base := range []string{CPUAnnotation, MemoryAnnotation} {
		if key == base || (strings.HasPrefix(key, base+".") && len(key) > len(base)+1) {
			return true
		}
	}
	return false
}

// LoadAnnotations returns the load annotations among annotations (nil when
// there are none).
func LoadAnnotations(annotations map[string]string) map[string]string {
	var out map[string]string
	for k, v := range annotations {
		if IsLoadAnnotation(k) {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// HasLoad reports whether annotations hold any load annotation.
func HasLoad(annotations map[string]string) bool {
	for k := range annotations {
		if IsLoadAnnotation(k) {
			return true
		}
	}
	return false
}

// ContainerLoad reads the load of container from its pod's annotations:
// the per-container form wins over the pod-wide one, and a missing or
// unreadable figure falls back to the idle default. Unreadable values are
// returned in problems so the caller can log them.
func ContainerLoad(annotations map[string]string, container string) (load Load, problems []error) {
	load = Load{MilliCPU: DefaultMilliCPU, MemoryBytes: DefaultMemoryBytes, Noisy: noisy(annotations)}
	if q, ok, err := quantity(annotations, CPUAnnotation, container); err != nil {
		problems = append(problems, err)
	} else if ok {
		load.MilliCPU = q.MilliValue()
	}
	if q, ok, err := quantity(annotations, MemoryAnnotation, container); err != nil {
		problems = append(problems, err)
	} else if ok {
		load.MemoryBytes = q.Value()
	}
	return load, problems
}

// quantity reads key (preferring key.<container>) as a non-negative quantity.
func quantity(annotations map[string]string, key, container string) (api.Quantity, bool, error) {
	v, name, ok := Annotation(annotations, key, container)
	if !ok {
		return api.Quantity{}, false, nil
	}
	q, err := ParseFigure(v)
	if err != nil {
		return api.Quantity{}, false, fmt.Errorf("%s: %w", name, err)
	}
	return q, true, nil
}

// Annotation returns the value of the annotation key for container,
// preferring the per-container form "key.<container>" over the pod-wide
// key, and the name it was found under (for error messages).
func Annotation(annotations map[string]string, key, container string) (value, name string, ok bool) {
	name = key + "." + container
	if value, ok = annotations[name]; ok {
		return value, name, true
	}
	value, ok = annotations[key]
	return value, key, ok
}

// ParseFigure parses a load figure: a non-negative quantity.
func ParseFigure(s string) (api.Quantity, error) {
	q, err := api.ParseQuantity(strings.TrimSpace(s))
	if err != nil {
		return api.Quantity{}, fmt.Errorf("%q is not a quantity: %w", s, err)
	}
	if q.Sign() < 0 {
		return api.Quantity{}, fmt.Errorf("%q is negative", s)
	}
	return q, nil
}

// noisy reports whether the pod's samples carry noise.
func noisy(annotations map[string]string) bool {
	switch strings.ToLower(strings.TrimSpace(annotations[NoiseAnnotation])) {
	case "0", "off", "false", "no":
		return false
	}
	return true
}
