package auth

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	apierrors "kplane/pkg/api/errors"
)

// DefaultPublicPaths are the paths upstream lets anyone read without
// credentials: the health checks and the version, which the
// system:public-info-viewer ClusterRole grants to system:unauthenticated.
var DefaultPublicPaths = []string{"/healthz", "/livez", "/readyz", "/version", "/version/"}

type userKey struct{}

// WithUser returns a copy of ctx that carries user. Middleware does this for
// every request it lets through; tests of later handlers can use it directly.
func WithUser(ctx context.Context, user User) context.Context {
	return context.WithValue(ctx, userKey{}, user)
}

// UserFrom returns the user a request was authenticated as.
func UserFrom(ctx context.Context) (User, bool) {
	u, ok := ctx.Value(userKey{}).(User)
	return u, ok
}

// Middleware authenticates each request with a (the apiserver passes its
// Chain: client certificate, then bearer token) and stores the user in the
// request context (read it with UserFrom). It follows kube-apiserver's
// rules:
//
//   - Valid credentials: the request goes on as that user.
//   - Whoever the request goes on as, its Authorization header does not go
//     with it (upstream's filters/authentication.go drops it after every
//     successful authentication): no later handler, and no backend a
//     proxy forwards the request to, sees the caller's token.
//   - Invalid credentials (an unknown token, a certificate from another
//     CA): 401, even on a public path. Presenting bad credentials is never
//     treated as presenting none.
//   - No credentials (no certificate, and no header, another scheme, or
//     "Bearer " with nothing after it): on publicPaths the request goes on
//     as system:anonymous; anywhere else it gets 401.
//
// A publicPaths entry matches the URL path exactly, or, when it ends in "*",
// every path with that prefix (as RBAC nonResourceURLs do: "/healthz/*").
// The 401 body is a meta/v1 Status with reason Unauthorized; upstream sends
// no WWW-Authenticate header, and neither does this.
func Middleware(a RequestAuthenticator, publicPaths []string) func(http.Handler) http.Handler {
	public := newPathMatcher(publicPaths)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			user, ok, err := a.AuthenticateRequest(r)
			switch {
			case ok:
				r.Header.Del("Authorization")
				next.ServeHTTP(w, r.WithContext(WithUser(r.Context(), user)))
			case err == nil && public.matches(r.URL.Path):
				r.Header.Del("Authorization")
				next.ServeHTTP(w, r.WithContext(WithUser(r.Context(), AnonymousUser())))
			default:
				writeUnauthorized(w, r)
			}
		})
	}
}

// BearerToken extracts the token from "Authorization: Bearer <token>". The
// scheme is case-insensitive; offered is false when there is no bearer
// token at all, which upstream treats as "no credentials" rather than "bad
// credentials".
func BearerToken(r *http.Request) (token string, offered bool) {
	header := strings.TrimSpace(r.Header.Get("Authorization"))
	scheme, rest, found := strings.Cut(header, " ")
	if !found || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	// Like upstream, take the token up to the next space; "Bearer  x" (two
	// spaces) therefore offers an empty token, i.e. none.
	token, _, _ = strings.Cut(rest, " ")
	return token, token != ""
}

// writeUnauthorized answers 401 with a meta/v1 Status body.
func writeUnauthorized(w http.ResponseWriter, r *http.Request) {
	// Upstream closes HTTP/2 connections after an unauthenticated request so
	// that anonymous clients cannot hold expensive multiplexed connections
	// open (CVE-2023-44487). Go's HTTP/2 server turns this header into a
	// GOAWAY.
	if r.ProtoMajor == 2 {
		w.Header().Set("Connection", "close")
	}
	status := apierrors.NewUnauthorized("Unauthorized").Status()
	body, err := json.Marshal(status)
	if err != nil {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	w.Write(append(body, '\n'))
}

// pathMatcher holds publicPaths split into exact paths and "*" prefixes.
type pathMatcher struct {
	exact    map[string]bool
	prefixes []string
}

func newPathMatcher(paths []string) pathMatcher {
	m := pathMatcher{exact: map[string]bool{}}
	for _, p := range paths {
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			m.prefixes = append(m.prefixes, prefix)
		} else {
			m.exact[p] = true
		}
	}
	return m
}

func (m pathMatcher) matches(path string) bool {
	if m.exact[path] {
		return true
	}
	for _, prefix := range m.prefixes {
		if strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return false
}
