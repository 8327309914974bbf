package apiserver

// This file serves pods/exec, pods/attach and pods/portforward, the
// subresources behind `kubectl exec`, `kubectl attach` (and `kubectl run
// -it`) and `kubectl port-forward`. As for pods/log the apiserver holds
// nothing itself: it finds the pod's node and hands the connection to that
// node's kubelet,
//
//	kubectl ──POST pods/web/exec?command=sh&stdin=true (Upgrade: SPDY/3.1 or websocket)──▶ apiserver
//	apiserver ──same request to https://<node>:<port>/exec/<ns>/web/<container>──▶ kubelet
//	kubelet ──101 Switching Protocols──▶ apiserver ──101──▶ kubectl
//
// and from the 101 on it only copies bytes both ways: the streams (stdin,
// stdout, stderr, the error channel, resize; or port-forward's data and
// error stream pairs) are a conversation between kubectl and the kubelet
// (pkg/kubelet/server). Upstream's apiserver does the same with its
// UpgradeAwareHandler; since 1.30 it can also translate a WebSocket client
// to SPDY for the kubelet, which kplane's kubelet does not need: it speaks
// both protocols itself.
//
// The same rules as pods/log hold: only a loopback kubelet is dialled, and
// the apiserver authenticates with its kubelet-client certificate.

import (
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
)

// servePodStream handles pods/exec, pods/attach and pods/portforward.
func (s *Server) servePodStream(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		response.WriteError(w, apierrors.NewMethodNotSupported(apierrors.Resource{Resource: "pods/" + info.subresource}, r.Method))
		return
	}
	so, err := s.getStored(r.Context(), info.res, info.namespace, info.name)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	pod := so.obj.(*api.Pod)
	if pod.Spec.NodeName == "" {
		response.WriteError(w, apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", pod.Name)))
		return
	}
	path := fmt.Sprintf("/portForward/%s/%s", pod.Namespace, pod.Name)
	if info.subresource != "portforward" {
		container, err := logContainer(pod, queryOf(r).string("container"))
		if err != nil {
			response.WriteError(w, err)
			return
		}
		path = fmt.Sprintf("/%s/%s/%s/%s", info.subresource, pod.Namespace, pod.Name, container)
	}
	nodes := s.reg.lookup("", "v1", "nodes")
	nodeObj, err := s.getStored(r.Context(), nodes, "", pod.Spec.NodeName)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	host, err := s.kubeletHost(nodeObj.obj.(*api.Node))
	if err != nil {
		response.WriteError(w, unknownError(err))
		return
	}
	target := &url.URL{Scheme: "https", Host: host, Path: path, RawQuery: r.URL.RawQuery}
	transport := s.kubeletTransport()
	defer transport.CloseIdleConnections()
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL = target
			pr.Out.Host = host
			// The kubelet authenticates the apiserver by its certificate;
			// the user's credentials stay here.
			pr.Out.Header.Del("Authorization")
		},
		Transport: transport,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			response.WriteError(w, unknownError(fmt.Errorf("error dialing backend: %w", err)))
		},
	}
	proxy.ServeHTTP(w, r)
}
