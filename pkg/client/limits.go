package client

// DefaultComponentQPS and DefaultComponentBurst are the client-side rate
// limits kplane's components start with (the controller-manager's,
// scheduler's and kubelet's --kube-api-qps and --kube-api-burst).
//
// Upstream's are 20/30 for kube-controller-manager and 50/100 for
// kube-scheduler and the kubelet: sized so that thousands of clients can
// share a production apiserver, and the reason upstream needs 49.6 s to run
// a 1 000-replica Deployment on this kind of machine (docs/performance.md, W6;
// 12.1 s at 1 000 QPS). kplane's apiserver serves one local cluster and a
// handful of clients, and answers at most about 3 000 writes/s on two cores
// (W3). At 2 000 requests/s with bursts of 4 000 the limit never slows a
// local workload down — the busiest client measured, the scheduler binding
// W7's 5 000 pods, sends about 1 500/s — yet it still exists: a controller
// stuck in a hot loop cannot take the whole apiserver.
const (
	DefaultComponentQPS   = 2000
	DefaultComponentBurst = 4000
)

// WithRateLimit returns a client that shares c's connections, credentials
// and settings but throttles its requests with a token bucket of its own
// (qps 0: none). It is how a component keeps a class of requests within
// limits of their own, as the kubelet writes its Events through a client
// with --event-qps and --event-burst (upstream's kubelet builds a separate
// event client for the same reason). Closing either client closes the
// connections of both.
func (c *Client) WithRateLimit(qps float32, burst int) *Client {
	limited := *c
	limited.limiter = nil
	if qps > 0 {
		limited.limiter = NewRateLimiter(qps, burst, c.clock)
	}
	return &limited
}

// RateLimiter returns the client's token bucket, nil if it has none.
func (c *Client) RateLimiter() *RateLimiter { return c.limiter }
