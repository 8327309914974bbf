package loadbalancer

import (
	"fmt"
	"strings"
)

// HAProxyConfig renders an haproxy.cfg that does what the built-in balancer
// does, for Debian's haproxy when it is installed: TCP mode on o.Listen,
// round-robin over o.Backends, HTTPS checks of o.HealthPath without
// certificate verification (TCP checks when it is empty), rise/fall and
// interval from o, and the sessions of a server marked down shut. maxconn
// 4 000 keeps haproxy within a default 20 000-descriptor limit (it needs
// two per connection). It
// follows kind's HA config (kubernetes-sigs/kind
// pkg/cluster/internal/loadbalancer/config.go), which balances
// kube-apiservers the same way.
func HAProxyConfig(o Options) string {
	var b strings.Builder
	interval := o.Interval.Milliseconds()
	fmt.Fprintf(&b, `# Written by kplane's ctl up: the apiservers' load balancer (see
# docs/high-availability.md). Rewritten at every start; edits are lost.
global
  log stderr format raw local0
  maxconn 4000

defaults
  log global
  mode tcp
  option dontlognull
  option dontlog-normal
  timeout connect %dms
  timeout client 24h
  timeout server 24h
  default-server inter %dms downinter %dms rise %d fall %d on-marked-down shutdown-sessions

frontend apiserver
  bind %s
  default_backend apiservers

backend apiservers
  balance roundrobin
`, o.DialTimeout.Milliseconds(), interval, interval, o.Rise, o.Fall, o.Listen)
	if o.HealthPath != "" {
		fmt.Fprintf(&b, "  option httpchk GET %s\n  http-check expect status 200\n", o.HealthPath)
	}
	for i, backend := range o.Backends {
		check := "check"
		if o.HealthPath != "" {
			check = "check check-ssl verify none"
		}
		fmt.Fprintf(&b, "  server apiserver-%d %s %s\n", i+1, backend, check)
	}
	return b.String()
}
