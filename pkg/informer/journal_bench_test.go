package informer

import (
	"context"
	"net/http/httptest"
	"testing"

	"kplane/pkg/debug"
)

// BenchmarkInformerJournalCost is what the debug journal costs the
// informer per event (events/s, allocations): off (a nil journal), on with
// nobody reading it, and on while a follower streams every record over the
// debug API and keeps those of one pod, as `ctl trace` does. Each event
// makes five records (watch, delta, pop, store, handler).
//
//	go test -run '^$' -bench 'InformerJournalCost' -benchmem -count 3 ./pkg/informer
func BenchmarkInformerJournalCost(b *testing.B) {
	b.Run("journal=off", func(b *testing.B) { benchmarkEventThroughput(b) })
	b.Run("journal=on", func(b *testing.B) {
		benchmarkEventThroughput(b, WithJournal(debug.NewJournal("bench", 0, nil)))
	})
	b.Run("journal=followed", func(b *testing.B) {
		j := debug.NewJournal("bench", 0, nil)
		stop := followJournal(b, j, "default/web-1")
		defer stop()
		benchmarkEventThroughput(b, WithJournal(j))
	})
}

// followJournal serves j's debug API and follows every record over it,
// keeping those of key, until the returned function is called.
func followJournal(b *testing.B, j *debug.Journal, key string) (stop func()) {
	srv := httptest.NewServer(j.Handler(nil, false))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	kept := 0
	go func() {
		defer close(done)
		c := &debug.Client{}
		_ = c.Records(ctx, debug.Endpoint{Component: "bench", URL: srv.URL}, debug.RecordQuery{Follow: true}, func(r debug.Record) error {
			if r.Key == key {
				kept++
			}
			return nil
		})
	}()
	return func() {
		cancel()
		<-done
		srv.Close()
		b.ReportMetric(float64(kept), "records-kept")
	}
}
