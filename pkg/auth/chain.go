package auth

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
)

// ErrInvalidBearerToken is the error for a bearer token no authenticator
// recognised (upstream's bearertoken authenticator words it the same).
var ErrInvalidBearerToken = errors.New("invalid bearer token")

// RequestAuthenticator names the user who sent a request. ok is false with
// a nil error when the request carries no credentials this authenticator
// understands; an error means credentials were offered and are bad.
type RequestAuthenticator interface {
	AuthenticateRequest(r *http.Request) (user User, ok bool, err error)
}

// Chain is the apiserver's authenticator chain, upstream's union of
// request authenticators (staging/src/k8s.io/apiserver/pkg/authentication/
// request/union) in kube-apiserver's order: the client certificate first,
// then a bearer token, which the static token file and then the
// ServiceAccount token authenticator are asked about in turn. The first
// that recognises the credentials wins; the errors of the others are
// reported only when none does. Every user the chain lets through is in
// system:authenticated (upstream's AuthenticatedGroupAdder).
//
// Audiences: a token is meant for someone. ServiceAccount JWTs name theirs
// in the aud claim and check it themselves (AudienceTokens). Static tokens
// name none; upstream treats them as meant for the apiserver itself
// (authenticator.WrapAudienceAgnosticToken), so they authenticate only
// when the audiences asked for include one of APIAudiences.
type Chain struct {
	// X509 checks client certificates; nil accepts none.
	X509 *X509Authenticator
	// StaticTokens are audience-agnostic token authenticators: the token file.
	StaticTokens []TokenAuthenticator
	// AudienceTokens check a token's audience themselves: ServiceAccount tokens.
	AudienceTokens []TokenAuthenticator
	// APIAudiences are the audiences of the apiserver itself (upstream's
	// --api-audiences); a request's bearer token must be meant for one.
	APIAudiences []string
	// TokenCache, when set, remembers token authentications for a short
	// while (see TokenCache), as kube-apiserver wraps its token
	// authenticators in one.
	TokenCache *TokenCache
}

// AuthenticateRequest tries the client certificate, then the bearer token.
func (c Chain) AuthenticateRequest(r *http.Request) (User, bool, error) {
	var errs []error
	if c.X509 != nil {
		user, ok, err := c.X509.AuthenticateRequest(r)
		if ok {
			return withAuthenticatedGroup(user), true, nil
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if token, offered := BearerToken(r); offered {
		result, ok, err := c.AuthenticateToken(r.Context(), token, nil)
		if ok {
			return result.User, true, nil
		}
		errs = append(errs, err)
	}
	return User{}, false, aggregate(errs)
}

// AuthenticateToken authenticates a bearer token for audiences (none: the
// apiserver's own, APIAudiences) and says for which of them it holds. When
// no authenticator recognises the token the error says why; it is never
// nil then.
func (c Chain) AuthenticateToken(ctx context.Context, token string, audiences []string) (TokenResult, bool, error) {
	if c.TokenCache != nil {
		return c.TokenCache.Authenticate(ctx, token, audiences, c.authenticateToken)
	}
	return c.authenticateToken(ctx, token, audiences)
}

// authenticateToken asks the token authenticators, without the cache.
func (c Chain) authenticateToken(ctx context.Context, token string, audiences []string) (TokenResult, bool, error) {
	if len(audiences) == 0 {
		audiences = c.APIAudiences
	}
	var errs []error
	if implicit := intersect(c.APIAudiences, audiences); len(implicit) > 0 {
		for _, a := range c.StaticTokens {
			result, ok, err := a.AuthenticateToken(ctx, token, audiences)
			if ok {
				return TokenResult{User: withAuthenticatedGroup(result.User), Audiences: implicit, ExpiresAt: result.ExpiresAt}, true, nil
			}
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, a := range c.AudienceTokens {
		result, ok, err := a.AuthenticateToken(ctx, token, audiences)
		if ok {
			// The authenticator reports which of audiences the token's own
			// (its aud claim) include.
			result.User = withAuthenticatedGroup(result.User)
			return result, true, nil
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		errs = append(errs, ErrInvalidBearerToken)
	}
	return TokenResult{}, false, aggregate(errs)
}

// withAuthenticatedGroup adds system:authenticated to user's groups unless
// it already has it or system:unauthenticated (upstream's
// AuthenticatedGroupAdder). The groups are copied, never appended to in
// place, since an authenticator may hand out a shared slice.
func withAuthenticatedGroup(user User) User {
	if user.InGroup(AuthenticatedGroup) || user.InGroup(UnauthenticatedGroup) {
		return user
	}
	groups := make([]string, 0, len(user.Groups)+1)
	user.Groups = append(append(groups, user.Groups...), AuthenticatedGroup)
	return user
}

// intersect returns the elements of a that are also in b, in a's order.
func intersect(a, b []string) []string {
	var out []string
	for _, s := range a {
		if slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// aggregateError joins several errors as upstream's
// utilerrors.NewAggregate prints them: "a" for one, "[a, b]" for more.
type aggregateError []error

func (e aggregateError) Error() string {
	if len(e) == 1 {
		return e[0].Error()
	}
	msgs := make([]string, len(e))
	for i, err := range e {
		msgs[i] = err.Error()
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

func (e aggregateError) Unwrap() []error { return e }

// aggregate is nil for no errors, else an aggregateError.
func aggregate(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return aggregateError(errs)
}
