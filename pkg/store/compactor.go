package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// DefaultCompactionInterval is how often upstream's apiserver compacts etcd
// (its --etcd-compaction-interval).
const DefaultCompactionInterval = 5 * time.Minute

// compactRevisionKey is the key compactors use to agree on who compacts. It
// lies outside /registry, so no list or watch of objects sees it; upstream's
// apiservers use the same name.
const compactRevisionKey = "compact_rev_key"

// RunCompactor compacts the store's history every interval until ctx ends,
// as upstream's apiserver does. etcd keeps every revision of every key until
// told otherwise, so without this the database grows with each write.
//
// Each tick compacts to the revision seen at the previous tick, so the last
// interval of history always survives: a watch that fell behind by less than
// that can still resume, and anything older gets ErrGone (410 Gone).
//
// Several apiservers may share one etcd; they take turns through a counter in
// compactRevisionKey: at each tick a compactor bumps the counter only if it
// still holds the value it last saw, and only the one that succeeded
// compacts. The others adopt the new value and try again next tick, so the
// cluster compacts once per interval however many apiservers run.
//
// An interval of 0 or less turns compaction off (as upstream's flag does).
func RunCompactor(ctx context.Context, s *EtcdStore, interval time.Duration) {
	log := slog.With("component", "compactor")
	if interval <= 0 {
		log.Info("etcd compaction disabled")
		return
	}
	log.Debug("compacting etcd periodically", "interval", interval)
	c := &compactor{client: s.client, log: log}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		if err := c.tick(ctx); err != nil && ctx.Err() == nil {
			log.Error("etcd compaction failed", "err", err)
		}
	}
}

// compactor is the state RunCompactor carries between ticks.
type compactor struct {
	client *clientv3.Client
	log    *slog.Logger

	// turn is the version of compactRevisionKey this compactor last saw:
	// how many ticks, by any compactor, have claimed a compaction.
	turn int64
	// revision is the store revision seen at the previous tick, the one
	// the next compaction will go to (0: none seen yet).
	revision int64
}

// tick claims this interval's compaction and, if claimed, compacts to the
// revision remembered from the previous tick.
func (c *compactor) tick(ctx context.Context) error {
	// Version counts the puts to a key since it was created, so bumping it
	// with a put is an atomic increment guarded by the compare.
	resp, err := c.client.Txn(ctx).
		If(clientv3.Compare(clientv3.Version(compactRevisionKey), "=", c.turn)).
		Then(clientv3.OpPut(compactRevisionKey, strconv.FormatInt(c.revision, 10))).
		Else(clientv3.OpGet(compactRevisionKey)).
		Commit()
	if err != nil {
		return fmt.Errorf("claim compaction: %w", translateError(err))
	}
	current := resp.Header.Revision
	if !resp.Succeeded {
		// Another compactor took this turn: follow it and wait for the
		// next tick. Its compaction covers this interval.
		// (If the key was deleted by hand, its version is 0 again.)
		c.turn = 0
		if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) > 0 {
			c.turn = kvs[0].Version
		}
		c.revision = current
		return nil
	}
	c.turn++
	target := c.revision
	c.revision = current
	if target == 0 {
		// The first turn only records where history starts.
		return nil
	}
	if _, err := c.client.Compact(ctx, target); err != nil {
		if errors.Is(translateError(err), ErrGone) {
			// Someone compacted further already; nothing is lost.
			return nil
		}
		return fmt.Errorf("compact to revision %d: %w", target, translateError(err))
	}
	c.log.Info("compacted etcd", "revision", target)
	return nil
}
