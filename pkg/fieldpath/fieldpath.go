// Package fieldpath reads the pod fields the downward API exposes, by
// their field paths: what an environment variable's fieldRef or a
// downwardAPI volume item names. The kubelet sets them in containers, and
// `kubectl describe` shows the values a pod's variables get.
//
// Two functions, as upstream has two:
//
//   - ExtractFieldPathAsString reads metadata fields only, as upstream's
//     pkg/fieldpath does: what a downwardAPI volume may name.
//   - PodFieldValue adds the spec and status fields an environment variable
//     may name (spec.nodeName, status.podIP, …), as upstream's kubelet does
//     in podFieldSelectorRuntimeValue before falling back to the first.
//
// A whole map (metadata.labels, metadata.annotations) is written by
// FormatMap: key="value" lines, sorted by key.
package fieldpath

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"kplane/pkg/api"
)

// ExtractFieldPathAsString returns the value of a metadata field of pod:
// metadata.name, .namespace, .uid, .labels and .annotations (whole maps,
// in FormatMap's form), and one key of the maps as metadata.labels['k'] or
// metadata.annotations['k'] (a missing key is ""). Any other path is an
// error.
func ExtractFieldPathAsString(pod *api.Pod, fieldPath string) (string, error) {
	if key, ok := subscript(fieldPath, "metadata.labels"); ok {
		return pod.Labels[key], nil
	}
	if key, ok := subscript(fieldPath, "metadata.annotations"); ok {
		return pod.Annotations[key], nil
	}
	switch fieldPath {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return pod.UID, nil
	case "metadata.labels":
		return FormatMap(pod.Labels), nil
	case "metadata.annotations":
		return FormatMap(pod.Annotations), nil
	}
	return "", fmt.Errorf("unsupported fieldPath: %s", fieldPath)
}

// PodFieldValue returns the value of any field the downward API exposes:
// the spec and status fields below, else a metadata field as
// ExtractFieldPathAsString reads it. The IP lists are comma-separated.
func PodFieldValue(pod *api.Pod, fieldPath string) (string, error) {
	switch fieldPath {
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.hostIP":
		return pod.Status.HostIP, nil
	case "status.hostIPs":
		ips := make([]string, len(pod.Status.HostIPs))
		for i, ip := range pod.Status.HostIPs {
			ips[i] = ip.IP
		}
		return strings.Join(ips, ","), nil
	case "status.podIP":
		return pod.Status.PodIP, nil
	case "status.podIPs":
		ips := make([]string, len(pod.Status.PodIPs))
		for i, ip := range pod.Status.PodIPs {
			ips[i] = ip.IP
		}
		return strings.Join(ips, ","), nil
	}
	return ExtractFieldPathAsString(pod, fieldPath)
}

// FormatMap writes a map as the downward API does: one key="value" line
// per key, sorted by key, the value quoted as Go quotes strings.
func FormatMap(m map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%s=%q\n", k, m[k])
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// subscript parses "prefix['key']" and returns key.
func subscript(fieldPath, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(fieldPath, prefix+"['")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, "']")
}
