package ui

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"

	"kplane/pkg/debug"
)

// sessionCookie names the cookie a login link hands out.
const sessionCookie = "kplane-ui-session"

// Authenticator admits a request that carries the cluster administrator's
// bearer token (what the admin kubeconfig holds, so curl and tests can use
// it) or a session cookie. A session is obtained once per login link:
// `ctl ui` prints /login?token=T, and the first request with T trades it
// for a cookie; T is then forgotten, so a link seen in a terminal's
// scrollback or a browser's history opens nothing.
//
// Invariant: a token is in logins until its first use, and is never in
// sessions; sessions only grow while the server runs (a page's cookie
// stays good until `ctl ui` stops).
type Authenticator struct {
	adminToken string

	mu       sync.Mutex
	logins   map[string]bool
	sessions map[string]bool
}

// NewAuthenticator returns an Authenticator for the admin bearer token
// adminToken, which must not be empty.
func NewAuthenticator(adminToken string) *Authenticator {
	return &Authenticator{adminToken: adminToken, logins: map[string]bool{}, sessions: map[string]bool{}}
}

// NewLoginToken returns a fresh one-time login token.
func (a *Authenticator) NewLoginToken() string {
	token := randomToken()
	a.mu.Lock()
	a.logins[token] = true
	a.mu.Unlock()
	return token
}

// Login trades a one-time login token for a new session ID; ok is false
// when the token is unknown or was used before.
func (a *Authenticator) Login(token string) (session string, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.logins[token] {
		return "", false
	}
	delete(a.logins, token)
	session = randomToken()
	a.sessions[session] = true
	return session, true
}

// Admits reports whether r carries the admin bearer token or a live
// session cookie.
func (a *Authenticator) Admits(r *http.Request) bool {
	if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return subtle.ConstantTimeCompare([]byte(bearer), []byte(a.adminToken)) == 1
	}
	cookie, err := r.Cookie(sessionCookie)
	if err != nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[cookie.Value]
}

// Require wraps next so that only admitted requests reach it. Others get
// 401: a JSON Status for the API paths (/api/…), as the apiserver answers,
// and a short page saying how to get in for everything else.
func (a *Authenticator) Require(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.Admits(r) {
			next.ServeHTTP(w, r)
			return
		}
		unauthorized(w, r)
	})
}

// ServeLogin is /login?token=T: a known, unused T sets the session cookie
// and redirects to the page; anything else is 401.
func (a *Authenticator) ServeLogin(w http.ResponseWriter, r *http.Request) {
	session, ok := a.Login(r.URL.Query().Get("token"))
	if !ok {
		unauthorized(w, r)
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: session, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// unauthorized answers 401.
func unauthorized(w http.ResponseWriter, r *http.Request) {
	const message = "Unauthorized: send the cluster admin's bearer token, or open a new login link (`ctl ui` prints one; each works once)"
	if strings.HasPrefix(r.URL.Path, "/api/") {
		debug.WriteStatus(w, http.StatusUnauthorized, "Unauthorized", message)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte(message + "\n"))
}

// randomToken returns 32 random bytes in hex.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}
