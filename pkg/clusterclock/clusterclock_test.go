package clusterclock_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/apiserver"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/clusterclock"
	"kplane/pkg/leaderelection"
	"kplane/test/framework"
)

// virtualAPIServer starts an apiserver with --virtual-clock on dir.
func virtualAPIServer(t *testing.T, dir string) *framework.APIServer {
	t.Helper()
	return framework.StartAPIServerWith(t, dir, func(o *apiserver.Options) { o.VirtualClock = true })
}

// quickly advances without waiting between steps: nothing here needs the
// pause that lets kubelets renew their Leases.
var quickly = clusterclock.AdvanceOptions{Pause: time.Millisecond}

func TestAdvanceMovesTheClockInSteps(t *testing.T) {
	c := virtualAPIServer(t, t.TempDir()).Client(t, nil)
	ctx := context.Background()
	if offset, err := clusterclock.Read(ctx, c); err != nil || offset != 0 {
		t.Fatalf("Read on a fresh cluster = %v, %v; want 0, no error", offset, err)
	}

	var steps []time.Duration
	opts := quickly
	opts.Step = 10 * time.Second
	opts.Progress = func(offset time.Duration) { steps = append(steps, offset) }
	offset, err := clusterclock.Advance(ctx, c, 25*time.Second, opts)
	if err != nil || offset != 25*time.Second {
		t.Fatalf("Advance(25s) = %v, %v; want 25s", offset, err)
	}
	if want := []time.Duration{10 * time.Second, 20 * time.Second, 25 * time.Second}; fmt.Sprint(steps) != fmt.Sprint(want) {
		t.Fatalf("Advance(25s) in steps of 10s wrote %v, want %v", steps, want)
	}

	// Advances add up, whoever makes them.
	opts.Step = time.Hour
	if offset, err = clusterclock.Advance(ctx, c, time.Hour, opts); err != nil || offset != time.Hour+25*time.Second {
		t.Fatalf("a second Advance(1h) = %v, %v; want 1h0m25s", offset, err)
	}
	if offset, err = clusterclock.Read(ctx, c); err != nil || offset != time.Hour+25*time.Second {
		t.Fatalf("Read = %v, %v; want 1h0m25s", offset, err)
	}
	cm, err := c.ConfigMaps(clusterclock.Namespace).Get(ctx, clusterclock.Name, client.GetOptions{})
	if err != nil || cm.Data[clusterclock.OffsetKey] != "1h0m25s" {
		t.Fatalf("the ConfigMap holds %v (err %v), want offset 1h0m25s", cm.Data, err)
	}

	if _, err := clusterclock.Advance(ctx, c, -time.Second, opts); err == nil {
		t.Fatal("Advance(-1s) succeeded; time must not go back")
	}
}

func TestAWallClockClusterSaysSo(t *testing.T) {
	c := framework.StartAPIServer(t).Client(t, nil)
	ctx := context.Background()
	if _, err := clusterclock.Read(ctx, c); !errors.Is(err, clusterclock.ErrWallClock) {
		t.Fatalf("Read without --virtual-clock: %v, want ErrWallClock", err)
	}
	_, err := clusterclock.Advance(ctx, c, time.Minute, quickly)
	if !errors.Is(err, clusterclock.ErrWallClock) {
		t.Fatalf("Advance without --virtual-clock: %v, want ErrWallClock", err)
	}
	if want := "this cluster runs on the wall clock; start it with `ctl up --virtual-clock`"; err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
}

func TestFollowerJumpsWithTheClusterClock(t *testing.T) {
	c := virtualAPIServer(t, t.TempDir()).Client(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := clusterclock.Advance(ctx, c, time.Minute, clusterclock.AdvanceOptions{Step: time.Minute}); err != nil {
		t.Fatal(err)
	}

	v := clock.NewVirtual(0)
	f := clusterclock.NewFollower(c, v, slog.New(slog.DiscardHandler))
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	if v.Offset() != time.Minute {
		t.Fatalf("after Start the clock is offset %v, want the cluster's 1m", v.Offset())
	}

	inAnHour := v.NewTimer(time.Hour)
	if _, err := clusterclock.Advance(ctx, c, 2*time.Hour, clusterclock.AdvanceOptions{Step: 2 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-inAnHour.C():
	case <-time.After(30 * time.Second):
		t.Fatalf("a 1h timer did not fire after the cluster clock moved 2h (clock offset %v)", v.Offset())
	}
	if v.Offset() != 2*time.Hour+time.Minute {
		t.Fatalf("clock offset %v, want 2h1m", v.Offset())
	}
}

func TestAPIServerStampsTheClusterClock(t *testing.T) {
	dir := t.TempDir()
	s := virtualAPIServer(t, dir)
	c := s.Client(t, nil)
	ctx := context.Background()
	if _, err := clusterclock.Advance(ctx, c, time.Hour, clusterclock.AdvanceOptions{Step: time.Hour}); err != nil {
		t.Fatal(err)
	}

	// The server follows its watch cache: the first create after the
	// advance may still carry the wall time.
	aheadOfWall := func(ts api.Time) bool { return ts.Time.After(time.Now().Add(59 * time.Minute)) }
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		cm, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{GenerateName: "stamp-"}}, client.CreateOptions{})
		if err != nil {
			return false, err.Error()
		}
		return aheadOfWall(cm.CreationTimestamp), fmt.Sprintf("creationTimestamp %v, wall %v", cm.CreationTimestamp, time.Now())
	})

	held := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "held", Finalizers: []string{"kplane.io/test"}}}
	if _, err := c.ConfigMaps("default").Create(ctx, held, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.ConfigMaps("default").Delete(ctx, "held", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	held, err := c.ConfigMaps("default").Get(ctx, "held", client.GetOptions{})
	if err != nil || held.DeletionTimestamp == nil || !aheadOfWall(*held.DeletionTimestamp) {
		t.Fatalf("deletionTimestamp %v (err %v), want an hour ahead of the wall clock", held.DeletionTimestamp, err)
	}
	held.Finalizers = nil
	if _, err := c.ConfigMaps("default").Update(ctx, held, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	// A restarted apiserver keeps the cluster's time: it must not go back.
	s.Stop()
	s = virtualAPIServer(t, dir)
	c = s.Client(t, nil)
	cm, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{GenerateName: "stamp-"}}, client.CreateOptions{})
	if err != nil || !aheadOfWall(cm.CreationTimestamp) {
		t.Fatalf("after a restart, creationTimestamp %v (err %v), want an hour ahead of the wall clock", cm.CreationTimestamp, err)
	}

	// Restarted without --virtual-clock, the cluster is back on the wall
	// clock, and says so.
	s.Stop()
	c = framework.StartAPIServerIn(t, dir).Client(t, nil)
	if _, err := clusterclock.Read(ctx, c); !errors.Is(err, clusterclock.ErrWallClock) {
		t.Fatalf("after a restart without --virtual-clock, Read: %v, want ErrWallClock", err)
	}
}

// A leader slower than the steps (each of its writes returns 300 ms late,
// as on a busy machine) keeps leading through an advance of 30 s: after
// each step Advance waits for its renewal. Without that wait the steps
// would carry its last renewal past the 10 s renew deadline and it would
// give up leading.
func TestAdvanceWaitsForASlowLeader(t *testing.T) {
	server := virtualAPIServer(t, t.TempDir())
	c := server.Client(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	v := clock.NewVirtual(0)
	f := clusterclock.NewFollower(c, v, slog.New(slog.DiscardHandler))
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	slow := server.Client(t, func(cfg *client.Config) {
		cfg.OnWrite = func(client.WriteInfo) { time.Sleep(300 * time.Millisecond) }
	})
	leading, stopped := make(chan struct{}), make(chan struct{})
	le, err := leaderelection.New(leaderelection.Config{
		Leases: slow.Leases(clusterclock.Namespace), Namespace: clusterclock.Namespace, Name: "slow-leader",
		Identity: "slow", Clock: v, Logger: slog.New(slog.DiscardHandler), RetryPeriod: time.Second,
		Callbacks: leaderelection.Callbacks{
			OnStartedLeading: func(ctx context.Context) { close(leading); <-ctx.Done() },
			OnStoppedLeading: func() { close(stopped) },
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); le.Run(ctx) }()
	defer func() { cancel(); <-done }()
	select {
	case <-leading:
	case <-time.After(30 * time.Second):
		t.Fatal("the candidate did not become leader")
	}

	if _, err := clusterclock.Advance(ctx, c, 30*time.Second, quickly); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stopped:
		t.Fatal("the slow leader gave up leading during the advance")
	default:
	}
	got, err := c.Leases(clusterclock.Namespace).Get(ctx, "slow-leader", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if holder := got.Spec.HolderIdentity; holder == nil || *holder != "slow" || v.Since(got.Spec.RenewTime.Time) > 10*time.Second {
		t.Fatalf("after the advance the Lease is held by %v, renewed %v ago; want slow, within its renew deadline", holder, v.Since(got.Spec.RenewTime.Time))
	}
}
