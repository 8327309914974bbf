package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"kplane/pkg/fileutil"
)

// A highly available control plane (`ctl up --etcd-members 3 --apiservers
// 2`, docs/high-availability.md) runs etcd as separate member processes
// (etcd-1 … etcd-N), several apiservers on one secure port P, apiserver n
// bound to 127.0.0.(n+1), and a load balancer on 127.0.0.1:P that every
// kubeconfig names — kind's HA layout on one machine's loopback (Linux
// routes all of 127.0.0.0/8 to lo).

// Limits of the HA flags.
const (
	// MaxEtcdMembers is the largest --etcd-members: etcd advises clusters
	// of up to seven members; beyond that, every write waits for more
	// acknowledgements without tolerating a useful number more failures.
	MaxEtcdMembers = 7
	// MaxAPIServers is the largest --apiservers: apiserver 5 binds
	// 127.0.0.6.
	MaxAPIServers = 5
)

// Load balancers `ctl up --load-balancer` chooses from.
const (
	// LoadBalancerAuto runs haproxy when it is installed, otherwise the
	// built-in balancer.
	LoadBalancerAuto = "auto"
	// LoadBalancerBuiltin runs bin/loadbalancer (pkg/loadbalancer).
	LoadBalancerBuiltin = "builtin"
	// LoadBalancerHAProxy runs Debian's haproxy with DATA_DIR/haproxy.cfg.
	LoadBalancerHAProxy = "haproxy"
)

// Component names of the HA layout.
const (
	// LoadBalancerComponent fronts the apiservers on the kubeconfig's
	// address.
	LoadBalancerComponent = "loadbalancer"
	// etcdPrefix starts every etcd member's component name: etcd-1 ….
	etcdPrefix = "etcd-"
)

// Binary names of the HA layout: in Options.BinDir, haproxy on the PATH.
const (
	etcdBinary         = "etcd"
	loadBalancerBinary = "loadbalancer"
	haproxyBinary      = "haproxy"
)

// EtcdComponent is the component name of etcd member n (from 1).
func EtcdComponent(n int) string { return etcdPrefix + strconv.Itoa(n) }

// APIServerComponentN is the component name of the n-th apiserver (from
// 1): "apiserver", then "apiserver-2" …, as the controller-managers are
// named.
func APIServerComponentN(n int) string {
	if n <= 1 {
		return APIServerComponent
	}
	return APIServerComponent + "-" + strconv.Itoa(n)
}

// APIServerAddress is the loopback address apiserver n (from 1) binds in
// the HA layout: 127.0.0.(n+1), leaving 127.0.0.1 to the load balancer.
func APIServerAddress(n int) string { return "127.0.0." + strconv.Itoa(n+1) }

// haFileName is the file in the data dir that keeps an HA cluster's layout
// across `ctl down` and `ctl up` (cluster.json is removed at every stop).
const haFileName = "ha.json"

// haLayout is DATA_DIR/ha.json: the member count and the ports fixed at the
// first start. etcd members remember each other's peer URLs in their data,
// so a member restarted on another port could not rejoin; every later Up
// therefore reuses these.
type haLayout struct {
	// Port is the secure port of every apiserver and of the balancer.
	Port int `json:"port"`
	// APIServers is how many apiservers run.
	APIServers int `json:"apiservers"`
	// EtcdMembers are the members in order, etcd-1 first.
	EtcdMembers []etcdMember `json:"etcdMembers"`
	// ClusterToken is the members' --initial-cluster-token, unique per data
	// dir so that two clusters' members never join each other.
	ClusterToken string `json:"clusterToken"`
}

// etcdMember is one member's ports on 127.0.0.1.
type etcdMember struct {
	Name       string `json:"name"`
	ClientPort int    `json:"clientPort"`
	PeerPort   int    `json:"peerPort"`
}

// ClientURL is where the apiservers reach the member.
func (m etcdMember) ClientURL() string { return "http://127.0.0.1:" + strconv.Itoa(m.ClientPort) }

// PeerURL is where the other members reach it.
func (m etcdMember) PeerURL() string { return "http://127.0.0.1:" + strconv.Itoa(m.PeerPort) }

// haRequested reports whether o asks for more than today's single apiserver
// with its embedded etcd.
func (o Options) haRequested() bool { return o.EtcdMembers > 1 || o.APIServers > 1 }

// validateHA checks the HA flags' ranges. An even member count is refused:
// etcd's quorum is a majority, so 2 members tolerate no failure (as 1) and
// 4 tolerate one (as 3) while every write waits for one more member; etcd's
// FAQ advises an odd count for that reason.
func (o Options) validateHA() error {
	if o.EtcdMembers < 0 || o.EtcdMembers > MaxEtcdMembers {
		return fmt.Errorf("--etcd-members %d out of range 1..%d", o.EtcdMembers, MaxEtcdMembers)
	}
	if o.EtcdMembers > 0 && o.EtcdMembers%2 == 0 {
		return fmt.Errorf("--etcd-members %d: use an odd count (1, 3, 5 or 7): a majority of %d is %d, so it survives no more failed members than a cluster of %d, and every write waits for one more",
			o.EtcdMembers, o.EtcdMembers, o.EtcdMembers/2+1, o.EtcdMembers-1)
	}
	if o.APIServers < 0 || o.APIServers > MaxAPIServers {
		return fmt.Errorf("--apiservers %d out of range 1..%d", o.APIServers, MaxAPIServers)
	}
	switch o.LoadBalancer {
	case "", LoadBalancerAuto, LoadBalancerBuiltin, LoadBalancerHAProxy:
	default:
		return fmt.Errorf("--load-balancer %q: must be %q, %q or %q", o.LoadBalancer, LoadBalancerAuto, LoadBalancerBuiltin, LoadBalancerHAProxy)
	}
	return nil
}

// resolveHA decides the cluster's control-plane layout: the one ha.json
// recorded at an earlier start (flags left unset take it; flags that
// contradict it are refused), or a new one when o asks for HA, whose ports
// are picked now and recorded. It returns nil for today's single apiserver
// with its embedded etcd.
func resolveHA(o Options) (*haLayout, error) {
	l := layout{o.DataDir}
	saved, err := readHALayout(l.haFile())
	if err != nil {
		return nil, err
	}
	if saved != nil {
		if o.EtcdMembers != 0 && o.EtcdMembers != len(saved.EtcdMembers) {
			return nil, fmt.Errorf("--etcd-members %d: the cluster in %s was started with %d members; changing the member count of an existing cluster is not supported (etcd's member add and remove are not implemented)",
				o.EtcdMembers, o.DataDir, len(saved.EtcdMembers))
		}
		// Apiservers keep no state of their own: their count may change.
		if o.APIServers != 0 && o.APIServers != saved.APIServers {
			saved.APIServers = o.APIServers
			if err := saved.write(l.haFile()); err != nil {
				return nil, err
			}
		}
		return saved, nil
	}
	if !o.haRequested() {
		return nil, nil
	}
	if _, err := os.Stat(filepath.Join(o.DataDir, "etcd")); err == nil {
		return nil, fmt.Errorf("%s holds the embedded etcd of a single-apiserver cluster; an HA control plane needs a new data dir (moving the data into a multi-member etcd is not supported)", o.DataDir)
	}
	ha := &haLayout{Port: o.Port, APIServers: max(o.APIServers, 1), ClusterToken: "kplane-" + filepath.Base(o.DataDir)}
	if ha.Port == 0 {
		if ha.Port, err = freeLoopbackPort(); err != nil {
			return nil, err
		}
	}
	for n := 1; n <= max(o.EtcdMembers, 1); n++ {
		client, err := freeLoopbackPort()
		if err != nil {
			return nil, err
		}
		peer, err := freeLoopbackPort()
		if err != nil {
			return nil, err
		}
		ha.EtcdMembers = append(ha.EtcdMembers, etcdMember{Name: EtcdComponent(n), ClientPort: client, PeerPort: peer})
	}
	if err := ha.write(l.haFile()); err != nil {
		return nil, err
	}
	return ha, nil
}

func (l layout) haFile() string        { return filepath.Join(l.dir, haFileName) }
func (l layout) haproxyConfig() string { return filepath.Join(l.dir, "haproxy.cfg") }
func (l layout) etcdMemberDir(name string) string {
	return filepath.Join(l.dir, name)
}

// readHALayout reads ha.json; no file is no layout, not an error.
func readHALayout(path string) (*haLayout, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var ha haLayout
	if err := json.Unmarshal(data, &ha); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(ha.EtcdMembers) == 0 || ha.APIServers < 1 || ha.Port <= 0 {
		return nil, fmt.Errorf("read %s: incomplete layout %+v", path, ha)
	}
	return &ha, nil
}

func (ha *haLayout) write(path string) error {
	data, err := json.MarshalIndent(ha, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	// The layout is decided before Up creates the data dir: a first
	// `ctl up --data-dir NEW --etcd-members 3` must not fail on it.
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := fileutil.WriteAtomic(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// serverURL is the balancer's URL, which every kubeconfig names.
func (ha *haLayout) serverURL() string { return "https://127.0.0.1:" + strconv.Itoa(ha.Port) }

// chooseLoadBalancer resolves --load-balancer: haproxy when asked for or,
// with auto, when it is on the PATH; otherwise bin/loadbalancer.
func chooseLoadBalancer(choice, binDir string) (binary string, haproxy bool, err error) {
	if choice == LoadBalancerHAProxy || choice == "" || choice == LoadBalancerAuto {
		if path, err := exec.LookPath(haproxyBinary); err == nil {
			return path, true, nil
		}
		if choice == LoadBalancerHAProxy {
			return "", false, errors.New("--load-balancer haproxy: haproxy is not installed (apt-get install haproxy), or use --load-balancer builtin")
		}
	}
	path := filepath.Join(binDir, loadBalancerBinary)
	if !isExecutable(path) {
		return "", false, fmt.Errorf("%s not found in %s (run `make build` first)", loadBalancerBinary, binDir)
	}
	return path, false, nil
}

// IsAPIServerComponent reports whether name is one of the apiservers:
// "apiserver" or "apiserver-N".
func IsAPIServerComponent(name string) bool {
	if name == APIServerComponent {
		return true
	}
	n, ok := strings.CutPrefix(name, APIServerComponent+"-")
	_, err := strconv.Atoi(n)
	return ok && err == nil
}

// IsEtcdComponent reports whether name is an etcd member: "etcd-N".
func IsEtcdComponent(name string) bool {
	n, ok := strings.CutPrefix(name, etcdPrefix)
	_, err := strconv.Atoi(n)
	return ok && err == nil
}

// describeLoadBalancer says which balancer a recorded command line runs, for
// `ctl status`.
func describeLoadBalancer(args []string, server string) string {
	if len(args) == 0 {
		return ""
	}
	at := strings.TrimPrefix(server, "https://")
	if filepath.Base(args[0]) == haproxyBinary {
		return fmt.Sprintf("haproxy (%s) on %s", flagValue(args, "-f"), at)
	}
	return fmt.Sprintf("built-in (%s) on %s", args[0], at)
}
