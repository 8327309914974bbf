package proxy

// Categorize sorts p's endpoints into those node would send traffic to,
// as upstream's CategorizeEndpoints (pkg/proxy/topology.go) does without
// topology hints (kplane's nodes have no zones):
//
//   - ClusterEndpoints, when some traffic follows the Cluster policy: the
//     ready endpoints, or if none is ready anywhere, those still serving
//     while terminating.
//   - LocalEndpoints, when some traffic follows the Local policy: the
//     ready endpoints on node, or if none, node's serving-terminating ones.
//   - Reachable: the union of both.
//   - HasEndpoints: some usable endpoint exists anywhere in the cluster.
//
// An endpoint that is neither ready nor serving-while-terminating (a pod
// failing its readiness probe) never receives traffic.
func Categorize(p *ServicePort, node string) {
	p.ClusterEndpoints, p.LocalEndpoints, p.Reachable, p.HasEndpoints = nil, nil, nil, false
	if p.UsesClusterEndpoints() {
		p.ClusterEndpoints = filter(p.Endpoints, func(e Endpoint) bool { return e.Ready })
		if len(p.ClusterEndpoints) == 0 {
			p.ClusterEndpoints = filter(p.Endpoints, servingTerminating)
		}
		p.HasEndpoints = len(p.ClusterEndpoints) > 0
	}
	if !p.UsesLocalEndpoints() {
		p.Reachable = p.ClusterEndpoints
		return
	}
	local := func(e Endpoint) bool { return node != "" && e.NodeName == node }
	var localReady, localTerminating bool
	for _, e := range p.Endpoints {
		switch {
		case e.Ready:
			p.HasEndpoints = true
			localReady = localReady || local(e)
		case servingTerminating(e):
			p.HasEndpoints = true
			localTerminating = localTerminating || local(e)
		}
	}
	switch {
	case localReady:
		p.LocalEndpoints = filter(p.Endpoints, func(e Endpoint) bool { return local(e) && e.Ready })
	case localTerminating:
		p.LocalEndpoints = filter(p.Endpoints, func(e Endpoint) bool { return local(e) && servingTerminating(e) })
	}
	if !p.UsesClusterEndpoints() {
		p.Reachable = p.LocalEndpoints
		return
	}
	// Both policies in use: merge, keeping the sorted order.
	in := map[string]bool{}
	for _, e := range p.ClusterEndpoints {
		in[e.String()] = true
	}
	for _, e := range p.LocalEndpoints {
		in[e.String()] = true
	}
	p.Reachable = filter(p.Endpoints, func(e Endpoint) bool { return in[e.String()] })
}

func servingTerminating(e Endpoint) bool { return e.Serving && e.Terminating }

func filter(eps []Endpoint, keep func(Endpoint) bool) []Endpoint {
	out := make([]Endpoint, 0, len(eps))
	for _, e := range eps {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}
