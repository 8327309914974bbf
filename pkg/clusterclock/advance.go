package clusterclock

import (
	"context"
	"fmt"
	"time"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// DefaultStep is how far one step of Advance moves the cluster clock.
// Time passes in steps so that what would have happened in the skipped
// time still happens: every timer a step passes fires, and the component
// acts before the next step. Each running kubelet renews its Lease (every
// 10 s) at least every other step, so the node-lifecycle controller, which
// marks a node Unknown after 50 s without a renewal, sees only the silent
// ones go; in one jump of 60 s every node would look silent for a moment.
// The step is 5 s, not 10 s, for leader election: a leader that has not
// renewed its Lease for the renew deadline (10 s) gives up leading, and
// one step must not carry it there.
const DefaultStep = 5 * time.Second

// DefaultStepPause is the wall time between two steps: long enough for
// every component to see a step and act on it (a Lease renewal is a watch
// event, a timer and a write, a few milliseconds on a laptop) with room to
// spare on a busy machine, short enough that five minutes pass in three
// seconds.
const DefaultStepPause = 100 * time.Millisecond

// Read returns the cluster clock's offset from the wall clock, or
// ErrWallClock when the cluster has no virtual clock.
func Read(ctx context.Context, c *client.Client) (time.Duration, error) {
	cm, err := c.ConfigMaps(Namespace).Get(ctx, Name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return 0, ErrWallClock
	}
	if err != nil {
		return 0, fmt.Errorf("read the cluster clock: %w", err)
	}
	return Offset(cm)
}

// AdvanceOptions say how Advance moves the clock.
type AdvanceOptions struct {
	// Step is the most one write moves the clock (0: DefaultStep).
	Step time.Duration
	// Pause is the wall time between steps (0: DefaultStepPause).
	Pause time.Duration
	// Progress, when set, is called after each step with the offset it
	// wrote.
	Progress func(offset time.Duration)
}

// Advance moves the cluster clock forward by d, in steps of at most
// opts.Step with opts.Pause between them, and returns the new offset.
// After each step it also waits until the leaders have renewed their
// Leases at the new time (pace.go). d
// must be positive: time never goes back. Each step is a compare-and-swap
// on the ConfigMap, so two concurrent advances add up. A cancelled ctx
// stops between steps; the clock keeps the steps already made.
func Advance(ctx context.Context, c *client.Client, d time.Duration, opts AdvanceOptions) (time.Duration, error) {
	if d <= 0 {
		return 0, fmt.Errorf("the cluster clock only moves forward: %v is not a positive duration", d)
	}
	if opts.Step <= 0 {
		opts.Step = DefaultStep
	}
	if opts.Pause <= 0 {
		opts.Pause = DefaultStepPause
	}
	pacer := newLeasePacer(c)
	var offset time.Duration
	for left := d; left > 0; {
		step := min(left, opts.Step)
		began := time.Now()
		var err error
		if offset, err = addToOffset(ctx, c, step); err != nil {
			return offset, err
		}
		wrote := time.Now()
		if opts.Progress != nil {
			opts.Progress(offset)
		}
		// The leaders first (pace.go): a step must not carry one past its
		// renew deadline.
		if err := pacer.waitForRenewals(ctx, began.Add(offset), step); err != nil {
			return offset, fmt.Errorf("advance the cluster clock: stopped %v short: %w", left-step, err)
		}
		if left -= step; left == 0 {
			break
		}
		// On a busy machine everything is slower, the components' reaction
		// to a step too: wait at least four times as long as the write took.
		select {
		case <-ctx.Done():
			return offset, fmt.Errorf("advance the cluster clock: stopped %v short: %w", left, ctx.Err())
		case <-time.After(max(opts.Pause, 4*wrote.Sub(began)) - time.Since(wrote)):
		}
	}
	return offset, nil
}

// addToOffset adds step to the ConfigMap's offset, retrying on conflict.
func addToOffset(ctx context.Context, c *client.Client, step time.Duration) (time.Duration, error) {
	configMaps := c.ConfigMaps(Namespace)
	for {
		cm, err := configMaps.Get(ctx, Name, client.GetOptions{})
		if apierrors.IsNotFound(err) {
			return 0, ErrWallClock
		}
		if err != nil {
			return 0, fmt.Errorf("read the cluster clock: %w", err)
		}
		offset, err := Offset(cm)
		if err != nil {
			return 0, err
		}
		offset += step
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[OffsetKey] = offset.String()
		_, err = configMaps.Update(ctx, cm, client.UpdateOptions{})
		switch {
		case err == nil:
			return offset, nil
		case apierrors.IsConflict(err):
			continue // someone else moved it first: add to theirs
		default:
			return 0, fmt.Errorf("move the cluster clock to +%v: %w", offset, err)
		}
	}
}
