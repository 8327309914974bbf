package store

import (
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Client settings. The keepalive values are the ones upstream's apiserver
// uses: ping an idle connection every 30 s and give up on it after 10 s
// without an answer, so a dead member is noticed and the client fails over to
// another endpoint.
const (
	dialTimeout          = 20 * time.Second
	dialKeepAliveTime    = 30 * time.Second
	dialKeepAliveTimeout = 10 * time.Second
)

// newEtcdClient returns an etcd client for endpoints. clientv3 connects
// lazily: an unreachable cluster shows up at the first request.
func newEtcdClient(endpoints []string) (*clientv3.Client, error) {
	client, err := clientv3.New(clientv3.Config{
		Endpoints:            endpoints,
		DialTimeout:          dialTimeout,
		DialKeepAliveTime:    dialKeepAliveTime,
		DialKeepAliveTimeout: dialKeepAliveTimeout,
		// clientv3 logs every failed request as a JSON line on stderr.
		// Each of those errors is also returned to kplane, which wraps it
		// with context and logs it with slog where it matters, so the
		// client's own log would only repeat them in another format.
		Logger: zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("create etcd client for %v: %w", endpoints, err)
	}
	return client, nil
}
