package ctl

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"kplane/pkg/cluster"
	"kplane/pkg/debug"
	"kplane/pkg/kubeproxy"
)

// proxyRulesOptions are `ctl proxy-rules`' flags.
type proxyRulesOptions struct {
	dataDir string
	node    string
	mode    string
	service string
}

// newProxyRulesCommand is `ctl proxy-rules --node NODE`: the rules that
// node's kube-proxy computed, as the node's own tools would print them.
func newProxyRulesCommand(streams IOStreams, access debugAccess) *cobra.Command {
	o := proxyRulesOptions{dataDir: cluster.DefaultOptions().DataDir, mode: kubeproxy.ModeIPTables}
	cmd := &cobra.Command{
		Use:   "proxy-rules --node NODE [--mode iptables|nftables|ipvs] [--service NAMESPACE/NAME]",
		Short: "Print the Service rules a node's kube-proxy computed (iptables-save, nft list ruleset, ipvsadm -Ln)",
		Long: `proxy-rules asks the node's kube-proxy, through its debug API, for the rules it
would program on that node for every Service, and prints them as the node's own
tools would:

  --mode iptables   as iptables-save prints the filter and nat tables: KUBE-SERVICES
                    → KUBE-SVC-… (one rule per endpoint, "-m statistic --mode random
                    --probability 1/n") → KUBE-SEP-… (DNAT to the pod)
  --mode nftables   as nft list ruleset prints table ip kube-proxy: the service-ips
                    map, and "numgen random mod N vmap" in each service- chain
  --mode ipvs       as ipvsadm -Ln prints the virtual servers and their real servers

kplane never programs these rules: they are what upstream's kube-proxy would
write, computed from the same Services and EndpointSlices (docs/kube-proxy.md).
--service keeps only one Service's chains.`,
		Example: `  ctl proxy-rules --node node1
  ctl proxy-rules --node node1 --service default/web
  ctl proxy-rules --node node1 --mode ipvs`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runProxyRules(cmd.Context(), streams.Out, access, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.node, "node", "", "the node whose kube-proxy to ask (required)")
	f.StringVar(&o.mode, "mode", o.mode, "the shape of the rules: iptables, nftables or ipvs")
	f.StringVar(&o.service, "service", "", "only the rules of this Service (namespace/name)")
	f.StringVar(&o.dataDir, "data-dir", o.dataDir, "the cluster's data directory")
	return cmd
}

func runProxyRules(ctx context.Context, out io.Writer, access debugAccess, o proxyRulesOptions) error {
	if o.node == "" {
		return fmt.Errorf("--node is required: the node whose kube-proxy to ask (ctl get nodes)")
	}
	switch o.mode {
	case kubeproxy.ModeIPTables, kubeproxy.ModeNFTables, kubeproxy.ModeIPVS:
	default:
		return fmt.Errorf("--mode %q: must be iptables, nftables or ipvs", o.mode)
	}
	if o.service != "" {
		if ns, name, ok := strings.Cut(o.service, "/"); !ok || ns == "" || name == "" {
			return fmt.Errorf("--service %q: must be namespace/name", o.service)
		}
	}
	dc, endpoints, err := access(o.dataDir)
	if err != nil {
		return err
	}
	ep, err := kubeProxyEndpoint(endpoints, o.node, o.dataDir)
	if err != nil {
		return err
	}
	q := url.Values{"mode": {o.mode}}
	if o.service != "" {
		q.Set("service", o.service)
	}
	var rules kubeproxy.Rules
	if err := dc.Get(ctx, ep, kubeproxy.PathRules+"?"+q.Encode(), &rules); err != nil {
		return err
	}
	_, err = io.WriteString(out, rules.Text)
	return err
}

// kubeProxyEndpoint finds the debug endpoint of node's kube-proxy.
func kubeProxyEndpoint(endpoints []debug.Endpoint, node, dataDir string) (debug.Endpoint, error) {
	want := cluster.KubeProxyComponent(node)
	var nodes []string
	for _, ep := range endpoints {
		if ep.Component == want {
			return ep, nil
		}
		if name, ok := cluster.KubeProxyNode(ep.Component); ok {
			nodes = append(nodes, name)
		}
	}
	if len(nodes) == 0 {
		return debug.Endpoint{}, fmt.Errorf("no kube-proxy runs in the cluster in %s (is bin/kube-proxy built? `make build`, then restart `ctl up`)", dataDir)
	}
	return debug.Endpoint{}, fmt.Errorf("node %q has no kube-proxy (kube-proxies found for: %s)", node, strings.Join(nodes, ", "))
}
