package kubelet

// This file gives the simulated shell the node's ServiceAccount tokens.
// The node's token manager (pkg/kubelet/token) forgets a pod's tokens when
// the pod is deleted (handlePodDeleted) and sweeps expired ones itself.

import (
	"context"
	"errors"

	"kplane/pkg/api"
)

// PodToken issues the pod's ServiceAccount token for a projected volume
// (projected.TokenSource), through the node's token manager.
func (s shellCluster) PodToken(ctx context.Context, pod *api.Pod, audience string, expirationSeconds int64) (string, error) {
	if s.tokens == nil {
		return "", errors.New("this kubelet issues no ServiceAccount tokens")
	}
	token, err := s.tokens.PodToken(ctx, pod, audience, expirationSeconds)
	if err != nil && s.log != nil {
		// Upstream's kubelet reports it as a FailedMount event of the
		// kube-api-access volume; here a log line says why the file is missing.
		s.log.Warn("cannot project the pod's ServiceAccount token", "pod", pod.Namespace+"/"+pod.Name, "err", err)
	}
	return token, err
}
