package cluster

import (
	"fmt"

	"kplane/pkg/auth"
	"kplane/pkg/kubeconfig"
)

// prepareTokens makes sure DATA_DIR/pki/tokens.csv holds a token for every
// identity in the plan. It must run before the apiserver starts: the
// apiserver reads the token file once, at start, exactly like
// kube-apiserver's --token-auth-file, so a token added later would be
// refused until the next restart. On a second Up the file already exists
// and every component keeps its token.
func prepareTokens(l layout, plan []component) (*auth.TokenFile, error) {
	tokens, err := auth.EnsureTokens(l.pkiDir())
	if err != nil {
		return nil, fmt.Errorf("prepare tokens: %w", err)
	}
	for _, c := range credentialsOf(plan) {
		if _, err := tokens.EnsureUser(c.user); err != nil {
			return nil, fmt.Errorf("prepare token for %s: %w", c.name, err)
		}
		// A data dir written before the simulated network had its own
		// RBAC role lists it in system:masters; take that away.
		if c.name == simulatedNetwork.name {
			if _, err := tokens.SetGroups(c.user.Name, c.user.Groups); err != nil {
				return nil, fmt.Errorf("prepare token for %s: %w", c.name, err)
			}
		}
	}
	return tokens, nil
}

// credential is one kubeconfig Up writes: DATA_DIR/kubeconfigs/<name>.kubeconfig
// for user.
type credential struct {
	name string
	user auth.User
}

// simulatedNetwork is the identity of the simulated runtime's network
// (kubelet --network-kubeconfig): it reads the pod behind an address on
// any node, which a kubelet's own credentials may not (the Node
// authorizer). A real network needs no credentials; this stand-in gets
// exactly what it reads, get/list/watch of pods, from the bootstrap
// policy's kplane:simulated-network ClusterRole, and no group beyond
// system:authenticated.
var simulatedNetwork = credential{name: "simulated-network",
	user: auth.User{Name: auth.SimulatedNetworkUserName}}

// credentialsOf lists the kubeconfigs the plan needs: one per component
// with a user, and the simulated network's when a kubelet runs.
func credentialsOf(plan []component) []credential {
	var out []credential
	kubelets := false
	for _, c := range plan {
		if c.user.Name == "" {
			continue
		}
		out = append(out, credential{name: c.name, user: c.user})
		kubelets = kubelets || c.role == roleKubelet
	}
	if kubelets {
		out = append(out, simulatedNetwork)
	}
	return out
}

// writeKubeconfigs gives every component except the apiserver a kubeconfig
// of its own in DATA_DIR/kubeconfigs/<component>.kubeconfig: the server
// URL, the cluster CA and the component's own token, so the apiserver's
// logs and the objects' managedFields say who did what (kubeadm writes
// scheduler.conf, controller-manager.conf and kubelet.conf the same way).
func writeKubeconfigs(l layout, plan []component, tokens *auth.TokenFile, server string, caPEM []byte) error {
	for _, c := range credentialsOf(plan) {
		token, ok := tokens.TokenFor(c.user.Name)
		if !ok {
			return fmt.Errorf("kubeconfig for %s: no token for %s", c.name, c.user.Name)
		}
		cfg := kubeconfig.New(kubeconfig.AdminClusterName, server, caPEM, c.user.Name, token)
		if err := cfg.WriteFile(l.kubeconfig(c.name)); err != nil {
			return fmt.Errorf("kubeconfig for %s: %w", c.name, err)
		}
	}
	return nil
}

// readAdminKubeconfig returns the server URL and CA the apiserver wrote into
// the admin kubeconfig, which are what every other kubeconfig needs.
func readAdminKubeconfig(path string) (server string, caPEM []byte, err error) {
	kc, err := kubeconfig.Load(path)
	if err != nil {
		return "", nil, err
	}
	resolved, err := kc.Resolve("")
	if err != nil {
		return "", nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	return resolved.Server, resolved.CAPEM, nil
}
