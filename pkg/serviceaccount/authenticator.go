package serviceaccount

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"kplane/pkg/api"
	"kplane/pkg/auth"
)

// Keys of the extra fields a ServiceAccount token's user carries, as
// upstream names them (authorizers and audit read them).
const (
	PodNameExtraKey      = "authentication.kubernetes.io/pod-name"
	PodUIDExtraKey       = "authentication.kubernetes.io/pod-uid"
	NodeNameExtraKey     = "authentication.kubernetes.io/node-name"
	NodeUIDExtraKey      = "authentication.kubernetes.io/node-uid"
	CredentialIDExtraKey = "authentication.kubernetes.io/credential-id"
)

// leeway is the clock skew tolerated on exp, nbf and iat, and how long an
// object marked for deletion still vouches for its tokens: upstream uses
// go-jose's default minute for both.
const leeway = jwt.DefaultLeeway

// ObjectGetter reads the objects a token names. The apiserver implements it
// over its watch caches; each method returns an error (any error) when the
// object cannot be found.
type ObjectGetter interface {
	ServiceAccount(ctx context.Context, namespace, name string) (*api.ServiceAccount, error)
	Pod(ctx context.Context, namespace, name string) (*api.Pod, error)
	Secret(ctx context.Context, namespace, name string) (*api.Secret, error)
	Node(ctx context.Context, name string) (*api.Node, error)
}

// Authenticator validates ServiceAccount tokens, bound and legacy, and
// implements auth.TokenAuthenticator. A token it cannot read as a JWT, or
// whose issuer it does not know, is simply "not mine" (ok false, no
// error), so that the next authenticator in the chain may try; a token
// that claims to be one of its own and fails a check is refused with an
// error that is logged, never shown to the client (who sees 401).
type Authenticator struct {
	// Issuers are the issuers whose bound tokens are accepted (the first
	// is the one the apiserver signs as).
	Issuers []string
	// Keys verify the signatures.
	Keys []*rsa.PublicKey
	// APIAudiences are the apiserver's own audiences (--api-audiences,
	// default the issuer): a request that names no audience accepts these.
	APIAudiences []string
	// Getter looks up ServiceAccounts and bound objects.
	Getter ObjectGetter
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives the reasons tokens are refused; nil uses slog.Default().
	Logger *slog.Logger
}

var _ auth.TokenAuthenticator = (*Authenticator)(nil)

// errInvalid is what every refusal wraps (the details go to the log).
var errInvalid = errors.New("invalid service account token")

// AuthenticateToken implements auth.TokenAuthenticator: audiences are
// those the caller accepts, empty meaning the apiserver's own. The result
// names those of them the token is meant for.
func (a *Authenticator) AuthenticateToken(ctx context.Context, token string, audiences []string) (auth.TokenResult, bool, error) {
	if strings.Count(token, ".") != 2 {
		return auth.TokenResult{}, false, nil // not a JWT: not for us
	}
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		return auth.TokenResult{}, false, nil
	}
	var unverified jwt.Claims
	if err := parsed.UnsafeClaimsWithoutVerification(&unverified); err != nil {
		return auth.TokenResult{}, false, nil
	}
	legacy := unverified.Issuer == LegacyIssuer
	if !legacy && !slices.Contains(a.Issuers, unverified.Issuer) {
		return auth.TokenResult{}, false, nil // another issuer's token
	}
	result, err := a.validate(ctx, parsed, token, legacy, audiences)
	if err != nil {
		a.logger().Info("service account token refused", "subject", unverified.Subject, "err", err)
		return auth.TokenResult{}, false, fmt.Errorf("%w: %w", errInvalid, err)
	}
	return result, true, nil
}

func (a *Authenticator) logger() *slog.Logger {
	if a.Logger != nil {
		return a.Logger
	}
	return slog.Default()
}

func (a *Authenticator) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// validate checks the signature and the audience, then hands over to the
// format's checks.
func (a *Authenticator) validate(ctx context.Context, parsed *jwt.JSONWebToken, token string, legacy bool, audiences []string) (auth.TokenResult, error) {
	var public jwt.Claims
	var private privateClaims
	var legacyPrivate legacyClaims
	verified := false
	for _, key := range a.Keys {
		var err error
		if legacy {
			err = parsed.Claims(key, &public, &legacyPrivate)
		} else {
			err = parsed.Claims(key, &public, &private)
		}
		if err == nil {
			verified = true
			break
		}
	}
	if !verified {
		return auth.TokenResult{}, errors.New("signature does not verify with any service account key")
	}
	// The token is good for those of the requested audiences its aud claim
	// names, as upstream (pkg/serviceaccount/jwt.go) computes them. A token
	// without aud (every legacy token) is meant for the apiserver alone.
	if len(audiences) == 0 {
		audiences = a.APIAudiences
	}
	tokenAudiences := []string(public.Audience)
	if len(tokenAudiences) == 0 {
		tokenAudiences = a.APIAudiences
	}
	var granted []string
	for _, aud := range audiences {
		if slices.Contains(tokenAudiences, aud) {
			granted = append(granted, aud)
		}
	}
	if len(granted) == 0 {
		return auth.TokenResult{}, fmt.Errorf("token audiences %q is invalid for the target audiences %q", tokenAudiences, audiences)
	}
	var user auth.User
	var err error
	if legacy {
		user, err = a.validateLegacy(ctx, public, legacyPrivate, token)
	} else {
		user, err = a.validateBound(ctx, public, private)
	}
	if err != nil {
		return auth.TokenResult{}, err
	}
	var expiresAt time.Time // a legacy token has none
	if public.Expiry != nil {
		expiresAt = public.Expiry.Time()
	}
	return auth.TokenResult{User: user, Audiences: granted, ExpiresAt: expiresAt}, nil
}

// validateBound checks a bound token's time window, and that its
// ServiceAccount and bound object still exist with the uids it names.
func (a *Authenticator) validateBound(ctx context.Context, public jwt.Claims, private privateClaims) (auth.User, error) {
	now := a.now()
	if err := public.ValidateWithLeeway(jwt.Expected{Time: now}, leeway); err != nil {
		return auth.User{}, fmt.Errorf("check expiry: %w", err)
	}
	if public.Expiry == nil {
		return auth.User{}, errors.New("bound token without expiry")
	}
	k := private.Kubernetes
	if k.Namespace == "" || k.ServiceAccount.Name == "" {
		return auth.User{}, errors.New("token names no service account")
	}
	if public.Subject != auth.ServiceAccountUsername(k.Namespace, k.ServiceAccount.Name) {
		return auth.User{}, fmt.Errorf("subject %q does not match the service account claim", public.Subject)
	}
	// Objects deleted up to a minute ago (by their deletionTimestamp)
	// still vouch for their tokens, as upstream tolerates.
	deletedBefore := now.Add(-leeway)
	sa, err := a.Getter.ServiceAccount(ctx, k.Namespace, k.ServiceAccount.Name)
	if err != nil {
		return auth.User{}, fmt.Errorf("service account %s/%s: %w", k.Namespace, k.ServiceAccount.Name, err)
	}
	if err := checkObject("service account", &sa.ObjectMeta, k.ServiceAccount.UID, deletedBefore); err != nil {
		return auth.User{}, err
	}
	user := auth.User{
		Name:   public.Subject,
		UID:    sa.UID,
		Groups: auth.ServiceAccountGroups(k.Namespace),
		Extra:  map[string][]string{},
	}
	switch {
	case k.Pod != nil:
		pod, err := a.Getter.Pod(ctx, k.Namespace, k.Pod.Name)
		if err != nil {
			return auth.User{}, fmt.Errorf("bound pod %s/%s: %w", k.Namespace, k.Pod.Name, err)
		}
		if err := checkObject("pod", &pod.ObjectMeta, k.Pod.UID, deletedBefore); err != nil {
			return auth.User{}, err
		}
		user.Extra[PodNameExtraKey] = []string{k.Pod.Name}
		user.Extra[PodUIDExtraKey] = []string{k.Pod.UID}
	case k.Secret != nil:
		secret, err := a.Getter.Secret(ctx, k.Namespace, k.Secret.Name)
		if err != nil {
			return auth.User{}, fmt.Errorf("bound secret %s/%s: %w", k.Namespace, k.Secret.Name, err)
		}
		if err := checkObject("secret", &secret.ObjectMeta, k.Secret.UID, deletedBefore); err != nil {
			return auth.User{}, err
		}
	case k.Node != nil:
		// A token bound to the node itself (not a pod-bound token that
		// merely says where its pod runs) dies with the node.
		node, err := a.Getter.Node(ctx, k.Node.Name)
		if err != nil {
			return auth.User{}, fmt.Errorf("bound node %s: %w", k.Node.Name, err)
		}
		if err := checkObject("node", &node.ObjectMeta, k.Node.UID, deletedBefore); err != nil {
			return auth.User{}, err
		}
	}
	if k.Node != nil {
		user.Extra[NodeNameExtraKey] = []string{k.Node.Name}
		if k.Node.UID != "" {
			user.Extra[NodeUIDExtraKey] = []string{k.Node.UID}
		}
	}
	if public.ID != "" {
		user.Extra[CredentialIDExtraKey] = []string{CredentialIDForJTI(public.ID)}
	}
	if k.WarnAfter != nil && now.After(k.WarnAfter.Time()) {
		a.logger().Info("stale service account token used", "user", user.Name,
			"warnafter", k.WarnAfter.Time().UTC().Format(time.RFC3339))
	}
	return user, nil
}

// CredentialIDForJTI is the credential-id extra value of a token with that
// id: audit logs record it, so an administrator can trace every request
// made with one leaked token.
func CredentialIDForJTI(jti string) string { return "JTI=" + jti }

// checkObject refuses an object whose uid is not the one the token names,
// or that was marked for deletion more than the leeway ago.
func checkObject(kind string, meta *api.ObjectMeta, uid string, deletedBefore time.Time) error {
	if uid != "" && meta.UID != uid {
		return fmt.Errorf("%s %s: uid %s does not match the token's %s (deleted and recreated?)", kind, meta.Name, meta.UID, uid)
	}
	if meta.DeletionTimestamp != nil && meta.DeletionTimestamp.Before(deletedBefore) {
		return fmt.Errorf("%s %s has been deleted", kind, meta.Name)
	}
	return nil
}

// validateLegacy checks a Secret-based token: the Secret still exists and
// holds this very token, and the ServiceAccount still exists with the uid
// the token names.
func (a *Authenticator) validateLegacy(ctx context.Context, public jwt.Claims, private legacyClaims, token string) (auth.User, error) {
	if private.Namespace == "" || private.ServiceAccountName == "" || private.SecretName == "" {
		return auth.User{}, errors.New("legacy token lacks namespace, service account or secret name")
	}
	if public.Subject != auth.ServiceAccountUsername(private.Namespace, private.ServiceAccountName) {
		return auth.User{}, fmt.Errorf("subject %q does not match the service account claim", public.Subject)
	}
	secret, err := a.Getter.Secret(ctx, private.Namespace, private.SecretName)
	if err != nil {
		return auth.User{}, fmt.Errorf("token secret %s/%s: %w", private.Namespace, private.SecretName, err)
	}
	if secret.DeletionTimestamp != nil {
		return auth.User{}, fmt.Errorf("token secret %s/%s is being deleted", private.Namespace, private.SecretName)
	}
	if string(secret.Data[SecretTokenKey]) != token {
		return auth.User{}, fmt.Errorf("token secret %s/%s no longer holds this token", private.Namespace, private.SecretName)
	}
	sa, err := a.Getter.ServiceAccount(ctx, private.Namespace, private.ServiceAccountName)
	if err != nil {
		return auth.User{}, fmt.Errorf("service account %s/%s: %w", private.Namespace, private.ServiceAccountName, err)
	}
	if sa.DeletionTimestamp != nil {
		return auth.User{}, fmt.Errorf("service account %s/%s is being deleted", private.Namespace, private.ServiceAccountName)
	}
	if sa.UID != private.ServiceAccountUID {
		return auth.User{}, fmt.Errorf("service account %s/%s: uid %s does not match the token's %s", private.Namespace, private.ServiceAccountName, sa.UID, private.ServiceAccountUID)
	}
	return auth.User{Name: public.Subject, UID: sa.UID, Groups: auth.ServiceAccountGroups(private.Namespace)}, nil
}
