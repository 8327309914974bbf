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

	"kplane/pkg/api"
	"kplane/pkg/fieldpath"
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
			more, err = ConfigMapFiles(ctx, objects, pod.Namespace, source.ConfigMap.Name, source.ConfigMap.Items, source.ConfigMap.Optional)
		case source.Secret != nil:
			more, err = SecretFiles(ctx, objects, pod.Namespace, source.Secret.Name, source.Secret.Items, source.Secret.Optional)
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

// ConfigMapFiles are the files a ConfigMap volume or projection makes
// of the ConfigMap name in namespace: every key (data and binaryData), or
// only the items named, each at its path. As upstream, a ConfigMap that
// does not exist is an error unless optional, and so is an item whose key
// it does not hold.
func ConfigMapFiles(ctx context.Context, objects Objects, namespace, name string, items []api.KeyToPath, optional *bool) (map[string]string, error) {
	cm, err := objects.GetConfigMap(ctx, namespace, name)
	if err != nil {
		return nil, fmt.Errorf("ConfigMap %s/%s: %w", namespace, name, err)
	}
	if cm == nil {
		if optional != nil && *optional {
			return nil, nil
		}
		return nil, fmt.Errorf("ConfigMap %s/%s not found", namespace, name)
	}
	data := make(map[string]string, len(cm.Data)+len(cm.BinaryData))
	maps.Copy(data, cm.Data)
	for k, v := range cm.BinaryData {
		data[k] = string(v)
	}
	return selectItems(data, items)
}

// SecretFiles are the files a Secret volume or projection makes of the
// Secret name in namespace, as ConfigMapFiles.
func SecretFiles(ctx context.Context, objects Objects, namespace, name string, items []api.KeyToPath, optional *bool) (map[string]string, error) {
	secret, err := objects.GetSecret(ctx, namespace, name)
	if err != nil {
		return nil, fmt.Errorf("Secret %s/%s: %w", namespace, name, err)
	}
	if secret == nil {
		if optional != nil && *optional {
			return nil, nil
		}
		return nil, fmt.Errorf("Secret %s/%s not found", namespace, name)
	}
	data := make(map[string]string, len(secret.Data))
	for k, v := range secret.Data {
		data[k] = string(v)
	}
	return selectItems(data, items)
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
// key="value" a line, sorted (fieldpath.FormatMap).
func downwardAPIFiles(pod *api.Pod, items []api.DownwardAPIVolumeFile) (map[string]string, error) {
	files := map[string]string{}
	for _, item := range items {
		if item.FieldRef == nil {
			continue // resourceFieldRef: kplane's containers have no cgroup limits to report
		}
		value, err := fieldpath.ExtractFieldPathAsString(pod, item.FieldRef.FieldPath)
		if err != nil {
			return nil, fmt.Errorf("downward API volume: %w", err)
		}
		files[item.Path] = value
	}
	return files, nil
}
