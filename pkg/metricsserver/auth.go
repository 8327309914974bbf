package metricsserver

// This file decides who is calling, as upstream's generic apiserver does
// for an aggregated API server with its two authenticators:
//
//   - request-header: a client whose certificate the cluster CA signed
//     (the apiserver's aggregator presents its kubelet-client certificate)
//     may say whom it proxies for in X-Remote-User, X-Remote-Group (one
//     header per group) and X-Remote-Extra-<key>; that user is the caller.
//   - x509: any other client certificate of the CA names the caller itself,
//     CN the user and O the groups.
//
// A request with neither is answered 401 Unauthorized. Upstream would then
// ask the apiserver whether the user may get the resource (a
// SubjectAccessReview, delegated authorization); kplane's metrics-server
// does not ask again: the apiserver authorizes every request (Node,RBAC)
// before its aggregator proxies it here, so the caller named in
// X-Remote-User already holds the right to read the metrics (RBAC's
// system:aggregated-metrics-reader, aggregated into view, edit and admin).

import (
	"net/http"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/auth"
)

// Request-header names the aggregator sets, upstream's defaults for
// --requestheader-username-headers and --requestheader-group-headers.
const (
	remoteUserHeader  = "X-Remote-User"
	remoteGroupHeader = "X-Remote-Group"
)

// requestUser is who r comes from, false when it presented no certificate
// the TLS handshake verified.
func requestUser(r *http.Request) (auth.User, bool) {
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 || len(r.TLS.PeerCertificates) == 0 {
		return auth.User{}, false
	}
	if name := r.Header.Get(remoteUserHeader); name != "" {
		return auth.User{Name: name, Groups: r.Header.Values(remoteGroupHeader)}, true
	}
	subject := r.TLS.PeerCertificates[0].Subject
	if subject.CommonName == "" {
		return auth.User{}, false
	}
	return auth.User{Name: subject.CommonName, Groups: subject.Organization}, true
}

// authenticate serves next only to authenticated callers, and answers 401
// to the others.
func authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := requestUser(r); !ok {
			response.WriteError(w, apierrors.NewUnauthorized(""))
			return
		}
		next.ServeHTTP(w, r)
	})
}
