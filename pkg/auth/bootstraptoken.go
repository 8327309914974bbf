package auth

import (
	"context"
	"log/slog"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/bootstraptoken"
)

// SecretGetter reads a Secret; it returns a nil Secret and nil error when
// there is none.
type SecretGetter func(ctx context.Context, namespace, name string) (*api.Secret, error)

// BootstrapTokenAuthenticator authenticates bootstrap tokens,
// "<token-id>.<token-secret>", against their Secrets
// kube-system/bootstrap-token-<token-id>, as upstream's
// plugin/pkg/auth/authenticator/token/bootstrap does: the user is
// system:bootstrap:<token-id>, in system:bootstrappers and the Secret's
// auth-extra-groups. A token whose Secret is missing, of the wrong type,
// expired, being deleted, not for authentication, or with another secret
// is not recognised (the chain then answers 401); the reason is logged,
// never returned, so a caller learns nothing about which tokens exist.
//
// Like static tokens, bootstrap tokens name no audience and are meant for
// the apiserver itself (upstream wraps them audience-agnostic).
type BootstrapTokenAuthenticator struct {
	// Secrets reads the token Secrets.
	Secrets SecretGetter
	// Now is the clock expiry is judged by; nil is time.Now.
	Now func() time.Time
	// Logger receives why a token was refused; nil is slog.Default().
	Logger *slog.Logger
}

// AuthenticateToken implements TokenAuthenticator.
func (a *BootstrapTokenAuthenticator) AuthenticateToken(ctx context.Context, token string, _ []string) (TokenResult, bool, error) {
	presented, err := bootstraptoken.Parse(token)
	if err != nil {
		return TokenResult{}, false, nil // not a bootstrap token: another authenticator's
	}
	logger := a.Logger
	if logger == nil {
		logger = slog.Default()
	}
	refuse := func(reason string) (TokenResult, bool, error) {
		logger.Debug("bootstrap token refused", "tokenID", presented.ID, "reason", reason)
		return TokenResult{}, false, nil
	}
	secret, err := a.Secrets(ctx, bootstraptoken.SecretNamespace, bootstraptoken.SecretName(presented.ID))
	if err != nil {
		logger.Warn("read bootstrap token secret", "tokenID", presented.ID, "err", err)
		return TokenResult{}, false, nil
	}
	if secret == nil {
		return refuse("no secret")
	}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	stored, ok := bootstraptoken.Usable(secret, "authentication", now())
	if !ok {
		return refuse("secret is not a live bootstrap token for authentication")
	}
	if stored.ID != presented.ID || !bootstraptoken.SecretMatches(stored, presented.Secret) {
		return refuse("token secret does not match")
	}
	extra, err := bootstraptoken.ExtraGroups(secret)
	if err != nil {
		return refuse(err.Error())
	}
	expiresAt, _ := bootstraptoken.Expiration(secret)
	return TokenResult{User: User{
		Name:   bootstraptoken.UserPrefix + presented.ID,
		Groups: append([]string{bootstraptoken.Group}, extra...),
	}, ExpiresAt: expiresAt}, true, nil
}
