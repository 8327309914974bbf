// Package projected computes the files of a projected volume: the
// ServiceAccount token, ConfigMap and Secret keys, and pod fields that
// several sources put into one directory. It is how every pod gets its
// API credentials: the ServiceAccount admission plugin adds the volume
// kube-api-access-xxxxx, projected at /var/run/secrets/kubernetes.io/serviceaccount,
// with three files:
//
//	token      a ServiceAccount token bound to the pod (serviceAccountToken source)
//	ca.crt     the cluster CA (the kube-root-ca.crt ConfigMap's ca.crt key)
//	namespace  the pod's namespace (a downwardAPI source on metadata.namespace)
//
// Upstream writes them atomically into a tmpfs the container mounts
// (pkg/volume/projected/projected.go, pkg/volume/util/atomic_writer.go)
// and rewrites them when the token is refreshed. kplane computes them as
// strings, which the runtimes show: the simulated shell answers
// `cat /var/run/secrets/kubernetes.io/serviceaccount/token` with them.
package projected

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"kplane/pkg/api"
)

// Objects reads the ConfigMaps and Secrets a projected volume names; a
// missing object is (nil, nil).
type Objects interface {
	GetConfigMap(ctx context.Context, namespace, name string) (*api.ConfigMap, error)
	GetSecret(ctx context.Context, namespace, name string) (*api.Secret, error)
}

// TokenSource issues the pod's ServiceAccount tokens: the kubelet's token
// manager (pkg/kubelet/token).
type TokenSource interface {
	PodToken(ctx context.Context, pod *api.Pod, audience string, expirationSeconds int64) (string, error)
}

// defaultTokenExpirationSeconds is the lifetime of a token whose source
// names none: upstream's API default for expirationSeconds, 1 h.
const defaultTokenExpirationSeconds int64 = 3600

// Files returns the files of the projected volume src of pod, keyed by
// their path inside the volume. tokens may be nil, which leaves token
// files out. As upstream, a source that cannot be read fails the whole
// volume, except an optional ConfigMap or Secret that does not exist.
func Files(ctx context.Context, pod *api.Pod, src *api.ProjectedVolumeSource, objects Objects, tokens TokenSource) (map[string]string, error) {
	files := map[string]string{}
	for _, source := range src.Sources {
		var more map[string]string
		var err error
		switch {
		case source.ServiceAccountToken != nil:
			more, err = tokenFile(ctx, pod, source.ServiceAccountToken, tokens)
		case source.ConfigMap != nil:
			more, err = configMapFiles(ctx, pod, source.ConfigMap, objects)
		case source.Secret != nil:
			more, err = secretFiles(ctx, pod, source.Secret, objects)
		case source.DownwardAPI != nil:
			more, err = downwardAPIFiles(pod, source.DownwardAPI.Items)
		}
		if err != nil {
			return nil, err
		}
		maps.Copy(files, more)
	}
	return files, nil
}

// tokenFile is the serviceAccountToken source's one file.
func tokenFile(ctx context.Context, pod *api.Pod, source *api.ServiceAccountTokenProjection, tokens TokenSource) (map[string]string, error) {
	if tokens == nil {
		return nil, nil
	}
	expiration := defaultTokenExpirationSeconds
	if source.ExpirationSeconds != nil {
		expiration = *source.ExpirationSeconds
	}
	token, err := tokens.PodToken(ctx, pod, source.Audience, expiration)
	if err != nil {
		return nil, fmt.Errorf("projected token for pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return map[string]string{source.Path: token}, nil
}

// configMapFiles are a ConfigMap's keys (or the items it selects).
func configMapFiles(ctx context.Context, pod *api.Pod, source *api.ConfigMapProjection, objects Objects) (map[string]string, error) {
	cm, err := objects.GetConfigMap(ctx, pod.Namespace, source.Name)
	if err != nil {
		return nil, fmt.Errorf("projected ConfigMap %s/%s: %w", pod.Namespace, source.Name, err)
	}
	if cm == nil {
		if source.Optional != nil && *source.Optional {
			return nil, nil
		}
		return nil, fmt.Errorf("projected ConfigMap %s/%s not found", pod.Namespace, source.Name)
	}
	data := maps.Clone(cm.Data)
	if data == nil {
		data = map[string]string{}
	}
	for k, v := range cm.BinaryData {
		data[k] = string(v)
	}
	return selectItems(data, source.Items)
}

// secretFiles are a Secret's keys (or the items it selects).
func secretFiles(ctx context.Context, pod *api.Pod, source *api.SecretProjection, objects Objects) (map[string]string, error) {
	secret, err := objects.GetSecret(ctx, pod.Namespace, source.Name)
	if err != nil {
		return nil, fmt.Errorf("projected Secret %s/%s: %w", pod.Namespace, source.Name, err)
	}
	if secret == nil {
		if source.Optional != nil && *source.Optional {
			return nil, nil
		}
		return nil, fmt.Errorf("projected Secret %s/%s not found", pod.Namespace, source.Name)
	}
	data := map[string]string{}
	for k, v := range secret.Data {
		data[k] = string(v)
	}
	return selectItems(data, source.Items)
}

// selectItems keeps every key when items is empty, else the named keys
// at their paths; a missing key is an error, as upstream's.
func selectItems(data map[string]string, items []api.KeyToPath) (map[string]string, error) {
	if len(items) == 0 {
		return data, nil
	}
	selected := map[string]string{}
	for _, item := range items {
		v, ok := data[item.Key]
		if !ok {
			return nil, fmt.Errorf("configured to use key %q but it does not exist", item.Key)
		}
		selected[item.Path] = v
	}
	return selected, nil
}

// downwardAPIFiles are pod fields. A volume may name only metadata fields
// (upstream validates so); labels and annotations are written one
// key="value" a line, sorted, as upstream's FormatMap.
func downwardAPIFiles(pod *api.Pod, items []api.DownwardAPIVolumeFile) (map[string]string, error) {
	files := map[string]string{}
	for _, item := range items {
		if item.FieldRef == nil {
			continue // resourceFieldRef: kplane's containers have no cgroup limits to report
		}
		value, err := metadataField(pod, item.FieldRef.FieldPath)
		if err != nil {
			return nil, err
		}
		files[item.Path] = value
	}
	return files, nil
}

// metadataField resolves a downward-API volume field path of the pod.
func metadataField(pod *api.Pod, fieldPath string) (string, error) {
	switch fieldPath {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "metadata.labels":
		return formatMap(pod.Labels), nil
	case "metadata.annotations":
		return formatMap(pod.Annotations), nil
	}
	for _, prefix := range []string{"metadata.labels", "metadata.annotations"} {
		if key, ok := strings.CutPrefix(fieldPath, prefix+"['"); ok {
			if key, ok := strings.CutSuffix(key, "']"); ok {
				if prefix == "metadata.labels" {
					return pod.Labels[key], nil
				}
				return pod.Annotations[key], nil
			}
		}
	}
	return "", fmt.Errorf("downward API volume: unsupported field path %q", fieldPath)
}

// formatMap writes a map as key="value" lines, sorted by key.
func formatMap(m map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%s=%q\n", k, m[k])
	}
	return strings.TrimSuffix(b.String(), "\n")
}
