package ctl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/client"
	"kplane/pkg/clusterclock"
)

// newTimeCommand is `ctl time`: print the cluster clock and the wall
// clock; `ctl time advance D` moves the cluster clock forward.
func newTimeCommand(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "time",
		Short: "Print the cluster clock and the wall clock; advance moves the cluster clock",
		Long: `time prints the cluster's clock next to the wall clock. A cluster started with
` + "`ctl up --virtual-clock`" + ` runs every component — apiserver, controller-manager,
scheduler and kubelets — on one cluster clock: the wall clock plus an offset
kept in the ConfigMap kube-system/kplane-clock. ` + "`ctl time advance 5m`" + ` moves it
forward, so that Lease expiry, the node-monitor grace period, toleration
seconds, Job back-off and CronJob schedules happen in seconds. Any other
cluster runs on the wall clock.`,
		Example: `  ctl time
  ctl time advance 60s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := f.Client()
			if err != nil {
				return err
			}
			offset, err := clusterclock.Read(cmd.Context(), c)
			virtual := true
			if errors.Is(err, clusterclock.ErrWallClock) {
				virtual, err = false, nil
			}
			if err != nil {
				return err
			}
			printClocks(f.out(), time.Now(), offset, virtual)
			return nil
		},
	}
	cmd.AddCommand(newTimeAdvanceCommand(f))
	return cmd
}

// newTimeAdvanceCommand is `ctl time advance DURATION`.
func newTimeAdvanceCommand(f *factory) *cobra.Command {
	step := clusterclock.DefaultStep
	cmd := &cobra.Command{
		Use:   "advance DURATION",
		Short: "Move the cluster clock forward (a cluster started with --virtual-clock)",
		Long: `advance moves the cluster clock forward by DURATION (a Go duration: 90s, 5m,
1h30m), never back. It moves in steps of --step (5 s) a tenth of a second
apart, so that what happens regularly still happens in the time skipped:
each running kubelet renews its Lease (every 10 s), each leader its
leader-election Lease (every 2 s), and only a node whose kubelet is silent
(` + "`ctl fault pause-kubelet`" + `) misses the node-monitor grace period. With --step
as large as DURATION the clock jumps at once: for a moment every node
looks silent, and the leaders give up their Leases.

Only a cluster started with ` + "`ctl up --virtual-clock`" + ` has a clock to move.`,
		Example: `  ctl time advance 60s
  ctl time advance 5m --step 30s`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			by, err := time.ParseDuration(args[0])
			if err != nil {
				return fmt.Errorf("invalid duration %q: want a Go duration such as 90s, 5m or 1h30m", args[0])
			}
			if by <= 0 {
				return fmt.Errorf("the cluster clock only moves forward: %s is not a positive duration", args[0])
			}
			if step <= 0 {
				return fmt.Errorf("--step %v: must be positive", step)
			}
			c, err := f.Client()
			if err != nil {
				return err
			}
			if notice := advanceNotice(by, step); notice != "" {
				fmt.Fprintln(f.errOut(), notice)
			}
			offset, err := clusterclock.Advance(cmd.Context(), c, by, clusterclock.AdvanceOptions{Step: step})
			if err != nil {
				return err
			}
			fmt.Fprint(f.out(), clusterclock.AdvancedText(time.Now(), by, offset))
			return nil
		},
	}
	cmd.Flags().DurationVar(&step, "step", step, "the most the clock moves at once; steps are a tenth of a second apart")
	return cmd
}

// advanceNotice says how long an advance of more than 100 steps (10 s)
// will take, so that it does not seem to hang; "" for a shorter one.
func advanceNotice(by, step time.Duration) string {
	steps := (by + step - 1) / step
	if steps <= 100 {
		return ""
	}
	return fmt.Sprintf("advancing the cluster clock %v in %d steps of %v: about %v of wall time",
		by, steps, step, (time.Duration(steps) * clusterclock.DefaultStepPause).Round(time.Second))
}

// clusterOffset is how far the cluster clock is ahead of the wall clock,
// for the ages ctl computes itself (describe's and events' tables): on a
// --virtual-clock cluster, objects and Events carry cluster-clock
// timestamps, and an age counted from the wall clock would be short, or
// "<invalid>" (kubectl, which knows nothing of the cluster clock, shows
// that). It costs one read; when that fails (a wall-clock cluster, a user
// who may not read kube-system) the wall clock will do.
func clusterOffset(ctx context.Context, c *client.Client) time.Duration {
	offset, err := clusterclock.Read(ctx, c)
	if err != nil {
		return 0
	}
	return offset
}

// printClocks prints the cluster clock (wall + offset) and the wall clock.
func printClocks(out io.Writer, wall time.Time, offset time.Duration, virtual bool) {
	fmt.Fprint(out, clusterclock.Describe(wall, offset, virtual))
}
