package informer

import (
	"math/rand/v2"
	"time"

	"kplane/pkg/clock"
)

// Backoff says how long a reflector waits before it lists or watches again
// after a failure. Each failure doubles the delay, from Initial up to Max; a
// random extra of up to Jitter × the delay spreads out the many informers of
// a restarted cluster so they do not all hit the apiserver in the same
// instant. After Reset without a failure the delay starts from Initial again.
//
// The defaults are upstream's (client-go's reflector): 800 ms doubling to
// 30 s, full jitter, reset after 2 minutes of quiet.
type Backoff struct {
	Initial time.Duration
	Max     time.Duration
	Reset   time.Duration
	Jitter  float64
}

// DefaultBackoff returns upstream's reflector back-off.
func DefaultBackoff() Backoff {
	return Backoff{Initial: 800 * time.Millisecond, Max: 30 * time.Second, Reset: 2 * time.Minute, Jitter: 1.0}
}

// withDefaults fills in the zero fields from DefaultBackoff.
func (b Backoff) withDefaults() Backoff {
	d := DefaultBackoff()
	if b.Initial <= 0 {
		b.Initial = d.Initial
	}
	if b.Max <= 0 {
		b.Max = d.Max
	}
	if b.Reset <= 0 {
		b.Reset = d.Reset
	}
	if b.Jitter < 0 {
		b.Jitter = 0
	}
	return b
}

// backoffTimer hands out successive delays. Not safe for concurrent use; a
// reflector owns one.
type backoffTimer struct {
	cfg   Backoff
	clock clock.Clock
	// current is the delay before jitter; 0 until the first failure.
	current time.Duration
	// lastFailure is when next was last called, for the Reset rule.
	lastFailure time.Time
}

func newBackoffTimer(cfg Backoff, c clock.Clock) *backoffTimer {
	return &backoffTimer{cfg: cfg.withDefaults(), clock: c}
}

// next returns the delay to wait after a failure that happens now.
func (b *backoffTimer) next() time.Duration {
	now := b.clock.Now()
	if b.current == 0 || now.Sub(b.lastFailure) > b.cfg.Reset {
		b.current = b.cfg.Initial
	} else {
		b.current = min(2*b.current, b.cfg.Max)
	}
	b.lastFailure = now
	return b.current + time.Duration(b.cfg.Jitter*rand.Float64()*float64(b.current))
}
