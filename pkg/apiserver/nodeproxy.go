package apiserver

// This file serves nodes/proxy: GET /api/v1/nodes/<node>/proxy/<path> is
// passed to that node's kubelet as GET https://<kubelet>/<path>, and the
// kubelet's answer comes back as it is — status, content type and body.
// It is how a student reads what a kubelet serves without its
// certificate:
//
//	kubectl get --raw /api/v1/nodes/node1/proxy/stats/summary
//	kubectl get --raw /api/v1/nodes/node1/proxy/metrics/resource
//
// Upstream (pkg/registry/core/node/rest/proxy.go) proxies every method,
// upgrades included, and accepts <node>:<port> to pick a port; kplane
// proxies GET and HEAD to the kubelet's port only. The apiserver dials the
// kubelet as for `kubectl logs` (kubeletHost: loopback or --kubelet-networks only, with its
// kubelet-client certificate) and names the node in the Host header, so
// that a kubelet process of many hollow nodes answers for the right one.

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
)

// serveNodeProxy passes a GET of nodes/<name>/proxy/<path> to the node's kubelet.
func (s *Server) serveNodeProxy(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		response.WriteError(w, apierrors.NewMethodNotSupported(apierrors.Resource{Resource: "nodes/proxy"}, r.Method))
		return
	}
	so, err := s.getStored(r.Context(), info.res, "", info.name)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	node := so.obj.(*api.Node)
	host, err := s.kubeletHost(node)
	if err != nil {
		response.WriteError(w, apierrors.NewServiceUnavailable(fmt.Sprintf("error trying to reach service: %v", err)))
		return
	}
	target := &url.URL{Scheme: "https", Host: host, Path: info.proxyPath, RawQuery: r.URL.RawQuery}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, target.String(), nil)
	if err != nil {
		response.WriteError(w, apierrors.NewBadRequest(fmt.Sprintf("proxy path %q: %v", info.proxyPath, err)))
		return
	}
	req.Host = node.Name
	if accept := r.Header.Get("Accept"); accept != "" {
		req.Header.Set("Accept", accept)
	}
	transport := s.kubeletTransport()
	defer transport.CloseIdleConnections()
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		response.WriteError(w, apierrors.NewServiceUnavailable(fmt.Sprintf("error trying to reach service: %v", unwrapURLError(err))))
		return
	}
	defer resp.Body.Close()
	for _, h := range []string{"Content-Type", "Content-Length"} {
		if v := resp.Header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	if _, err := io.Copy(w, resp.Body); err != nil && r.Context().Err() == nil {
		s.log.Debug("node proxy: copy the kubelet's answer", "node", node.Name, "path", info.proxyPath, "err", err)
	}
}

// unwrapURLError drops net/http's `Get "https://…":` prefix, which names
// the kubelet's loopback address twice.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// nodeProxyPath is the kubelet path of a nodes/<name>/proxy/<rest> request:
// "/" + rest, keeping a trailing slash.
func nodeProxyPath(rest []string, rawPath string) string {
	p := "/" + strings.Join(rest, "/")
	if strings.HasSuffix(rawPath, "/") && p != "/" {
		p += "/"
	}
	return p
}
