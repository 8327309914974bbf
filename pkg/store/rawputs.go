package store

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// rawPutsPrefix holds the keys MeasureRawPuts writes; it is outside /registry
// so no apiserver list or watch ever sees them, and it is emptied afterwards.
const rawPutsPrefix = "/kplane-bench/raw-puts/"

// MeasureRawPuts measures how fast etcd at endpoints takes plain puts:
// clients connections (one goroutine each) write total values of valueSize
// bytes between them, and the result is puts per second of wall time.
//
// It is the yardstick for the apiserver's write benchmarks: upstream measured
// etcd with 16 clients, and an apiserver create costs at least one such put,
// so "apiserver creates/s ÷ raw puts/s" on the same machine says how much the
// API layer costs. The keys written are deleted before it returns.
func MeasureRawPuts(ctx context.Context, endpoints []string, clients, total, valueSize int) (opsPerSec float64, err error) {
	if clients <= 0 || total <= 0 || valueSize < 0 {
		return 0, fmt.Errorf("measure raw puts: need clients > 0 and total > 0 (got %d and %d)", clients, total)
	}
	conns := make([]*clientv3.Client, 0, clients)
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	for range clients {
		c, err := newEtcdClient(endpoints)
		if err != nil {
			return 0, fmt.Errorf("measure raw puts: connect to %v: %w", endpoints, err)
		}
		conns = append(conns, c)
		// Dial now, so connecting is not part of the measurement.
		if _, err := c.Get(ctx, rawPutsPrefix, clientv3.WithCountOnly()); err != nil {
			return 0, fmt.Errorf("measure raw puts: reach %v: %w", endpoints, err)
		}
	}
	value := string(make([]byte, valueSize))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	// The first failure stops everyone; the others' "canceled" errors
	// would only hide it.
	var failOnce sync.Once
	var failure error
	start := time.Now()
	for i, c := range conns {
		// Client i writes puts i, i+clients, i+2*clients, ... so the total is
		// exact and the work is split evenly.
		wg.Go(func() {
			for n := i; n < total; n += clients {
				key := rawPutsPrefix + strconv.Itoa(n)
				if _, err := c.Put(ctx, key, value); err != nil {
					failOnce.Do(func() {
						failure = fmt.Errorf("put %s: %w", key, translateError(err))
						cancel()
					})
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if failure != nil {
		return 0, fmt.Errorf("measure raw puts: %w", failure)
	}

	if _, err := conns[0].Delete(ctx, rawPutsPrefix, clientv3.WithPrefix()); err != nil {
		return 0, fmt.Errorf("measure raw puts: clean up %s: %w", rawPutsPrefix, err)
	}
	return float64(total) / elapsed.Seconds(), nil
}
