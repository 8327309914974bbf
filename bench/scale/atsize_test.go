//go:build scale

package scale

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/informer"
	"kplane/pkg/procstat"
	"kplane/test/framework"
)

// relist is a fresh informer's list of every pod until its cache is
// synced: how long a component restarting at this size waits before it
// can act, and the memory its cache then holds (this process's heap grew by
// heapGrowth).
type relist struct {
	elapsed    time.Duration
	pods       int
	heapGrowth uint64
}

// measureRelist starts a kplane pod informer on c, as a controller's is
// built, and times it from Start to WaitForCacheSync.
func measureRelist(ctx context.Context, c *client.Client) (relist, error) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	factory := informer.NewSharedInformerFactory(c, 0, informer.WithLogger(slog.New(slog.DiscardHandler)))
	defer factory.Shutdown()
	pods := factory.Pods()
	start := time.Now()
	factory.Start(ctx)
	for res, synced := range factory.WaitForCacheSync(ctx) {
		if !synced {
			return relist{}, fmt.Errorf("informer of %s did not sync", res.Resource)
		}
	}
	r := relist{elapsed: time.Since(start), pods: len(pods.Informer().GetIndexer().List())}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if after.HeapAlloc > before.HeapAlloc {
		r.heapGrowth = after.HeapAlloc - before.HeapAlloc
	}
	return r, nil
}

// w7Result is W7 at full size: a scheduler process started with pods
// pending, the time until a watch saw them all bound, and its RSS then.
type w7Result struct {
	pods    int
	elapsed time.Duration
	// binding is the first pod seen bound → the last: the scheduling and
	// binding alone, after the scheduler's informers have synced.
	binding time.Duration
	rss     uint64
}

// measureW7 runs W7 with the cluster full: it creates w7Pods pods whose
// spec.schedulerName is "scale-w7" (the cluster's scheduler leaves them
// alone), then starts bin/scheduler as a process serving that name with
// no leader election, and times it from its start — informer lists of
// every node and pod included, as W7 does — until the tracker has seen
// every one of them bound. The scheduler is stopped by its PID.
func measureW7(ctx context.Context, t *testing.T, sc *scaleCluster, tr *podTracker, namespace string, w7Pods int) w7Result {
	t.Helper()
	const schedulerName = "scale-w7"
	name := func(i int) string { return fmt.Sprintf("w7-%05d", i) }
	if _, err := createPods(ctx, sc.client, namespace, 0, w7Pods, 16, 0, func(i int) *api.Pod {
		return scalePod(name(i), "", schedulerName)
	}); err != nil {
		t.Fatal(err)
	}
	bound0, _ := tr.counts()
	logPath := filepath.Join(sc.Dir, "scheduler-w7.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(filepath.Join(sc.binDir, "scheduler"), "--kubeconfig", sc.KubeconfigPath(),
		"--scheduler-name", schedulerName, "--leader-elect=false")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	start := time.Now()
	stop := framework.StartProcess(t, "the W7 scheduler", cmd, func() {
		if t.Failed() {
			t.Logf("W7 scheduler: the end of its log:\n%s", tail(logPath, 4000))
		}
	})
	defer stop()
	tr.waitFor(ctx, t, "the W7 pods to be bound", 10*time.Minute, func(bound, _ int) bool { return bound >= bound0+w7Pods })
	r := w7Result{pods: w7Pods}
	var first time.Time
	for i := range w7Pods {
		at, ok := tr.boundAt(name(i))
		if !ok {
			continue
		}
		r.elapsed = max(r.elapsed, at.Sub(start))
		if first.IsZero() || at.Before(first) {
			first = at
		}
	}
	r.binding = start.Add(r.elapsed).Sub(first)
	if m, err := procstat.ReadMemory(cmd.Process.Pid); err == nil {
		r.rss = m.RSS
	}
	return r
}
