package podfiles

import (
	"slices"
	"strconv"
	"strings"

	"kplane/pkg/api"
)

// Limits the kubelet applies to a pod's resolver settings, as upstream's
// validation.MaxDNSNameserversCount and MaxDNSSearchPaths: glibc reads at
// most three nameservers, and a longer search list only slows every
// look-up down.
const (
	maxNameservers = 3
	maxSearches    = 32
)

// defaultOptions are the options of a ClusterFirst pod. ndots:5 makes a
// name with fewer than five dots ("web", "web.default.svc") go through the
// search list first, so that short Service names resolve inside the
// cluster; upstream's defaultDNSOptions.
var defaultOptions = []string{"ndots:5"}

// DNSSettings are the kubelet's flags that shape a pod's resolv.conf.
type DNSSettings struct {
	// ClusterDNS is the cluster DNS Service's IP (--cluster-dns,
	// 10.96.0.10); empty: a ClusterFirst pod falls back to Default, as
	// upstream does (with a MissingClusterDNS event there).
	ClusterDNS string
	// ClusterDomain is the cluster's DNS domain (--cluster-domain,
	// cluster.local).
	ClusterDomain string
}

// ResolvConf is a pod's resolver configuration: the lines of its
// /etc/resolv.conf.
type ResolvConf struct {
	Nameservers []string
	Searches    []string
	Options     []string
}

// PodResolvConf computes the resolv.conf of pod as upstream's GetPodDNS
// does for each dnsPolicy:
//
//   - ClusterFirst (the default), and ClusterFirstWithHostNet: the cluster
//     DNS as the only nameserver, the search list
//     "<ns>.svc.<domain> svc.<domain> <domain>" and ndots:5. A ClusterFirst
//     pod on the host network falls back to Default, which is why
//     ClusterFirstWithHostNet exists.
//   - Default: the node's own resolver settings. kplane's nodes behave as
//     a kubelet started with --resolv-conf="": upstream then gives the
//     pod nameserver 127.0.0.1 and the search list ".", which disables
//     look-ups beyond the node.
//   - None: nothing but what spec.dnsConfig says.
//
// spec.dnsConfig is then appended for every policy (duplicates dropped; an
// option given again replaces the earlier value), and the result is cut to
// three nameservers and 32 search domains.
func PodResolvConf(pod *api.Pod, settings DNSSettings) ResolvConf {
	var rc ResolvConf
	switch clusterDNSPolicy(pod) {
	case api.DNSNone:
	case api.DNSClusterFirst:
		if settings.ClusterDNS != "" {
			domain := strings.TrimSuffix(settings.ClusterDomain, ".")
			rc.Nameservers = []string{settings.ClusterDNS}
			rc.Searches = []string{pod.Namespace + ".svc." + domain, "svc." + domain, domain}
			rc.Options = slices.Clone(defaultOptions)
			break
		}
		fallthrough
	default:
		rc.Nameservers = []string{"127.0.0.1"}
		rc.Searches = []string{"."}
	}
	if cfg := pod.Spec.DNSConfig; cfg != nil {
		rc.Nameservers = appendNew(rc.Nameservers, cfg.Nameservers...)
		rc.Searches = appendNew(rc.Searches, cfg.Searches...)
		rc.Options = mergeOptions(rc.Options, cfg.Options)
	}
	if len(rc.Nameservers) > maxNameservers {
		rc.Nameservers = rc.Nameservers[:maxNameservers]
	}
	if len(rc.Searches) > maxSearches {
		rc.Searches = rc.Searches[:maxSearches]
	}
	return rc
}

// clusterDNSPolicy reduces a pod's dnsPolicy to the three ways upstream
// builds resolv.conf: DNSClusterFirst (cluster DNS), DNSDefault (the
// node's) or DNSNone.
func clusterDNSPolicy(pod *api.Pod) api.DNSPolicy {
	switch pod.Spec.DNSPolicy {
	case api.DNSNone:
		return api.DNSNone
	case api.DNSDefault:
		return api.DNSDefault
	case api.DNSClusterFirst, "":
		if pod.Spec.HostNetwork {
			return api.DNSDefault
		}
	}
	return api.DNSClusterFirst
}

// appendNew appends the items of more that list does not hold yet.
func appendNew(list []string, more ...string) []string {
	for _, item := range more {
		if !slices.Contains(list, item) {
			list = append(list, item)
		}
	}
	return list
}

// mergeOptions adds the pod's dnsConfig options to options: an option
// named again replaces the earlier one in place ("ndots:2" replaces
// "ndots:5"), a new one is appended. Upstream merges through a map, so its
// order varies; kplane keeps the order of first mention.
func mergeOptions(options []string, extra []api.PodDNSConfigOption) []string {
	for _, o := range extra {
		line := o.Name
		if o.Value != nil && *o.Value != "" {
			line += ":" + *o.Value
		}
		i := slices.IndexFunc(options, func(existing string) bool {
			name, _, _ := strings.Cut(existing, ":")
			return name == o.Name
		})
		if i >= 0 {
			options[i] = line
		} else {
			options = append(options, line)
		}
	}
	return options
}

// String is the file as containerd writes it: the search line, one
// nameserver line per server, then the options line; a part that is empty
// is left out.
func (rc ResolvConf) String() string {
	var b strings.Builder
	if len(rc.Searches) > 0 {
		b.WriteString("search " + strings.Join(rc.Searches, " ") + "\n")
	}
	for _, ns := range rc.Nameservers {
		b.WriteString("nameserver " + ns + "\n")
	}
	if len(rc.Options) > 0 {
		b.WriteString("options " + strings.Join(rc.Options, " ") + "\n")
	}
	return b.String()
}

// Ndots is the ndots option's value (glibc's default 1 when absent): a
// name with at least this many dots is tried as it is before the search
// list.
func (rc ResolvConf) Ndots() int {
	n := 1
	for _, o := range rc.Options {
		if v, ok := strings.CutPrefix(o, "ndots:"); ok {
			if parsed, err := strconv.Atoi(v); err == nil && parsed >= 0 {
				n = min(parsed, 15) // glibc caps ndots at 15
			}
		}
	}
	return n
}
