package podfiles

import (
	"fmt"
	"strings"

	"kplane/pkg/api"
)

// maxHostnameLength is the longest hostname Linux accepts (HOST_NAME_MAX);
// upstream truncates a longer pod name to it.
const maxHostnameLength = 63

// Hostname is the pod's hostname and the domain that, when the pod has a
// subdomain, makes its fully qualified name, as upstream's
// GeneratePodHostNameAndDomain computes them: spec.hostname or else the
// pod's name (truncated to 63 characters without a trailing "-" or "."),
// and "<subdomain>.<namespace>.svc.<cluster domain>" when spec.subdomain
// is set (the StatefulSet case: nginx-ss-0.nginx-ss.default.svc.cluster.local).
func Hostname(pod *api.Pod, clusterDomain string) (hostname, domain string) {
	hostname = pod.Spec.Hostname
	if hostname == "" {
		hostname = truncateHostname(pod.Name)
	}
	if pod.Spec.Subdomain != "" {
		domain = fmt.Sprintf("%s.%s.svc.%s", pod.Spec.Subdomain, pod.Namespace, strings.TrimSuffix(clusterDomain, "."))
	}
	return hostname, domain
}

// truncateHostname cuts a pod name to 63 characters, then drops trailing
// '-' and '.', which a hostname may not end with.
func truncateHostname(name string) string {
	if len(name) <= maxHostnameLength {
		return name
	}
	return strings.TrimRight(name[:maxHostnameLength], "-.")
}

// HostnameFile is the content of the pod's /etc/hostname and what
// `hostname` prints: the hostname, or with spec.setHostnameAsFQDN the
// fully qualified name.
func HostnameFile(pod *api.Pod, clusterDomain string) string {
	hostname, domain := Hostname(pod, clusterDomain)
	if pod.Spec.SetHostnameAsFQDN != nil && *pod.Spec.SetHostnameAsFQDN && domain != "" {
		hostname += "." + domain
	}
	return hostname + "\n"
}

// HostsFile is the content of the pod's /etc/hosts, in the layout of
// upstream's managedHostsFileContent: a header, the localhost lines, one
// line per pod IP naming the pod (its fully qualified name first when it
// has a subdomain), then the spec.hostAliases entries under a header of
// their own. A host-network pod gets the node's hosts file instead (with
// the aliases after it); kplane's nodes have only the localhost lines and
// their own name.
func HostsFile(pod *api.Pod, clusterDomain, nodeIP string) string {
	var b strings.Builder
	if pod.Spec.HostNetwork {
		b.WriteString("# Kubernetes-managed hosts file (host network).\n")
		b.WriteString("127.0.0.1\tlocalhost\n")
		b.WriteString("::1\tlocalhost ip6-localhost ip6-loopback\n")
		if nodeIP != "" {
			fmt.Fprintf(&b, "%s\t%s\n", nodeIP, pod.Spec.NodeName)
		}
	} else {
		b.WriteString("# Kubernetes-managed hosts file.\n")
		b.WriteString("127.0.0.1\tlocalhost\n")
		b.WriteString("::1\tlocalhost ip6-localhost ip6-loopback\n")
		b.WriteString("fe00::0\tip6-localnet\n")
		b.WriteString("fe00::0\tip6-mcastprefix\n")
		b.WriteString("fe00::1\tip6-allnodes\n")
		b.WriteString("fe00::2\tip6-allrouters\n")
		hostname, domain := Hostname(pod, clusterDomain)
		for _, ip := range PodIPs(pod) {
			if domain != "" {
				fmt.Fprintf(&b, "%s\t%s.%s\t%s\n", ip, hostname, domain, hostname)
			} else {
				fmt.Fprintf(&b, "%s\t%s\n", ip, hostname)
			}
		}
	}
	if len(pod.Spec.HostAliases) > 0 {
		b.WriteString("\n# Entries added by HostAliases.\n")
		for _, alias := range pod.Spec.HostAliases {
			fmt.Fprintf(&b, "%s\t%s\n", alias.IP, strings.Join(alias.Hostnames, "\t"))
		}
	}
	return b.String()
}

// PodIPs lists the pod's IPs: status.podIPs, or status.podIP for a pod
// written before podIPs existed.
func PodIPs(pod *api.Pod) []string {
	var ips []string
	for _, ip := range pod.Status.PodIPs {
		ips = append(ips, ip.IP)
	}
	if len(ips) == 0 && pod.Status.PodIP != "" {
		ips = []string{pod.Status.PodIP}
	}
	return ips
}
