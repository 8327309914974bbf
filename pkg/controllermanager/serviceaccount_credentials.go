package controllermanager

// This file is --use-service-account-credentials: each controller talks to
// the apiserver as its own kube-system ServiceAccount
// (system:serviceaccount:kube-system:<Descriptor.ServiceAccount>), so the
// bootstrap policy's system:controller:<name> role bounds what it can do —
// a bug in the job controller cannot delete Nodes. It mirrors upstream's
// DynamicControllerClientBuilder (k8s.io/controller-manager/pkg/clientbuilder):
// the manager's own identity creates the ServiceAccount when it is missing
// and asks the TokenRequest API for an hour-long token, which is replaced
// once 80 % of its lifetime has passed. The shared informers keep using
// the manager's own client and identity, as upstream's do.

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/clock"
)

// ServiceAccountTokenExpiration is the lifetime asked for each controller
// token: upstream's builder asks for 3600 s.
const ServiceAccountTokenExpiration = time.Hour

// serviceAccountTokenRefreshFraction is when a token is replaced: after 80 %
// of its lifetime (upstream's 20 % leeway), leaving a fifth of it to ride
// out an apiserver that does not answer.
const serviceAccountTokenRefreshFraction = 0.8

// ControllerNamespace holds the controllers' ServiceAccounts.
const ControllerNamespace = "kube-system"

// serviceAccountTokenSource is the bearer token of one kube-system
// ServiceAccount, requested through the TokenRequest API with the
// manager's own client and renewed before it expires. It implements
// client.TokenSource. Safe for concurrent use: the controller's workers
// share it.
type serviceAccountTokenSource struct {
	root  *client.Client // the manager's identity: creates the account and its tokens
	name  string         // the ServiceAccount, in ControllerNamespace
	clock clock.Clock
	log   *slog.Logger

	mu sync.Mutex
	// token is the current token ("" before the first request);
	// refreshAt is when it is to be replaced and expiresAt when the
	// apiserver stops taking it.
	token                string
	refreshAt, expiresAt time.Time
}

// newServiceAccountTokenSource returns the token source of ServiceAccount
// kube-system/name. It contacts nothing until the first Token call.
func newServiceAccountTokenSource(root *client.Client, name string, clk clock.Clock, log *slog.Logger) *serviceAccountTokenSource {
	return &serviceAccountTokenSource{root: root, name: name, clock: clk, log: log.With("serviceAccount", ControllerNamespace+"/"+name)}
}

// Token returns the current token, requesting a new one first when there
// is none or when it is due for renewal. A failed renewal keeps the old
// token while the apiserver still accepts it.
func (s *serviceAccountTokenSource) Token(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	if s.token != "" && now.Before(s.refreshAt) {
		return s.token, nil
	}
	token, expires, err := s.request(ctx)
	if err != nil {
		if s.token != "" && now.Before(s.expiresAt) {
			s.log.Warn("renew controller token; the current one is still valid", "expires", s.expiresAt, "err", err)
			return s.token, nil
		}
		return "", err
	}
	lifetime := expires.Sub(now)
	if lifetime <= 0 {
		// The apiserver's clock is ahead of ours (on the cluster clock,
		// one of them saw `ctl time advance` first): it issued the hour
		// asked for, so count that hour from our now rather than asking
		// again at every request.
		lifetime = ServiceAccountTokenExpiration
	}
	s.token, s.expiresAt = token, now.Add(lifetime)
	s.refreshAt = now.Add(time.Duration(float64(lifetime) * serviceAccountTokenRefreshFraction))
	s.log.Debug("controller token issued", "expires", expires, "refreshAt", s.refreshAt)
	return token, nil
}

// request asks for a token, creating the ServiceAccount first when the
// apiserver says it does not exist.
func (s *serviceAccountTokenSource) request(ctx context.Context) (string, time.Time, error) {
	token, expires, err := s.requestToken(ctx)
	if !apierrors.IsNotFound(err) {
		return token, expires, err
	}
	sa := &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: s.name, Namespace: ControllerNamespace}}
	if _, err := s.root.ServiceAccounts(ControllerNamespace).Create(ctx, sa, client.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", time.Time{}, fmt.Errorf("create ServiceAccount %s/%s: %w", ControllerNamespace, s.name, err)
	}
	s.log.Info("created controller ServiceAccount")
	return s.requestToken(ctx)
}

// requestToken posts a TokenRequest to serviceaccounts/<name>/token.
func (s *serviceAccountTokenSource) requestToken(ctx context.Context) (string, time.Time, error) {
	seconds := int64(ServiceAccountTokenExpiration / time.Second)
	answer, err := s.root.CreateToken(ctx, ControllerNamespace, s.name, &api.TokenRequest{
		Spec: api.TokenRequestSpec{ExpirationSeconds: &seconds},
	})
	if err != nil {
		return "", time.Time{}, err
	}
	if answer.Status.Token == "" {
		return "", time.Time{}, fmt.Errorf("TokenRequest for %s/%s: the answer holds no token", ControllerNamespace, s.name)
	}
	return answer.Status.Token, answer.Status.ExpirationTimestamp.Time, nil
}

// controllerClients hands each controller its client: the manager's own,
// or under --use-service-account-credentials one that acts as the
// controller's ServiceAccount. Controllers that share a ServiceAccount
// (node-lifecycle and taint-eviction both act as node-controller, as
// upstream's do) share its token.
type controllerClients struct {
	root    *client.Client
	perSA   bool
	agent   string
	clock   clock.Clock
	log     *slog.Logger
	sources map[string]*serviceAccountTokenSource
}

// clientFor returns the client of a controller that acts as
// serviceAccount ("" for one with no account of its own, which uses the
// manager's identity).
func (b *controllerClients) clientFor(serviceAccount string) *client.Client {
	if !b.perSA || serviceAccount == "" {
		return b.root
	}
	source, ok := b.sources[serviceAccount]
	if !ok {
		source = newServiceAccountTokenSource(b.root, serviceAccount, b.clock, b.log)
		b.sources[serviceAccount] = source
	}
	// Upstream's user agent for a controller's client ends in its
	// ServiceAccount's name.
	return b.root.WithTokenSource(source, b.agent+"/"+serviceAccount)
}
