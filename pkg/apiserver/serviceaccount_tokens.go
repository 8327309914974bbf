package apiserver

// This file sets up ServiceAccount tokens (pkg/serviceaccount) for the
// apiserver: the signing key (DATA_DIR/pki/sa.key, made at first start),
// the keys that verify, the issuer and audiences from the options, and the
// lookups the token authenticator makes on every request — the
// ServiceAccount, and the Pod, Secret or Node a token is bound to — which
// read the watch caches, so that authenticating a token costs no etcd
// round trip.

import (
	"context"
	"crypto/rsa"
	"fmt"
	"path/filepath"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/serviceaccount"
)

// serviceAccountTokens is what TokenRequest and OIDC discovery need.
type serviceAccountTokens struct {
	issuer *serviceaccount.Issuer
	// keys verify tokens; the JWKS document publishes them.
	keys      []*rsa.PublicKey
	audiences []string
	// maxExpirationSeconds caps a token's lifetime (0: no cap).
	maxExpirationSeconds int64
	extendExpiration     bool
}

// setUpServiceAccountTokens loads or creates the signing key and sets
// s.serviceAccounts and s.serviceAccountTokens.
func (s *Server) setUpServiceAccountTokens() error {
	pkiDir := filepath.Join(s.opts.DataDir, "pki")
	signingKeyFile := s.opts.ServiceAccountSigningKeyFile
	if signingKeyFile == "" {
		signingKeyFile = filepath.Join(pkiDir, serviceaccount.PrivateKeyFile)
	}
	publicKeyFile := filepath.Join(filepath.Dir(signingKeyFile), serviceaccount.PublicKeyFile)
	signingKey, err := serviceaccount.EnsureSigningKey(signingKeyFile, publicKeyFile)
	if err != nil {
		return fmt.Errorf("prepare service account signing key: %w", err)
	}
	keyFiles := s.opts.ServiceAccountKeyFiles
	if len(keyFiles) == 0 {
		keyFiles = []string{publicKeyFile}
	}
	var keys []*rsa.PublicKey
	for _, file := range keyFiles {
		fileKeys, err := serviceaccount.LoadPublicKeys(file)
		if err != nil {
			return err
		}
		keys = append(keys, fileKeys...)
	}
	issuers := s.opts.ServiceAccountIssuers
	if len(issuers) == 0 {
		issuers = []string{serviceaccount.DefaultIssuer}
	}
	audiences := s.opts.APIAudiences
	if len(audiences) == 0 {
		// Upstream: without --api-audiences the issuers are the audiences.
		audiences = issuers
	}
	issuer, err := serviceaccount.NewIssuer(issuers[0], signingKey)
	if err != nil {
		return err
	}
	s.serviceAccounts = &serviceAccountTokens{
		issuer:               issuer,
		keys:                 keys,
		audiences:            audiences,
		maxExpirationSeconds: int64(s.opts.ServiceAccountMaxTokenExpiration.Seconds()),
		extendExpiration:     s.opts.ServiceAccountExtendTokenExpiration,
	}
	s.serviceAccountTokens = &serviceaccount.Authenticator{
		Issuers:      issuers,
		Keys:         keys,
		APIAudiences: audiences,
		Getter:       tokenObjectGetter{s},
		Now:          s.clock.Now,
		Logger:       s.log,
	}
	return nil
}

// tokenObjectGetter is the serviceaccount.ObjectGetter over the server's
// watch caches (and etcd for what a cache does not hold yet).
type tokenObjectGetter struct{ s *Server }

func (g tokenObjectGetter) ServiceAccount(ctx context.Context, namespace, name string) (*api.ServiceAccount, error) {
	return g.s.serviceAccount(ctx, namespace, name)
}

func (g tokenObjectGetter) Pod(ctx context.Context, namespace, name string) (*api.Pod, error) {
	obj, err := g.s.cachedObject(ctx, "pods", namespace, name)
	if err != nil {
		return nil, err
	}
	return obj.(*api.Pod), nil
}

// Secret reads a legacy token's Secret from etcd, not from the watch
// cache: a client may use the token the moment the token controller has
// written it, when the cache can still hold the Secret without it (and the
// token would be refused as "no longer held"). Secret-based tokens are
// rare, so the read costs little.
func (g tokenObjectGetter) Secret(ctx context.Context, namespace, name string) (*api.Secret, error) {
	res := g.s.reg.byPluralAny["secrets"]
	so, err := g.s.getStored(ctx, res, namespace, name)
	if err != nil {
		return nil, err
	}
	return so.obj.(*api.Secret), nil
}

func (g tokenObjectGetter) Node(ctx context.Context, name string) (*api.Node, error) {
	obj, err := g.s.cachedObject(ctx, "nodes", "", name)
	if err != nil {
		return nil, err
	}
	return obj.(*api.Node), nil
}

// cachedObject reads one object of the core resource plural from its watch
// cache, or from etcd when the cache does not have it (yet).
func (s *Server) cachedObject(ctx context.Context, plural, namespace, name string) (any, error) {
	res := s.reg.byPluralAny[plural]
	if e, ok := s.caches[res].Get(res.key(namespace, name)); ok {
		return e.Object.(*storedObject).obj, nil
	}
	so, err := s.getStored(ctx, res, namespace, name)
	if err != nil {
		return nil, err
	}
	return so.obj, nil
}

// ServiceAccountTokens is the authenticator of the ServiceAccount tokens
// this server issues (bound and legacy): the authenticator chain asks it,
// and tests use it to check a token directly.
func (s *Server) ServiceAccountTokens() auth.TokenAuthenticator { return s.serviceAccountTokens }
