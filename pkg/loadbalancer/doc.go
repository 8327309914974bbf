// Package loadbalancer is kplane's built-in TCP load balancer: the piece in
// front of several apiservers that gives clients one address, as HAProxy
// does in front of kind's HA control planes (kubernetes-sigs/kind
// pkg/cluster/internal/loadbalancer/config.go: TCP mode, round-robin,
// HTTPS checks without certificate verification). Its health path, check
// interval and closing of a down backend's connections are kplane's own
// choices, explained on Options and HAProxyConfig.
//
// The mechanism, in the order a connection meets it:
//
//   - A client connects to the balancer's listen address. The balancer
//     picks the next healthy backend in round-robin order and dials it; a
//     backend that refuses the dial is marked down at once and the next one
//     is tried, so a killed apiserver costs a client nothing but the dial.
//   - Bytes are copied both ways untouched (layer 4, TCP mode): TLS runs end
//     to end between the client and the apiserver, so the serving
//     certificate must name the balancer's address too (apiserver
//     --tls-san), and the client's token or certificate reaches the
//     apiserver as if there were no balancer.
//   - Active health checks run every Interval against each backend: an HTTPS
//     GET of HealthPath (/readyz; TLS not verified, as HAProxy's
//     "check-ssl verify none") or, without a path, a TCP connect. A backend
//     goes down after Fall failed checks in a row and up again after Rise
//     good ones, HAProxy's "rise 2 fall 3".
//   - When a backend goes down, every connection proxied to it is closed
//     (HAProxy's "on-marked-down shutdown-sessions"). A client then sees its
//     connection end, reconnects, and lands on a healthy apiserver; a
//     reflector relists or resumes its watch there. Without this, a client
//     whose apiserver hangs rather than dies would wait on it forever.
package loadbalancer
