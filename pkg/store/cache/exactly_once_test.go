package cache

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/store"
)

// TestWatchersStartedDuringWritesGetEveryEventExactlyOnce is the test of the
// subtle part: watchers registered while the cache is busy applying writes,
// each from some recent revision, must see exactly the store's changes after
// that revision under their prefix: no gap between replay and live events,
// no duplicate. With a small history some watchers start before it and are
// served by the store instead; they must obey the same contract.
func TestWatchersStartedDuringWritesGetEveryEventExactlyOnce(t *testing.T) {
	for _, bufferSize := range []int{DefaultEventBufferSize, 50} {
		t.Run(fmt.Sprintf("history %d", bufferSize), func(t *testing.T) {
			s := newFakeStore()
			c, stop := startCache(t, s, "/registry/pods/", Options{EventBufferSize: bufferSize})
			defer stop()
			ctx := context.Background()

			const writes, watchers = 600, 40
			const sentinel = "/registry/pods/ns1/zz-sentinel" // matches every watcher's prefix
			writerDone := make(chan struct{})
			go func() {
				defer close(writerDone)
				for i := range writes {
					key := fmt.Sprintf("/registry/pods/ns%d/k%d", i%3, i%17)
					_, err := s.Create(ctx, key, []byte("v"))
					if errors.Is(err, store.ErrAlreadyExists) {
						if i%2 == 0 {
							_, err = s.Update(ctx, key, []byte(fmt.Sprint(i)), 0)
						} else {
							_, err = s.Delete(ctx, key, 0)
						}
					}
					if err != nil {
						t.Errorf("write %s: %v", key, err)
						return
					}
				}
			}()

			type result struct {
				prefix string
				after  int64
				got    []summary
			}
			results := make([]*result, watchers)
			var readers sync.WaitGroup
			for i := range watchers {
				r := &result{prefix: []string{"/registry/pods/", "/registry/pods/ns1/"}[i%2]}
				r.after = max(1, c.Revision()-int64(3*i))
				results[i] = r
				w, err := c.Watch(ctx, r.prefix, r.after, false)
				if err != nil {
					t.Fatalf("watch %d: %v", i, err)
				}
				readers.Go(func() {
					defer w.Stop()
					for {
						select {
						case ev, ok := <-w.ResultChan():
							if !ok {
								t.Errorf("watch %s from %d closed early after %d events", r.prefix, r.after, len(r.got))
								return
							}
							if ev.Key == sentinel {
								return
							}
							r.got = append(r.got, summarize([]Event{ev})...)
						case <-time.After(waitLimit):
							t.Errorf("watch %s from %d: no sentinel after %d events", r.prefix, r.after, len(r.got))
							return
						}
					}
				})
				time.Sleep(time.Duration(i%3) * 100 * time.Microsecond) // spread the starts over the writes
			}
			<-writerDone
			mustCreate(t, s, sentinel, "end")
			readers.Wait()

			s.mu.Lock()
			changes := slices.Clone(s.changes)
			s.mu.Unlock()
			for _, r := range results {
				var want []summary
				for _, ev := range changes {
					if ev.Revision > r.after && strings.HasPrefix(ev.KV.Key, r.prefix) && ev.KV.Key != sentinel {
						want = append(want, summary{Type: ev.Type, Key: ev.KV.Key, Revision: ev.Revision, Value: string(ev.KV.Value)})
					}
				}
				if !slices.Equal(r.got, want) {
					t.Errorf("watch %s from %d: got %d events, want %d\n got %v\nwant %v",
						r.prefix, r.after, len(r.got), len(want), r.got, want)
				}
			}
		})
	}
}
