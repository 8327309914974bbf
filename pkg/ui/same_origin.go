package ui

import (
	"net/http"

	"kplane/pkg/debug"
)

// requireSameOrigin admits a state-changing request (a fault button, the
// clock's advance) only when the browser says it comes from the page
// itself. The session cookie alone is not enough on loopback: any web page
// open in the same browser can make it POST to 127.0.0.1 with the cookie
// attached (cross-site request forgery), and a page elsewhere must not be
// able to kill the leader. Browsers send Origin on every POST and a page
// cannot forge it, so the request must carry the page's own origin:
// http:// and the Host it asked for. A request without Origin (curl) is
// refused too: the buttons are for the page; ctl fault is for the shell.
func requireSameOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "http://"+r.Host {
			debug.WriteStatus(w, http.StatusForbidden, "Forbidden",
				"a state-changing request must come from the page itself: Origin "+quoteOrNone(origin)+" is not http://"+r.Host)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// quoteOrNone quotes s, or says it is missing.
func quoteOrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return `"` + s + `"`
}
