package kubelet

// This file keeps the node's ServiceAccount token cache small: tokens of
// deleted pods are forgotten at once (handlePodDeleted), and expired ones
// — a pod that stopped asking — are swept every minute, as upstream's
// token manager's cleanup loop does.

import (
	"context"
	"errors"
	"time"

	"kplane/pkg/api"
)

// tokenCleanupPeriod is how often expired tokens are dropped: upstream's
// gcPeriod, 1 min.
const tokenCleanupPeriod = time.Minute

// cleanUpTokens drops expired tokens every tokenCleanupPeriod until ctx ends.
func (k *Kubelet) cleanUpTokens(ctx context.Context) {
	ticker := k.clock.NewTicker(tokenCleanupPeriod)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
			k.tokens.Cleanup()
		}
	}
}

// PodToken issues the pod's ServiceAccount token for a projected volume
// (projected.TokenSource), through the node's token manager.
func (s shellCluster) PodToken(ctx context.Context, pod *api.Pod, audience string, expirationSeconds int64) (string, error) {
	if s.tokens == nil {
		return "", errors.New("this kubelet issues no ServiceAccount tokens")
	}
	return s.tokens.PodToken(ctx, pod, audience, expirationSeconds)
}
