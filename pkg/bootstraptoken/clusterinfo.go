package bootstraptoken

import (
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/kubeconfig"
)

// NewClusterInfo builds kube-public/cluster-info as `kubeadm init`
// publishes it: a kubeconfig with one cluster (server and CA data) and no
// user, unsigned; the bootstrapsigner adds the signatures.
func NewClusterInfo(server string, caPEM []byte) (*api.ConfigMap, error) {
	cfg := &kubeconfig.Config{
		APIVersion: "v1",
		Kind:       "Config",
		Clusters: []kubeconfig.NamedCluster{{Name: "",
			Cluster: kubeconfig.Cluster{Server: server, CertificateAuthorityData: caPEM}}},
	}
	data, err := cfg.Marshal()
	if err != nil {
		return nil, fmt.Errorf("build cluster-info: %w", err)
	}
	return &api.ConfigMap{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: api.ObjectMeta{Name: ClusterInfoName, Namespace: ClusterInfoNamespace},
		Data:       map[string]string{KubeconfigKey: string(data)},
	}, nil
}
