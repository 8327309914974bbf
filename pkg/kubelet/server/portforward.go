package server

// This file serves /portForward, the kubelet's end of `kubectl
// port-forward`. The apiserver proxies pods/portforward here unchanged
// (pkg/apiserver/podstreams.go); this handler finds the pod and its
// runtime, and pkg/streaming speaks the wire protocol (SPDY, the WebSocket
// tunnel, or WebSocket channels), handing each forwarded connection to the
// runtime's PortForward as a plain byte stream. Upstream: the kubelet's
// streaming server, pkg/kubelet/cri/streaming/server.go (servePortForward).

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"kplane/pkg/kubelet/runtime"
	"kplane/pkg/streaming"
)

// servePortForward handles /portForward/{namespace}/{pod}.
func (s *Server) servePortForward(w http.ResponseWriter, r *http.Request) {
	namespace, name := r.PathValue("namespace"), r.PathValue("pod")
	lookup := s.podLookup()
	if lookup == nil {
		http.Error(w, "the kubelet is not ready to forward ports", http.StatusServiceUnavailable)
		return
	}
	pod, rt, err := lookup(namespace, name)
	if err != nil {
		http.Error(w, err.Error(), lookupStatusCode(err))
		return
	}
	forwarder, ok := rt.(runtime.PortForwarder)
	if !ok {
		http.Error(w, fmt.Sprintf("the %s container runtime cannot forward ports", rt.Name()), http.StatusNotImplemented)
		return
	}
	s.log.Debug("port-forward session", "pod", namespace+"/"+name, "runtime", rt.Name())
	forward := func(ctx context.Context, port int32, conn io.ReadWriteCloser) error {
		return forwarder.PortForward(ctx, pod, port, conn)
	}
	streaming.ServePortForward(w, r, forward, streaming.PortForwardOptions{
		Pod: namespace + "/" + name, UID: string(pod.UID), Logger: s.log,
	})
}
