package kubeproxy

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/debug"
	"kplane/pkg/proxy"
	"kplane/pkg/proxy/iptables"
	"kplane/pkg/proxy/ipvs"
	"kplane/pkg/proxy/nftables"
	"kplane/pkg/proxy/route"
)

// PathRules is where a kube-proxy answers its rules, for cluster
// administrators: GET /proxy/rules?mode=iptables|nftables|ipvs
// [&service=ns/name][&format=text]. The answer is a Rules, or the bare
// text with format=text.
const PathRules = "/proxy/rules"

// Rules is a kube-proxy's answer on PathRules.
type Rules struct {
	// Node is the node the rules are for; Mode the view (iptables,
	// nftables, ipvs).
	Node string `json:"node"`
	Mode string `json:"mode"`
	// Synced is when the rules were computed.
	Synced time.Time `json:"synced"`
	// Text is the rules as iptables-save, nft list ruleset or ipvsadm -Ln
	// prints them.
	Text string `json:"text"`
}

// mux is the kube-proxy's HTTP server: upstream's metrics-port routes to
// anyone, the rules and the debug API to administrators only.
func (p *Proxier) mux(authn debug.Authenticator) *http.ServeMux {
	mux := debug.ComponentMux(p.opts.Journal, authn, p.metrics.handler())
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
	})
	mux.HandleFunc("GET /proxyMode", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(p.opts.Mode))
	})
	mux.HandleFunc("GET "+route.Path, p.serveRoute)
	mux.Handle("GET "+PathRules, debug.AdminOnly(authn, http.HandlerFunc(p.serveRules)))
	return mux
}

// serveRules answers PathRules.
func (p *Proxier) serveRules(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	mode := q.Get("mode")
	if mode == "" {
		mode = p.opts.Mode
	}
	var namespace, name string
	if svc := q.Get("service"); svc != "" {
		var ok bool
		if namespace, name, ok = strings.Cut(svc, "/"); !ok || namespace == "" || name == "" {
			debug.WriteStatus(w, http.StatusBadRequest, "BadRequest", "service must be namespace/name, not "+strconv.Quote(svc))
			return
		}
	}
	snap := p.Current()
	if snap == nil {
		debug.WriteStatus(w, http.StatusServiceUnavailable, "ServiceUnavailable", "kube-proxy has not synced its rules yet")
		return
	}
	text, err := render(snap, mode, namespace, name)
	if err != nil {
		debug.WriteStatus(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	if q.Get("format") == "text" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(text))
		return
	}
	debug.WriteJSON(w, Rules{Node: snap.State.Name, Mode: mode, Synced: snap.Synced, Text: text})
}

// render prints snap in mode's shape, all of it or only Service
// namespace/name.
func render(snap *Snapshot, mode, namespace, name string) (string, error) {
	switch mode {
	case ModeIPTables:
		if name != "" {
			return snap.IPTables.SaveService(namespace, name), nil
		}
		return snap.IPTables.Save(), nil
	case ModeNFTables:
		rs := nftables.Compute(snap.State)
		if name != "" {
			return rs.ListService(namespace, name), nil
		}
		return rs.List(), nil
	case ModeIPVS:
		servers := ipvs.Compute(snap.State)
		if name != "" {
			servers = ipvs.ForService(servers, namespace, name)
		}
		return ipvs.List(servers), nil
	}
	return "", fmt.Errorf("mode must be iptables, nftables or ipvs, not %q", mode)
}

// serveRoute answers route.Path: where the rules would send a new
// connection from sourceIP to ip:port/protocol.
func (p *Proxier) serveRoute(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	pkt, err := parsePacket(q.Get("ip"), q.Get("port"), q.Get("protocol"), q.Get("sourceIP"))
	if err != nil {
		debug.WriteStatus(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	snap := p.Current()
	if snap == nil {
		debug.WriteStatus(w, http.StatusServiceUnavailable, "ServiceUnavailable", "kube-proxy has not synced its rules yet")
		return
	}
	answer, code := p.route(snap, pkt)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(answer)
}

func parsePacket(ip, port, protocol, source string) (iptables.Packet, error) {
	if _, err := netip.ParseAddr(ip); err != nil {
		return iptables.Packet{}, fmt.Errorf("ip must be an IP address, not %q", ip)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return iptables.Packet{}, fmt.Errorf("port must be a number from 1 to 65535, not %q", port)
	}
	proto := api.Protocol(strings.ToUpper(protocol))
	switch proto {
	case "":
		proto = api.ProtocolTCP
	case api.ProtocolTCP, api.ProtocolUDP, api.ProtocolSCTP:
	default:
		return iptables.Packet{}, fmt.Errorf("protocol must be TCP, UDP or SCTP, not %q", protocol)
	}
	if source == "" {
		// A connection from the node itself.
		source = "127.0.0.1"
	}
	if _, err := netip.ParseAddr(source); err != nil {
		return iptables.Packet{}, fmt.Errorf("sourceIP must be an IP address, not %q", source)
	}
	return iptables.Packet{Source: source, Destination: ip, Port: int32(n), Protocol: proto}, nil
}

// route walks snap's iptables rules for pkt and says what happened, with
// the HTTP status route.Path documents.
func (p *Proxier) route(snap *Snapshot, pkt iptables.Packet) (route.Route, int) {
	v, err := p.walker.Walk(snap.IPTables, pkt)
	if err != nil {
		return route.Route{Reason: "InternalError", Message: err.Error()}, http.StatusInternalServerError
	}
	sp := snap.State.Find(pkt.Destination, pkt.Port, pkt.Protocol)
	if sp == nil {
		sp = findNodePort(snap.State, pkt)
	}
	var service string
	if sp != nil {
		service = sp.Name.String()
	}
	switch v.Target {
	case "DNAT":
		answer := route.Route{Service: service, Chains: v.Chains}
		if sp != nil {
			if e, ok := snap.IPTables.EndpointOf(sp, v.Destination); ok {
				answer.Endpoint = &route.Endpoint{IP: e.IP, Port: e.Port, PodNamespace: e.PodNamespace, PodName: e.PodName, NodeName: e.NodeName}
			}
		}
		if answer.Endpoint == nil {
			host, port, _ := strings.Cut(v.Destination, ":")
			n, _ := strconv.Atoi(port)
			answer.Endpoint = &route.Endpoint{IP: host, Port: int32(n)}
		}
		return answer, http.StatusOK
	case "REJECT", "DROP":
		// REJECT: no endpoint anywhere ("connection refused"); DROP: the
		// Local traffic policy and none on this node (a timeout).
		what := map[string]string{"REJECT": "reject", "DROP": "drop"}[v.Target]
		msg := fmt.Sprintf("the rules %s the connection: %s", what, v.Rule)
		if service != "" {
			msg = service + ": " + msg
		}
		return route.Route{Service: service, Chains: v.Chains, Reason: route.ReasonNoEndpoints, Message: msg}, http.StatusServiceUnavailable
	}
	return route.Route{Reason: route.ReasonNoService,
		Message: fmt.Sprintf("no Service has %s:%d/%s on node %s", pkt.Destination, pkt.Port, pkt.Protocol, snap.State.Name)}, http.StatusNotFound
}

// findNodePort returns the port whose NodePort pkt reaches on one of the
// node's addresses.
func findNodePort(st *proxy.State, pkt iptables.Packet) *proxy.ServicePort {
	local := pkt.Destination == "127.0.0.1"
	for _, ip := range st.IPs {
		local = local || ip == pkt.Destination
	}
	if !local {
		return nil
	}
	for _, sp := range st.Ports {
		if sp.NodePort == pkt.Port && sp.Protocol == pkt.Protocol {
			return sp
		}
	}
	return nil
}
