package apiserver

// This file serves pods/log, the subresource behind `kubectl logs`. The
// apiserver holds no logs: it finds the pod's node and proxies the request
// to that node's kubelet, as upstream does:
//
//	kubectl ──GET pods/web/log?follow=true──▶ apiserver
//	apiserver ──GET https://<node InternalIP>:<kubelet port>/containerLogs/<ns>/web/<container>?follow=true──▶ kubelet
//
// streaming the kubelet's answer back as it arrives, so `kubectl logs -f`
// prints each line when the container prints it.
//
// Two rules keep the proxy honest in a cluster whose nodes all live on one
// machine:
//   - It only dials a node whose InternalIP is 127.0.0.1 or ::1. Pod and
//     node addresses are labels in kplane, never destinations; an apiserver
//     that dialled whatever a Node object says would let anyone who can
//     write a Node make it connect anywhere.
//   - It authenticates to the kubelet with its apiserver-kubelet-client
//     certificate (pkg/pki), signed by the cluster CA the kubelet trusts. It
//     does not verify the kubelet's self-signed serving certificate, which
//     is upstream's default too: without --kubelet-certificate-authority the
//     apiserver skips that check.

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
)

// kubeletDialTimeout bounds connecting to a kubelet; the stream itself may
// last as long as the client follows it.
const kubeletDialTimeout = 5 * time.Second

// maxKubeletErrorBody caps how much of a kubelet's error answer is read.
const maxKubeletErrorBody = 4 << 10

// podLogOptions is upstream's PodLogOptions, read from the query string.
type podLogOptions struct {
	container    string
	follow       bool
	previous     bool
	timestamps   bool
	tailLines    *int64
	limitBytes   *int64
	sinceSeconds *int64
	sinceTime    string
}

// servePodLog handles GET pods/<name>/log.
func (s *Server) servePodLog(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	if r.Method != http.MethodGet {
		response.WriteError(w, apierrors.NewMethodNotSupported(apierrors.Resource{Resource: "pods/log"}, r.Method))
		return
	}
	opts, err := parsePodLogOptions(queryOf(r), info.name)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	so, err := s.getStored(r.Context(), info.res, info.namespace, info.name)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	pod := so.obj.(*api.Pod)
	container, err := logContainer(pod, opts.container)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	if pod.Spec.NodeName == "" {
		response.WriteError(w, apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", pod.Name)))
		return
	}
	if err := checkContainerLogStatus(pod, container, opts.previous); err != nil {
		response.WriteError(w, err)
		return
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
	target := &url.URL{
		Scheme:   "https",
		Host:     host,
		Path:     fmt.Sprintf("/containerLogs/%s/%s/%s", pod.Namespace, pod.Name, container),
		RawQuery: opts.kubeletQuery().Encode(),
	}
	s.proxyKubeletLogs(w, r, target, pod.Name, opts.follow)
}

// parsePodLogOptions reads and validates the query, with upstream's
// messages: a value that is not a number is a BadRequest, a number out of
// range makes the PodLogOptions Invalid.
func parsePodLogOptions(q queryParams, podName string) (podLogOptions, error) {
	o := podLogOptions{
		container:  q.string("container"),
		follow:     q.bool("follow"),
		previous:   q.bool("previous"),
		timestamps: q.bool("timestamps"),
		sinceTime:  q.string("sinceTime"),
	}
	for _, n := range []struct {
		name string
		dst  **int64
	}{{"tailLines", &o.tailLines}, {"limitBytes", &o.limitBytes}, {"sinceSeconds", &o.sinceSeconds}} {
		v, err := q.optionalInt64(n.name)
		if err != nil {
			return o, err
		}
		*n.dst = v
	}
	if o.sinceTime != "" {
		if _, err := time.Parse(time.RFC3339, o.sinceTime); err != nil {
			return o, apierrors.NewBadRequest(fmt.Sprintf("invalid value %q for sinceTime: %v", o.sinceTime, err))
		}
	}
	var errs apierrors.FieldErrorList
	if o.tailLines != nil && *o.tailLines < 0 {
		errs = append(errs, apierrors.Invalid("tailLines", *o.tailLines, "must be greater than or equal to 0"))
	}
	if o.limitBytes != nil && *o.limitBytes < 1 {
		errs = append(errs, apierrors.Invalid("limitBytes", *o.limitBytes, "must be greater than 0"))
	}
	if o.sinceSeconds != nil && o.sinceTime != "" {
		errs = append(errs, apierrors.Forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be specified"))
	}
	if o.sinceSeconds != nil && *o.sinceSeconds < 1 {
		errs = append(errs, apierrors.Invalid("sinceSeconds", *o.sinceSeconds, "must be greater than 0"))
	}
	if len(errs) > 0 {
		return o, apierrors.NewInvalid("PodLogOptions", "", podName, errs)
	}
	return o, nil
}

// kubeletQuery is the query forwarded to the kubelet.
func (o podLogOptions) kubeletQuery() url.Values {
	q := url.Values{}
	for name, set := range map[string]bool{"follow": o.follow, "previous": o.previous, "timestamps": o.timestamps} {
		if set {
			q.Set(name, "true")
		}
	}
	for name, v := range map[string]*int64{"tailLines": o.tailLines, "limitBytes": o.limitBytes, "sinceSeconds": o.sinceSeconds} {
		if v != nil {
			q.Set(name, strconv.FormatInt(*v, 10))
		}
	}
	if o.sinceTime != "" {
		q.Set("sinceTime", o.sinceTime)
	}
	return q
}

// logContainer picks the container whose logs are asked for: the named one,
// or the pod's only (regular) container.
func logContainer(pod *api.Pod, name string) (string, error) {
	var names []string
	for _, c := range pod.Spec.InitContainers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		names = append(names, c.Name)
	}
	if name != "" {
		for _, n := range names {
			if n == name {
				return name, nil
			}
		}
		return "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", name, pod.Name))
	}
	switch len(pod.Spec.Containers) {
	case 1:
		return pod.Spec.Containers[0].Name, nil
	case 0:
		return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s", pod.Name))
	}
	return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: %s", pod.Name, names))
}

// checkContainerLogStatus refuses, from the pod's reported status, a
// request for logs that do not exist yet, in the words of upstream's kubelet
// (validateContainerLogStatus). A waiting container with an earlier run
// shows that run's logs (a container in CrashLoopBackOff).
func checkContainerLogStatus(pod *api.Pod, container string, previous bool) error {
	status, found := findContainerStatus(pod, container)
	if !found {
		// No status yet: the kubelet has not reported this container, which
		// upstream's kubelet would show as being created.
		return apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start: ContainerCreating", container, pod.Name))
	}
	state, last := status.State, status.LastTerminationState
	switch {
	case previous:
		if last.Terminated == nil {
			return apierrors.NewBadRequest(fmt.Sprintf("previous terminated container %q in pod %q not found", container, pod.Name))
		}
	case state.Running != nil, state.Terminated != nil, last.Terminated != nil:
		return nil
	case state.Waiting != nil:
		reason := state.Waiting.Reason
		switch reason {
		case "ErrImagePull":
			reason = "image can't be pulled"
		case "ImagePullBackOff":
			reason = "trying and failing to pull image"
		}
		return apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start: %s", container, pod.Name, reason))
	default:
		return apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start - no logs yet", container, pod.Name))
	}
	return nil
}

// findContainerStatus finds a container's status among the pod's regular,
// init and ephemeral container statuses.
func findContainerStatus(pod *api.Pod, name string) (api.ContainerStatus, bool) {
	for _, list := range [][]api.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for _, cs := range list {
			if cs.Name == name {
				return cs, true
			}
		}
	}
	return api.ContainerStatus{}, false
}

// kubeletHost is host:port of a node's kubelet (package kubeletaddr:
// its InternalIP, which must be a loopback address or inside
// --kubelet-networks, and its daemonEndpoints port). It is never an
// address this apiserver serves on: a node that rewrote its Node to point
// at the apiserver would otherwise have the apiserver send a request to
// itself with its kubelet-client certificate, which is cluster-admin.
func (s *Server) kubeletHost(node *api.Node) (string, error) {
	host, err := s.kubeletNets.Host(node, "apiserver")
	if err != nil {
		return "", err
	}
	if s.servesOn(host) {
		return "", fmt.Errorf("node %q reports its kubelet at %s, where this apiserver serves: kplane's apiserver never dials itself as a kubelet", node.Name, host)
	}
	return host, nil
}

// servesOn reports whether hostport is an address this apiserver answers
// on: its port on its bind address (any address when bound to every
// interface), its advertise address or a loopback address.
func (s *Server) servesOn(hostport string) bool {
	host, portText, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	if port, err := strconv.Atoi(portText); err != nil || port != s.port {
		return false
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return true // a name could be anything: refuse it on the apiserver's port
	}
	ip = ip.Unmap()
	if bind, err := netip.ParseAddr(s.opts.BindAddress); ip.IsLoopback() || (err == nil && bind.IsUnspecified()) {
		return true
	}
	for _, own := range []string{s.opts.BindAddress, s.advertiseAddress()} {
		if a, err := netip.ParseAddr(own); err == nil && a.Unmap() == ip {
			return true
		}
	}
	return false
}

// proxyKubeletLogs sends the request to the kubelet and copies its answer,
// flushing after every chunk when following. Kubelet errors are turned into
// Status errors as upstream's response checker does: its 400 text becomes
// a BadRequest message, 404 a NotFound, 500 an InternalError.
func (s *Server) proxyKubeletLogs(w http.ResponseWriter, r *http.Request, target *url.URL, podName string, follow bool) {
	transport := s.kubeletTransport()
	defer transport.CloseIdleConnections()
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, target.String(), nil)
	if err != nil {
		response.WriteError(w, apierrors.NewInternalError(err))
		return
	}
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		response.WriteError(w, unknownError(err))
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 206 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxKubeletErrorBody))
		response.WriteError(w, kubeletError(resp.StatusCode, strings.TrimSuffix(string(body), "\n"), podName))
		return
	}

	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if follow && flusher != nil {
		flusher.Flush() // kubectl sees the stream open before the first line
	}
	buf := make([]byte, 32*1024)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if follow && flusher != nil {
				flusher.Flush()
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && r.Context().Err() == nil {
				s.log.Debug("pod log stream from kubelet ended early", "url", target.String(), "err", err)
			}
			return
		}
	}
}

// kubeletDialContext dials a kubelet --kubelet-networks allows, and never
// this apiserver (servesOn): the guard behind kubeletHost for an address
// that reaches the transport some other way, such as a redirect.
func (s *Server) kubeletDialContext() func(ctx context.Context, network, addr string) (net.Conn, error) {
	dial := s.kubeletNets.DialContext(kubeletDialTimeout)
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if s.servesOn(addr) {
			return nil, fmt.Errorf("refusing to dial %s: this apiserver serves there, it is not a kubelet", addr)
		}
		return dial(ctx, network, addr)
	}
}

// kubeletTransport connects to kubelets (loopback or --kubelet-networks only), presenting the
// apiserver's kubelet-client certificate.
func (s *Server) kubeletTransport() *http.Transport {
	return &http.Transport{
		Proxy:       nil, // never via a proxy from the environment
		DialContext: s.kubeletDialContext(),
		TLSClientConfig: &tls.Config{
			Certificates: []tls.Certificate{s.pki.KubeletClientCert},
			// The kubelet's serving certificate is self-signed; see the
			// top of this file.
			InsecureSkipVerify: true, //nolint:gosec // upstream's default without --kubelet-certificate-authority
			MinVersion:         tls.VersionTLS12,
		},
		TLSHandshakeTimeout: kubeletDialTimeout,
	}
}

// kubeletError is upstream's GenericHttpResponseChecker: the Status for a
// kubelet's error answer.
func kubeletError(code int, body, podName string) error {
	switch code {
	case http.StatusBadRequest:
		return apierrors.NewBadRequest(body)
	case http.StatusInternalServerError:
		return apierrors.NewInternalError(errors.New(body))
	case http.StatusNotFound:
		return &apierrors.StatusError{ErrStatus: api.Status{
			TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure",
			Code: http.StatusNotFound, Reason: apierrors.ReasonNotFound,
			Message: fmt.Sprintf("the server could not find the requested resource ( pods/log %s)", podName),
			Details: &api.StatusDetails{Name: podName, Kind: "pods/log",
				Causes: []api.StatusCause{{Type: "UnexpectedServerResponse", Message: body}}},
		}}
	}
	return &apierrors.StatusError{ErrStatus: api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure",
		Code: int32(code), Message: fmt.Sprintf("the server responded with the status code %d but did not return more information ( pods/log %s)", code, podName),
		Details: &api.StatusDetails{Name: podName, Kind: "pods/log",
			Causes: []api.StatusCause{{Type: "UnexpectedServerResponse", Message: body}}},
	}}
}

// unknownError is how upstream reports a failure that is not an API error,
// such as a kubelet that cannot be reached: 500 with no reason, which
// kubectl prints as "Error from server: <message>".
func unknownError(err error) error {
	return &apierrors.StatusError{ErrStatus: api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure",
		Code: http.StatusInternalServerError, Message: err.Error(),
	}}
}
