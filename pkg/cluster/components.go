package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"kplane/pkg/auth"
	"kplane/pkg/debug"
	"kplane/pkg/pki"
	"kplane/pkg/serviceaccount"
)

// ControlPlaneNodeName is the node whose kubelet runs beside the control
// plane. Like kubeadm's control-plane nodes it is tainted NoSchedule, so
// only pods that tolerate the taint land there.
const ControlPlaneNodeName = "control-plane"

// Taint and label kubeadm puts on control-plane nodes, in the kubelet flag
// syntax (key=value:Effect; the values are empty). The label keeps the
// node out of cloud load balancers' node sets. The node-role label is not
// the kubelet's to set (NodeRestriction): Up adds it (controlplane_label.go).
const (
	controlPlaneTaint  = "node-role.kubernetes.io/control-plane=:NoSchedule"
	controlPlaneLabels = "node.kubernetes.io/exclude-from-external-load-balancers="
)

// Binary names the launcher looks for in Options.BinDir.
const (
	apiserverBinary         = "apiserver"
	schedulerBinary         = "scheduler"
	controllerManagerBinary = "controller-manager"
	kubeletBinary           = "kubelet"
	ctlBinary               = "ctl"
	dnsBinary               = "dns"
	kubeProxyBinary         = "kube-proxy"
	cloudControllerBinary   = "cloud-controller-manager"
)

// Component names: each names a log file, a kubeconfig and an entry of
// cluster.json. Kubelets are "kubelet-<node>".
const (
	APIServerComponent         = "apiserver"
	SchedulerComponent         = "scheduler"
	ControllerManagerComponent = "controller-manager"
	// DNSComponent is the cluster DNS (CoreDNS's part in a real cluster).
	DNSComponent = "dns"
	// CloudControllerManagerComponent runs the simulated cloud's
	// controllers.
	CloudControllerManagerComponent = "cloud-controller-manager"
)

// Cluster-wide network settings every component agrees on.
const (
	// ClusterDNSIP is the kube-dns Service's ClusterIP, kubeadm's choice
	// (the tenth address of 10.96.0.0/12). A label: never dialled.
	ClusterDNSIP = "10.96.0.10"
	// ClusterDomain is the cluster's DNS domain.
	ClusterDomain = "cluster.local"
	// ClusterCIDR is the range every node's podCIDR comes from.
	ClusterCIDR = "10.244.0.0/16"
)

// ControllerManagerComponentN is the component name of the n-th
// controller-manager (from 1): "controller-manager", then
// "controller-manager-2", "controller-manager-3".
func ControllerManagerComponentN(n int) string {
	if n <= 1 {
		return ControllerManagerComponent
	}
	return ControllerManagerComponent + "-" + strconv.Itoa(n)
}

// KubeletComponent is the component name of the kubelet for nodeName.
func KubeletComponent(nodeName string) string { return "kubelet-" + nodeName }

// kubeProxyPrefix starts the component name of every kube-proxy.
const kubeProxyPrefix = "kube-proxy-"

// KubeProxyComponent is the component name of the kube-proxy for nodeName.
func KubeProxyComponent(nodeName string) string { return kubeProxyPrefix + nodeName }

// KubeProxyNode is the node of the kube-proxy named component, and false
// when component is no kube-proxy.
func KubeProxyNode(component string) (nodeName string, ok bool) {
	return strings.CutPrefix(component, kubeProxyPrefix)
}

// NodeNames are the nodes a cluster with n worker nodes has:
// control-plane, node1 … nodeN.
func NodeNames(n int) []string {
	names := []string{ControlPlaneNodeName}
	for i := 1; i <= n; i++ {
		names = append(names, "node"+strconv.Itoa(i))
	}
	return names
}

// podCIDR is node i's pod range (the control-plane node is 0). Upstream the
// node IPAM controller hands these out from --cluster-cidr 10.244.0.0/16
// (kubeadm's and flannel's usual range); here the launcher decides them and
// tells each kubelet, as the --pod-cidr flag of a standalone kubelet does.
func podCIDR(i int) string { return fmt.Sprintf("10.244.%d.0/24", i) }

// role decides when a component starts and stops relative to the others.
type role int

const (
	// roleController is the scheduler and the controller-manager.
	roleController role = iota
	// roleAPIServer starts first and stops last: everything else needs it.
	roleAPIServer
	// roleKubelet is one node.
	roleKubelet
	// roleEtcd is an etcd member of the HA layout: started before the
	// apiservers and stopped after them. It takes none of the
	// components' common flags.
	roleEtcd
	// roleLoadBalancer fronts the HA layout's apiservers; like roleEtcd it
	// takes none of the common flags.
	roleLoadBalancer
)

// external reports whether the role's binary is not a kplane component
// (etcd's flags are etcd's, haproxy's are haproxy's): no debug, clock or
// verbosity flags are added to it.
func (r role) external() bool { return r == roleEtcd || r == roleLoadBalancer }

// component is one process of the cluster as planned: its name, who it
// authenticates as, and its command line (args[0] is the binary).
type component struct {
	name string
	role role
	// user is the identity in its kubeconfig; unset for the apiserver.
	user auth.User
	args []string
}

// layout is where a cluster's files are inside its data dir.
type layout struct{ dir string }

func (l layout) adminKubeconfig() string { return filepath.Join(l.dir, "kubeconfig") }
func (l layout) pkiDir() string          { return filepath.Join(l.dir, "pki") }
func (l layout) logsDir() string         { return filepath.Join(l.dir, "logs") }
func (l layout) kubeconfigsDir() string  { return filepath.Join(l.dir, "kubeconfigs") }
func (l layout) volumesDir() string      { return filepath.Join(l.dir, "volumes") }
func (l layout) stateFile() string       { return filepath.Join(l.dir, StateFileName) }
func (l layout) logFile(component string) string {
	return filepath.Join(l.logsDir(), component+".log")
}
func (l layout) kubeconfig(component string) string {
	return filepath.Join(l.kubeconfigsDir(), component+".kubeconfig")
}

// planComponents lists the processes of the cluster o describes, in start
// order. The controller-managers are planned only when their binary exists.
func planComponents(o Options) ([]component, error) {
	l := layout{o.DataDir}
	bin := func(name string) string { return filepath.Join(o.BinDir, name) }
	for _, required := range []string{apiserverBinary, schedulerBinary, kubeletBinary} {
		if !isExecutable(bin(required)) {
			return nil, missingBinary(required, o.BinDir)
		}
	}

	plan := []component{{
		name: APIServerComponent,
		role: roleAPIServer,
		args: []string{bin(apiserverBinary), "--data-dir", o.DataDir, "--secure-port", strconv.Itoa(o.Port),
			"--audit-policy-file", l.auditPolicy(), "--audit-log-path", l.auditLog()},
	}}
	if o.ha != nil {
		controlPlane, err := planHAControlPlane(o, bin)
		if err != nil {
			return nil, err
		}
		plan = controlPlane
	}
	plan = append(plan, component{
		name: SchedulerComponent,
		role: roleController,
		user: auth.SchedulerUser(),
		args: []string{bin(schedulerBinary), "--kubeconfig", l.kubeconfig(SchedulerComponent), "--leader-elect"},
	})
	for i := 1; i <= max(o.ControllerManagers, 1) && isExecutable(bin(controllerManagerBinary)); i++ {
		// Every controller-manager is a candidate for the same Lease, with
		// its own kubeconfig (the same user, as kubeadm's HA control
		// planes give each node a controller-manager.conf).
		name := ControllerManagerComponentN(i)
		plan = append(plan, component{
			name: name,
			role: roleController,
			user: auth.ControllerManagerUser(),
			// Port 0: several clusters (the e2e tests start many) must not
			// fight over kube-controller-manager's default 10257. The
			// hostpath provisioner, kind's local-path provisioner in
			// kplane, keeps its volumes in the data dir, so they stay with
			// the cluster's etcd data across `ctl down` and `ctl up`.
			args: []string{bin(controllerManagerBinary), "--kubeconfig", l.kubeconfig(name), "--leader-elect", "--bind-address", "127.0.0.1:0",
				// The bootstrap signer and token cleaner, off in "*", are on
				// as kubeadm turns them on: nodes join with bootstrap
				// tokens (docs/join-nodes.md).
				"--controllers", "*,hostpath-provisioner,bootstrapsigner,tokencleaner", "--hostpath-volumes-dir", l.volumesDir(),
				// The apiserver's ServiceAccount signing key, made at its
				// first start, for the serviceaccount-token controller.
				"--service-account-private-key-file", filepath.Join(l.pkiDir(), serviceaccount.PrivateKeyFile),
				// The cluster CA, for the csrsigning controller to issue
				// joining kubelets' client certificates with.
				"--cluster-signing-cert-file", filepath.Join(l.pkiDir(), pki.CACertFileName),
				"--cluster-signing-key-file", filepath.Join(l.pkiDir(), pki.CAKeyFileName),
				// Each controller acts as its own kube-system
				// ServiceAccount, with exactly its system:controller:*
				// role's rights, as kubeadm runs it.
				"--use-service-account-credentials"},
		})
	}
	// The cluster add-ons and per-node agents a real cluster runs beside
	// the control plane, each planned only when its binary was built. The
	// DNS and every kube-proxy listen on ports picked now, because the
	// kubelets are told where they are.
	var dnsAddress string
	if isExecutable(bin(dnsBinary)) {
		port, err := freeLoopbackPort()
		if err != nil {
			return nil, err
		}
		dnsAddress = "127.0.0.1:" + strconv.Itoa(port)
		plan = append(plan, component{
			name: DNSComponent,
			role: roleController,
			user: auth.DNSUser(),
			args: []string{bin(dnsBinary), "--kubeconfig", l.kubeconfig(DNSComponent), "--listen", dnsAddress,
				"--cluster-domain", ClusterDomain, "--service-ip", ClusterDNSIP, "--bind-address", "127.0.0.1:0"},
		})
	}
	metricsServer, planned, err := planMetricsServer(o, bin)
	if err != nil {
		return nil, err
	}
	if planned {
		plan = append(plan, metricsServer)
	}
	cloud := isExecutable(bin(cloudControllerBinary))
	if cloud {
		plan = append(plan, component{
			name: CloudControllerManagerComponent,
			role: roleController,
			user: auth.CloudControllerManagerUser(),
			args: []string{bin(cloudControllerBinary), "--kubeconfig", l.kubeconfig(CloudControllerManagerComponent),
				"--leader-elect", "--bind-address", "127.0.0.1:0", "--cluster-cidr", ClusterCIDR},
		})
	}
	for i, node := range NodeNames(o.Nodes) {
		name := KubeletComponent(node)
		args := []string{bin(kubeletBinary),
			"--kubeconfig", l.kubeconfig(name),
			"--node-name", node,
			"--runtime", o.Runtime,
			"--pod-cidr", podCIDR(i),
			"--cluster-dns", ClusterDNSIP,
			"--cluster-domain", ClusterDomain,
			"--network-kubeconfig", l.kubeconfig(simulatedNetwork.name),
		}
		if node == ControlPlaneNodeName {
			args = append(args, "--register-with-taints", controlPlaneTaint, "--node-labels", controlPlaneLabels)
		}
		if dnsAddress != "" {
			args = append(args, "--dns-address", dnsAddress)
		}
		if cloud {
			args = append(args, "--cloud-provider", "external")
		}
		if isExecutable(bin(kubeProxyBinary)) {
			port, err := freeLoopbackPort()
			if err != nil {
				return nil, err
			}
			proxyAddress := "127.0.0.1:" + strconv.Itoa(port)
			args = append(args, "--kube-proxy-address", proxyAddress)
			proxy := KubeProxyComponent(node)
			plan = append(plan, component{
				name: proxy,
				role: roleController,
				user: auth.KubeProxyUser(),
				args: []string{bin(kubeProxyBinary), "--kubeconfig", l.kubeconfig(proxy), "--hostname-override", node,
					"--metrics-bind-address", proxyAddress, "--cluster-cidr", ClusterCIDR},
			})
		}
		plan = append(plan, component{name: name, role: roleKubelet, user: auth.NodeUser(node), args: args})
	}
	if o.VirtualClock {
		// One cluster clock: every component, kubelets included, follows it.
		for i := range plan {
			if !plan[i].role.external() {
				plan[i].args = append(plan[i].args, "--virtual-clock")
			}
		}
	}
	for i := range plan {
		if plan[i].role.external() {
			continue
		}
		plan[i].args = append(plan[i].args, debugArgs(o, plan[i])...)
		plan[i].args = append(plan[i].args, o.componentFlags(plan[i].name, plan[i].role)...)
	}
	return plan, nil
}

// debugArgs turns on a component's debug journal and tells it where to
// announce its debug API: DATA_DIR/debug/<component>.json, where ctl finds
// it (docs/debug-api.md). The kubelets' and the scheduler's debug servers
// take a free loopback port, as the controller-manager's does.
func debugArgs(o Options, c component) []string {
	args := []string{
		"--debug-ring-size", strconv.Itoa(o.DebugRingSize),
		"--debug-endpoint-file", debug.EndpointFile(o.DataDir, c.name),
		"--debug-component-name", c.name,
	}
	switch {
	case c.name == SchedulerComponent:
		args = append(args, "--bind-address", "127.0.0.1:0")
	case c.role == roleKubelet, c.name == MetricsServerComponent:
		args = append(args, "--debug-address", "127.0.0.1:0")
	}
	return args
}

// missingBinary says a binary is not in binDir, and how to build it.
func missingBinary(name, binDir string) error {
	return fmt.Errorf("%s not found in %s (run `make build` first)", name, binDir)
}

// isExecutable reports whether path is a regular file someone may execute.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
