package kubelet

// This file answers "which run of this container?" for the logs server
// (`kubectl logs`, `kubectl logs --previous`), with upstream's errors when
// there is none.

import (
	"errors"
	"fmt"
	"net/http"

	"kplane/pkg/api"
	"kplane/pkg/kubelet/runtime"
)

// ContainerLookupError says why FindContainer returned no container. Code
// is the HTTP status a server should answer with; Message is upstream's
// wording of the problem.
type ContainerLookupError struct {
	Code    int
	Message string
}

// Error returns the message.
func (e *ContainerLookupError) Error() string { return e.Message }

// StatusCode is the HTTP status to answer with (package server's
// StatusCoder).
func (e *ContainerLookupError) StatusCode() int { return e.Code }

// IsContainerLookupNotFound reports whether err is a ContainerLookupError
// with code 404.
func IsContainerLookupNotFound(err error) bool {
	var le *ContainerLookupError
	return errors.As(err, &le) && le.Code == http.StatusNotFound
}

// findContainer returns the latest run of a container (or the run before
// it, with previous) for `kubectl logs`. An empty name picks the pod's only
// container.
func (w *podWorker) findContainer(name string, previous bool) (runtime.Container, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	pod := w.pod
	if name == "" {
		if len(pod.Spec.Containers) != 1 {
			names := make([]string, len(pod.Spec.Containers))
			for i, c := range pod.Spec.Containers {
				names[i] = c.Name
			}
			return nil, &ContainerLookupError{http.StatusBadRequest,
				fmt.Sprintf("a container name must be specified for pod %s, choose one of: %v", pod.Name, names)}
		}
		name = pod.Spec.Containers[0].Name
	}
	known := false
	for _, list := range [][]api.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range list {
			known = known || c.Name == name
		}
	}
	if !known {
		return nil, &ContainerLookupError{http.StatusBadRequest,
			fmt.Sprintf("container %s is not valid for pod %s", name, pod.Name)}
	}
	st := w.containers[name]
	if previous {
		if st == nil || st.previous == nil {
			return nil, &ContainerLookupError{http.StatusBadRequest,
				fmt.Sprintf("previous terminated container %q in pod %q not found", name, pod.Name)}
		}
		return st.previous, nil
	}
	if st == nil || st.current == nil {
		return nil, &ContainerLookupError{http.StatusBadRequest,
			fmt.Sprintf("container %q in pod %q is waiting to start: %s", name, pod.Name, reasonContainerCreating)}
	}
	if st.current.container == nil {
		return nil, &ContainerLookupError{http.StatusNotFound,
			fmt.Sprintf("the logs of container %q in pod %q were lost when its run ended before this kubelet started", name, pod.Name)}
	}
	return st.current.container, nil
}

// FindContainer implements ContainerFinder for this node's pods.
func (k *Kubelet) FindContainer(namespace, podName, containerName string, previous bool) (runtime.Container, error) {
	k.mu.Lock()
	var found *podWorker
	for _, w := range k.workers {
		if pod := w.currentPod(); pod.Namespace == namespace && pod.Name == podName {
			if found == nil || pod.CreationTimestamp.After(found.currentPod().CreationTimestamp.Time) {
				found = w
			}
		}
	}
	k.mu.Unlock()
	if found == nil {
		return nil, &ContainerLookupError{http.StatusNotFound, fmt.Sprintf("pod %s/%s is not running on node %s", namespace, podName, k.nodeName)}
	}
	return found.findContainer(containerName, previous)
}

// FindPod returns the pod of this node named namespace/podName (the newest,
// if a pod was recreated under its name) and the node's runtime.
func (k *Kubelet) FindPod(namespace, podName string) (*api.Pod, runtime.Runtime, error) {
	k.mu.Lock()
	var found *api.Pod
	for _, w := range k.workers {
		if pod := w.currentPod(); pod.Namespace == namespace && pod.Name == podName {
			if found == nil || pod.CreationTimestamp.After(found.CreationTimestamp.Time) {
				found = pod
			}
		}
	}
	k.mu.Unlock()
	if found == nil {
		return nil, nil, &ContainerLookupError{http.StatusNotFound, fmt.Sprintf("pod %s/%s is not running on node %s", namespace, podName, k.nodeName)}
	}
	return found, k.runtime, nil
}
