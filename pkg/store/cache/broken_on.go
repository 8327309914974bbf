//go:build kplane_broken_watchcache

package cache

import "sync/atomic"

// applied counts the events apply has handed out, for skipLiveEvent.
var applied atomic.Int64

// skipLiveEvent, in the deliberately broken build (go build -tags
// kplane_broken_watchcache), makes the watch cache drop one live event in a
// hundred without a word: the event reaches the snapshot and the history,
// so lists and resumed watches still show it, but the watchers connected at
// that moment never get it — the silent gap a watch cache must never have.
// test/robustness builds the apiserver this way and requires its checker to
// report the gaps.
func skipLiveEvent() bool { return applied.Add(1)%100 == 0 }
