package apiserver

// Proxying an aggregated group/version, as upstream's proxyHandler
// (kube-aggregator/pkg/apiserver/handler_proxy.go) does: the apiserver has
// already authenticated the client; it forwards the request to the backend
// over TLS, presents its own client certificate, and says who the user is
// in X-Remote-User, X-Remote-Group and X-Remote-Extra-* headers, which the
// backend believes because of that certificate (upstream calls it the
// requestheader authentication). The client's own credentials stay here.

import (
	"log/slog"
	"net/http"
	"net/http/httputil"
	"strings"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/auth"
)

// Headers the aggregator uses to pass the user on (upstream's
// --requestheader-username-headers, -group-headers and
// -extra-headers-prefix defaults).
const (
	remoteUserHeader        = "X-Remote-User"
	remoteGroupHeader       = "X-Remote-Group"
	remoteExtraHeaderPrefix = "X-Remote-Extra-"
)

// serviceUnavailable is upstream's answer when an aggregated group/version
// cannot be reached; kubectl prints its message as
// "Error from server (ServiceUnavailable): the server is currently unable
// to handle the request".
func serviceUnavailable() error {
	return apierrors.NewServiceUnavailable("the server is currently unable to handle the request")
}

// proxyAggregated sends a request under /apis/<group>/<version> to the
// backend registered for that group/version, and passes every other request
// on to next. It runs after authentication.
func (a *aggregator) proxyAggregated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		group, version, ok := aggregatedPath(r.URL.Path)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		b := a.lookup(group, version)
		if b == nil {
			next.ServeHTTP(w, r)
			return
		}
		if b.resources == nil {
			response.WriteError(w, serviceUnavailable())
			return
		}
		b.proxy.ServeHTTP(w, r)
	})
}

// aggregatedPath returns the group and version of a path
// /apis/<group>/<version>[/...]; ok is false for every other path.
func aggregatedPath(path string) (group, version string, ok bool) {
	rest, found := strings.CutPrefix(path, "/apis/")
	if !found {
		return "", "", false
	}
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return "", "", false
	}
	return parts[0], parts[1], true
}

// reverseProxy builds b's proxy, once per check: it sends each request to
// b.url over b.transport as the user who made it. httputil.ReverseProxy
// drops the hop-by-hop headers (Connection, Upgrade unless upgrading,
// Keep-Alive, …), passes an upgrade (101 Switching Protocols) through, and
// with FlushInterval -1 writes every chunk as it arrives, so a watch
// streams.
func (a *aggregator) reverseProxy(b *backend) *httputil.ReverseProxy {
	target := b.url
	log := a.s.log
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = target.Host
			user, _ := auth.UserFrom(pr.In.Context())
			setRemoteUser(pr.Out.Header, user)
		},
		Transport:     b.transport,
		FlushInterval: -1,
		ErrorLog:      slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			log.Warn("aggregator: proxy", "apiservice", b.apiService.Name, "path", r.URL.Path, "err", err)
			response.WriteError(w, serviceUnavailable())
		},
	}
}

// setRemoteUser replaces whatever identity headers the client sent (a
// client must never choose who the backend thinks it is) with the
// authenticated user's, and drops the client's credentials.
func setRemoteUser(h http.Header, user auth.User) {
	h.Del("Authorization")
	for name := range h {
		if strings.HasPrefix(http.CanonicalHeaderKey(name), remoteExtraHeaderPrefix) {
			h.Del(name)
		}
	}
	h.Del(remoteUserHeader)
	h.Del(remoteGroupHeader)
	h.Set(remoteUserHeader, user.Name)
	for _, g := range user.Groups {
		h.Add(remoteGroupHeader, g)
	}
}
