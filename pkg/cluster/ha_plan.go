package cluster

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"kplane/pkg/loadbalancer"
)

// planHAControlPlane lists the HA layout's control plane in start order:
// the etcd members (started side by side: a member serves only once a
// quorum runs), the load balancer, then the apiservers, the first of which
// makes the shared PKI before the others start.
func planHAControlPlane(o Options, bin func(string) string) ([]component, error) {
	ha, l := o.ha, layout{o.DataDir}
	var plan []component
	var initialCluster, clientURLs []string
	for _, m := range ha.EtcdMembers {
		initialCluster = append(initialCluster, m.Name+"="+m.PeerURL())
		clientURLs = append(clientURLs, m.ClientURL())
	}
	if !isExecutable(bin(etcdBinary)) {
		return nil, missingBinary(etcdBinary, o.BinDir)
	}
	for _, m := range ha.EtcdMembers {
		plan = append(plan, component{
			name: m.Name,
			role: roleEtcd,
			args: []string{bin(etcdBinary), "--name", m.Name, "--data-dir", l.etcdMemberDir(m.Name),
				"--listen-client-urls", m.ClientURL(), "--listen-peer-urls", m.PeerURL(),
				"--initial-cluster", strings.Join(initialCluster, ","), "--initial-cluster-token", ha.ClusterToken},
		})
	}

	port := strconv.Itoa(ha.Port)
	lb := loadbalancer.DefaultOptions()
	lb.Listen = "127.0.0.1:" + port
	sans := []string{"127.0.0.1"}
	for n := 1; n <= ha.APIServers; n++ {
		lb.Backends = append(lb.Backends, APIServerAddress(n)+":"+port)
		sans = append(sans, APIServerAddress(n))
	}
	binary, haproxy, err := chooseLoadBalancer(o.LoadBalancer, o.BinDir)
	if err != nil {
		return nil, err
	}
	balancer := component{name: LoadBalancerComponent, role: roleLoadBalancer}
	if haproxy {
		if err := os.WriteFile(l.haproxyConfig(), []byte(loadbalancer.HAProxyConfig(lb)), 0o600); err != nil {
			return nil, err
		}
		// -db: stay in the foreground, as a supervised child must.
		balancer.args = []string{binary, "-db", "-f", l.haproxyConfig()}
	} else {
		balancer.args = []string{binary, "--listen", lb.Listen}
		for _, backend := range lb.Backends {
			balancer.args = append(balancer.args, "--backend", backend)
		}
	}
	plan = append(plan, balancer)

	for n := 1; n <= ha.APIServers; n++ {
		args := []string{bin(apiserverBinary), "--data-dir", o.DataDir, "--secure-port", port,
			// The address the kubernetes Service's Endpoints list for it
			// (the lease endpoint reconciler).
			"--bind-address", APIServerAddress(n), "--advertise-address", APIServerAddress(n),
			"--etcd-servers", strings.Join(clientURLs, ","),
			"--kubeconfig-server", ha.serverURL(),
			"--audit-policy-file", l.auditPolicy(), "--audit-log-path", l.auditLogOf(n)}
		for _, san := range sans {
			args = append(args, "--tls-san", san)
		}
		plan = append(plan, component{name: APIServerComponentN(n), role: roleAPIServer, args: args})
	}
	return plan, nil
}

// auditLogOf is apiserver n's audit log: each apiserver appends to its own
// file, as each upstream apiserver writes its own --audit-log-path.
func (l layout) auditLogOf(n int) string {
	if n <= 1 {
		return l.auditLog()
	}
	return filepath.Join(l.logsDir(), "audit-"+APIServerComponentN(n)+".log")
}
