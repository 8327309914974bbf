package apiserver

import (
	"context"
	"crypto/x509"
	"errors"
	"net/http"
	"slices"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/bootstraptoken"
	"kplane/pkg/store"
)

// authenticate names the request's user (auth.UserFrom) or answers 401:
// the client certificate first, then the bearer token, as kube-apiserver's
// authenticator chain orders them (auth.Chain tells how).
//
// A request without credentials goes on as system:anonymous to the health
// paths and to kube-public's cluster-info ConfigMap, and gets 401
// everywhere else. That is upstream's anonymous authentication limited by
// conditions on the path (AuthenticationConfiguration's
// anonymous.conditions, 1.32+) rather than --anonymous-auth=true for every
// path: a joining node can read cluster-info before it has credentials,
// RBAC still decides whether it may (the kubeadm:bootstrap-signer-
// clusterinfo Role), and every other anonymous request keeps its 401.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return auth.Middleware(s.authn, anonymousPaths)(next)
}

// clusterInfoPath is where a joining node reads cluster-info.
const clusterInfoPath = "/api/v1/namespaces/" + bootstraptoken.ClusterInfoNamespace + "/configmaps/" + bootstraptoken.ClusterInfoName

// anonymousPaths are the paths a request without credentials may reach.
var anonymousPaths = append(slices.Clone(auth.DefaultPublicPaths), clusterInfoPath)

// newAuthenticator is the server's authenticator chain: client certificates
// signed by clientCAs (the cluster CA), the token file, bootstrap tokens
// (after the existing ones, as kube-apiserver orders them) and
// ServiceAccount tokens. Start builds it once, after setUpServiceAccountTokens, and both
// the request filter and TokenReview use it. A bearer token must be meant
// for one of the apiserver's audiences (upstream's --api-audiences, which
// default to the ServiceAccount issuers); a static token is taken to be
// meant for all of them. Token authentications are remembered for
// Options.TokenSuccessCacheTTL (auth.TokenCache): a controller's every
// request would otherwise pay an RSA signature check.
func (s *Server) newAuthenticator(clientCAs *x509.CertPool) auth.Chain {
	chain := auth.Chain{
		X509:           &auth.X509Authenticator{Roots: clientCAs},
		StaticTokens:   []auth.TokenAuthenticator{s.tokens, s.bootstrapTokenAuthenticator()},
		AudienceTokens: []auth.TokenAuthenticator{s.serviceAccountTokens},
		APIAudiences:   s.serviceAccounts.audiences,
	}
	if s.opts.TokenSuccessCacheTTL > 0 || s.opts.TokenFailureCacheTTL > 0 {
		chain.TokenCache = auth.NewTokenCache(auth.TokenCacheOptions{
			SuccessTTL: s.opts.TokenSuccessCacheTTL,
			FailureTTL: s.opts.TokenFailureCacheTTL,
			Now:        s.clock.Now,
		})
	}
	return chain
}

// bootstrapTokenAuthenticator checks bootstrap tokens against their
// Secrets, read from etcd rather than the watch cache: a token is usually
// used seconds after `ctl token create`, and a lagging cache would turn
// that first join into a 401. Only tokens of the bootstrap shape
// ("<6>.<16>") cost a read.
func (s *Server) bootstrapTokenAuthenticator() *auth.BootstrapTokenAuthenticator {
	return &auth.BootstrapTokenAuthenticator{
		Secrets: s.getSecret,
		Now:     func() time.Time { return s.now().Time },
	}
}

// getSecret reads one Secret from etcd; nil when there is none.
func (s *Server) getSecret(ctx context.Context, namespace, name string) (*api.Secret, error) {
	res := s.reg.byPluralAny["secrets"]
	kv, err := s.store.Get(ctx, res.key(namespace, name))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	so, err := s.decodeStored(res, kv)
	if err != nil {
		return nil, err
	}
	return so.obj.(*api.Secret), nil
}
