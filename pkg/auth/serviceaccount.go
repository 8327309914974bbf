package auth

import (
	"context"
	"strings"
	"time"

	"kplane/pkg/api/validation"
)

// TokenAuthenticator names the user a bearer token belongs to. The token
// file and ServiceAccount tokens (pkg/serviceaccount) are both one;
// the apiserver asks each in turn. audiences are the audiences the caller
// accepts (empty: the apiserver's own). An authenticator that knows the
// token's own audiences reports in the result those of audiences the token
// is meant for (upstream's authenticator.Response.Audiences).
type TokenAuthenticator interface {
	AuthenticateToken(ctx context.Context, token string, audiences []string) (result TokenResult, ok bool, err error)
}

// TokenResult is what a bearer token authenticated as, and for which of
// the audiences asked for it holds (a TokenReview's status.audiences).
type TokenResult struct {
	User      User
	Audiences []string
	// ExpiresAt is when the credential stops being valid (a bound
	// ServiceAccount token's exp, a bootstrap token's expiration); zero
	// when it has no expiry. A TokenCache never keeps a result past it.
	ExpiresAt time.Time
}

// AuthenticateToken lets a TokenFile serve as a TokenAuthenticator. Static
// tokens carry no audience, so they authenticate for any and report none;
// the Chain decides which audiences they are good for.
func (tf *TokenFile) AuthenticateToken(_ context.Context, token string, _ []string) (TokenResult, bool, error) {
	user, ok := tf.Authenticate(token)
	return TokenResult{User: user}, ok, nil
}

// ServiceAccount user names and groups, as upstream spells them.
const (
	// ServiceAccountUsernamePrefix starts every ServiceAccount's user
	// name: system:serviceaccount:<namespace>:<name>.
	ServiceAccountUsernamePrefix = "system:serviceaccount:"
	// AllServiceAccountsGroup holds every ServiceAccount.
	AllServiceAccountsGroup = "system:serviceaccounts"
	// ServiceAccountGroupPrefix starts the group of one namespace's
	// ServiceAccounts: system:serviceaccounts:<namespace>.
	ServiceAccountGroupPrefix = "system:serviceaccounts:"
)

// ServiceAccountUsername is the user name of ServiceAccount namespace/name.
func ServiceAccountUsername(namespace, name string) string {
	return ServiceAccountUsernamePrefix + namespace + ":" + name
}

// ServiceAccountGroups are the groups a ServiceAccount of namespace is in
// (system:authenticated is added by authentication, as for every user).
func ServiceAccountGroups(namespace string) []string {
	return []string{AllServiceAccountsGroup, ServiceAccountGroupPrefix + namespace}
}

// SplitServiceAccountUsername returns the namespace and name of a
// ServiceAccount user name, or ok false for any other user. As upstream's
// serviceaccount.SplitUsername, both must be names the objects could have:
// the namespace a DNS label, the ServiceAccount's name a DNS subdomain.
func SplitServiceAccountUsername(username string) (namespace, name string, ok bool) {
	rest, found := strings.CutPrefix(username, ServiceAccountUsernamePrefix)
	if !found {
		return "", "", false
	}
	namespace, name, found = strings.Cut(rest, ":")
	if !found || strings.Contains(name, ":") {
		return "", "", false
	}
	if len(validation.NameIsDNSLabel(namespace, false)) > 0 || len(validation.NameIsDNSSubdomain(name, false)) > 0 {
		return "", "", false
	}
	return namespace, name, true
}

// ServiceAccountUser is ServiceAccount namespace/name as a user, without
// uid or extra (tests, and components that act as one).
func ServiceAccountUser(namespace, name string) User {
	return User{Name: ServiceAccountUsername(namespace, name), Groups: ServiceAccountGroups(namespace)}
}
