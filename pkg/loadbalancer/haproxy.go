package loadbalancer

import (
	"fmt"
	"strings"
)

// HAProxyConfig renders an haproxy.cfg that does what the built-in balancer
// does, for Debian's haproxy when it is installed. From kind's HA config
// (kubernetes-sigs/kind pkg/cluster/internal/loadbalancer/config.go) it
// takes mode tcp, round-robin (HAProxy's default, which kind keeps) and
// HTTPS checks with "check-ssl verify none". The rest are kplane's own
// choices, where kind leaves HAProxy's defaults or sets others:
//   - option httpchk GET o.HealthPath (/readyz; kind checks /healthz):
//     upstream's endpoint for "send it traffic", /healthz being deprecated.
//   - inter from o.Interval (1 s; HAProxy's default is 2 s): a killed
//     apiserver leaves within seconds, while the student watches.
//   - on-marked-down shutdown-sessions (kind has none): a client of an
//     apiserver that hangs rather than dies reconnects elsewhere instead of
//     waiting on it forever.
//   - timeout client/server 24h (kind: 50 s): a quiet watch is not cut.
//   - maxconn 4 000: haproxy needs two descriptors per connection, and this
//     stays within a default 20 000-descriptor limit.
//
// Without o.HealthPath the checks are plain TCP connects.
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
