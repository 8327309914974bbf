package simshell

// This file decides where a connection from the pod would land, without
// opening one. An address is either one of the pod's own (127.0.0.1, its
// pod IP), a Service address — the node's kube-proxy is asked which
// endpoint its rules pick (package pkg/proxy/route) — or a pod IP, looked
// up in the API. The answer is a pod and port, whose container then
// answers through Env.HTTP.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/proxy/route"
)

// routeTimeout bounds the question to the node's kube-proxy, which
// answers from memory on loopback.
const routeTimeout = 2 * time.Second

// destination is where a connection to an address and port lands.
type destination struct {
	pod  *api.Pod
	port int32
	// route is the kube-proxy's answer when the address was a Service's.
	route *route.Route
}

// errRefused is a connection nothing accepts: no pod has the address, the
// Service has no ready endpoint (the rules reject it), or nothing in the
// pod listens on the port.
type errRefused struct{ reason string }

// Error says why the connection was refused.
func (e *errRefused) Error() string { return "connection refused: " + e.reason }

// destinationOf finds where a TCP connection from the pod to ip:port lands.
func (sh *Shell) destinationOf(ctx context.Context, ip string, port int32) (destination, error) {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return destination{}, &errRefused{fmt.Sprintf("%q is not an IP address", ip)}
	}
	if addr.IsLoopback() || sh.isOwnIP(ip) {
		return destination{pod: sh.env.Pod, port: port}, nil
	}
	if sh.env.KubeProxyAddress != "" {
		r, status, err := sh.askKubeProxy(ctx, ip, port)
		switch {
		case err != nil:
			return destination{}, &errRefused{err.Error()}
		case status == http.StatusOK && r.Endpoint != nil:
			pod, err := sh.endpointPod(ctx, r.Endpoint)
			if err != nil {
				return destination{}, err
			}
			return destination{pod: pod, port: r.Endpoint.Port, route: r}, nil
		case status != http.StatusNotFound:
			return destination{route: r}, &errRefused{fmt.Sprintf("%s: %s", r.Reason, r.Message)}
		}
	}
	if sh.env.Cluster == nil {
		return destination{}, &errRefused{"no API access to find the pod with IP " + ip}
	}
	pod, err := sh.env.Cluster.PodByIP(ctx, ip)
	if err != nil {
		return destination{}, &errRefused{fmt.Sprintf("find the pod with IP %s: %v", ip, err)}
	}
	if pod == nil {
		return destination{}, &errRefused{"no pod or Service has the address " + ip}
	}
	return destination{pod: pod, port: port}, nil
}

// isOwnIP reports whether ip is one of the pod's IPs.
func (sh *Shell) isOwnIP(ip string) bool {
	for _, own := range sh.podIPs() {
		if own == ip {
			return true
		}
	}
	return false
}

// askKubeProxy asks the node's kube-proxy where its rules send a
// connection from the pod to ip:port.
func (sh *Shell) askKubeProxy(ctx context.Context, ip string, port int32) (*route.Route, int, error) {
	source := ""
	if ips := sh.podIPs(); len(ips) > 0 {
		source = ips[0]
	}
	q := url.Values{"ip": {ip}, "port": {strconv.Itoa(int(port))}, "protocol": {"TCP"}, "sourceIP": {source}}
	u := "http://" + sh.env.KubeProxyAddress + route.Path + "?" + q.Encode()
	ctx, cancel := context.WithTimeout(ctx, routeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("ask kube-proxy: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("the node's kube-proxy at %s did not answer: %w", sh.env.KubeProxyAddress, err)
	}
	defer resp.Body.Close()
	var r route.Route
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, 0, fmt.Errorf("read kube-proxy's answer (HTTP %d): %w", resp.StatusCode, err)
	}
	return &r, resp.StatusCode, nil
}

// endpointPod reads the pod behind an endpoint the kube-proxy chose.
func (sh *Shell) endpointPod(ctx context.Context, ep *route.Endpoint) (*api.Pod, error) {
	if sh.env.Cluster == nil {
		return nil, &errRefused{"no API access to read the endpoint's pod"}
	}
	var pod *api.Pod
	var err error
	if ep.PodName != "" {
		pod, err = sh.env.Cluster.GetPod(ctx, ep.PodNamespace, ep.PodName)
	} else {
		pod, err = sh.env.Cluster.PodByIP(ctx, ep.IP)
	}
	if err != nil {
		return nil, &errRefused{fmt.Sprintf("read the endpoint's pod: %v", err)}
	}
	if pod == nil {
		return nil, &errRefused{fmt.Sprintf("endpoint %s:%d has no pod", ep.IP, ep.Port)}
	}
	return pod, nil
}

// serve sends req to the destination's pod and returns its answer, or
// errRefused when nothing there listens on the port.
func (sh *Shell) serve(dest destination, req *http.Request) (*http.Response, error) {
	if sh.env.HTTP == nil {
		return nil, &errRefused{"no simulated server answers"}
	}
	container := listeningContainer(dest.pod, dest.port)
	resp, ok := sh.env.HTTP(dest.pod, container, dest.port, req)
	if !ok || resp == nil {
		return nil, &errRefused{fmt.Sprintf("nothing in pod %s listens on port %d", dest.pod.Name, dest.port)}
	}
	return resp, nil
}

// listeningContainer is the container of pod that declares port, or the
// first container (a port need not be declared to be served).
func listeningContainer(pod *api.Pod, port int32) *api.Container {
	for i := range pod.Spec.Containers {
		for _, p := range pod.Spec.Containers[i].Ports {
			if p.ContainerPort == port {
				return &pod.Spec.Containers[i]
			}
		}
	}
	if len(pod.Spec.Containers) == 0 {
		return &api.Container{}
	}
	return &pod.Spec.Containers[0]
}
