package robustness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// Config is one run's size and shape.
type Config struct {
	// BinDir holds the etcd and apiserver binaries to run.
	BinDir string
	// Dir receives the cluster's data and logs.
	Dir string
	// Operations is how many traffic operations to run.
	Operations int64
	// Duration bounds the traffic's time; it stops at whichever of
	// Operations and Duration comes first.
	Duration time.Duration
	// Clients is the number of traffic goroutines.
	Clients int
	// Namespaces and Keys: the ConfigMaps written are Keys names in each
	// of Namespaces namespaces (few keys, so that clients collide).
	Namespaces, Keys int
	// FaultInterval is the pause between two faults.
	FaultInterval time.Duration
	// FaultRounds is how many times, at least, every fault kind is
	// injected before the traffic may stop (0: no minimum).
	FaultRounds int
	// LateWatcherInterval is how often a watcher starts from an old
	// resourceVersion (a few seconds back) during the run.
	LateWatcherInterval time.Duration
	// Logf, when set, narrates the run.
	Logf func(format string, args ...any)
}

// Result is what a run did and what the checker found.
type Result struct {
	Operations []Operation
	Watchers   []WatcherRecord
	Faults     map[FaultKind]int
	// FaultFailures are faults that could not be injected or recovered
	// from; a run with any is not to be trusted.
	FaultFailures []string
	History       History
	Anomalies     []Anomaly
	// TrafficTime is how long the traffic ran; Total includes setup, the
	// final catch-up and the check.
	TrafficTime, Total time.Duration
}

// Run starts a cluster, runs traffic, watchers and faults against it, and
// checks the result. An error means the run itself failed (a binary would
// not start, the history has a hole), not that an anomaly was found.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	began := time.Now()
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	cluster, err := StartCluster(ctx, cfg.BinDir, cfg.Dir, 3)
	if err != nil {
		return nil, err
	}
	defer cluster.Stop()
	recorder, err := StartRecorder(cluster.EtcdEndpoints)
	if err != nil {
		return nil, err
	}
	recorderStopped := false
	defer func() {
		if !recorderStopped {
			_, _ = recorder.Stop()
		}
	}()
	plain, err := cluster.HTTPClient(15 * time.Second)
	if err != nil {
		return nil, err
	}
	stream, err := cluster.HTTPClient(0)
	if err != nil {
		return nil, err
	}
	api := &apiClient{http: plain, stream: stream, url: cluster.URL, token: cluster.Token}

	namespaces := make([]string, cfg.Namespaces)
	for i := range namespaces {
		namespaces[i] = fmt.Sprintf("robustness-%d", i)
		body := []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + namespaces[i] + `"}}`)
		if code, answer, err := api.do(ctx, http.MethodPost, "/api/v1/namespaces", "application/json", body); err != nil || code != http.StatusCreated {
			return nil, fmt.Errorf("create namespace %s: %v %s", namespaces[i], err, answer)
		}
	}

	// Watchers: every namespace and one namespace, with and without
	// bookmarks, from a list; more join later from old resourceVersions.
	var watchersMu sync.Mutex
	var watchers []*Watcher
	watchCtx, stopWatchers := context.WithCancel(ctx)
	defer stopWatchers()
	var watchWG sync.WaitGroup
	startWatcher := func(w *Watcher) {
		watchersMu.Lock()
		watchers = append(watchers, w)
		watchersMu.Unlock()
		watchWG.Go(func() { w.Run(watchCtx) })
	}
	allWatchers := func() []*Watcher {
		watchersMu.Lock()
		defer watchersMu.Unlock()
		return append([]*Watcher(nil), watchers...)
	}
	startWatcher(newWatcher(api, "all-bookmarks", "", true, 0))
	startWatcher(newWatcher(api, "all", "", false, 0))
	startWatcher(newWatcher(api, namespaces[0]+"-bookmarks", namespaces[0], true, 0))
	startWatcher(newWatcher(api, namespaces[len(namespaces)-1], namespaces[len(namespaces)-1], false, 0))

	// Traffic, faults and late watchers until the operations or the time
	// run out.
	trafficBegan := time.Now()
	traffic := newTraffic(api, namespaces, cfg.Keys, cfg.Operations)
	trafficCtx, stopTraffic := context.WithCancel(ctx)
	defer stopTraffic()
	var trafficWG sync.WaitGroup
	for id := 1; id <= cfg.Clients; id++ {
		trafficWG.Go(func() { traffic.Run(trafficCtx, id) })
	}
	injector := &Injector{cluster: cluster, recorder: recorder, api: api, watchers: allWatchers,
		interval: cfg.FaultInterval, logf: logf, counts: map[FaultKind]int{}}
	faultCtx, stopFaults := context.WithCancel(ctx)
	defer stopFaults()
	var faultWG sync.WaitGroup
	faultWG.Go(func() { injector.Run(faultCtx) })
	faultWG.Go(func() { startLateWatchers(faultCtx, cfg, recorder, api, namespaces, startWatcher) })
	// The traffic stops when the operations run out, or after Duration
	// but not before every fault kind was injected cfg.FaultRounds times:
	// on a slow machine a restart takes longer, and a timed run must
	// still test every fault.
	var timerWG sync.WaitGroup
	timerWG.Go(func() {
		pause(trafficCtx, cfg.Duration)
		for trafficCtx.Err() == nil && injector.Rounds() < cfg.FaultRounds {
			pause(trafficCtx, 100*time.Millisecond)
		}
		stopTraffic()
	})
	trafficWG.Wait()
	stopTraffic()
	timerWG.Wait()
	stopFaults()
	faultWG.Wait()
	trafficTime := time.Since(trafficBegan)
	logf("traffic done: %d operations in %v", len(traffic.Operations()), trafficTime.Round(time.Millisecond))

	// The end: a whole cluster, a final consistent list of each namespace
	// (its state is checked like any list), and every watcher caught up.
	if err := cluster.WaitReady(ctx); err != nil {
		return nil, err
	}
	for _, ns := range namespaces {
		op := traffic.finalList(ctx, ns)
		traffic.record(op)
	}
	if _, err := recorder.CatchUp(ctx); err != nil {
		return nil, err
	}
	waitForWatchers(ctx, allWatchers(), recorder, logf)
	stopWatchers()
	watchWG.Wait()
	history, err := recorder.Stop()
	recorderStopped = true
	if err != nil {
		return nil, fmt.Errorf("the history cannot be trusted: %w", err)
	}

	res := &Result{Operations: traffic.Operations(), Faults: injector.Counts(), FaultFailures: injector.Failures(),
		History: history, TrafficTime: trafficTime}
	for _, w := range allWatchers() {
		res.Watchers = append(res.Watchers, w.Record())
	}
	res.Anomalies = Check(history, res.Operations, res.Watchers)
	res.Total = time.Since(began)
	return res, nil
}

// startLateWatchers starts, each LateWatcherInterval, a watcher from a
// resourceVersion the history reached a few intervals ago: some of those
// are compacted by then (410, relist), some are replayed.
func startLateWatchers(ctx context.Context, cfg Config, recorder *Recorder, api *apiClient, namespaces []string, start func(*Watcher)) {
	var past []int64
	tick := time.NewTicker(cfg.LateWatcherInterval / 4)
	defer tick.Stop()
	n := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		past = append(past, recorder.Seen())
		if len(past)%4 != 0 || n >= 16 {
			continue
		}
		n++
		from := max(past[rand.IntN(len(past))], 1)
		ns := ""
		if rand.IntN(2) == 0 {
			ns = namespaces[rand.IntN(len(namespaces))]
		}
		bookmarks := rand.IntN(2) == 0
		start(newWatcher(api, fmt.Sprintf("late-%d-from-%d", n, from), ns, bookmarks, from))
	}
}

// waitForWatchers gives every watcher time to reach the last change under
// its prefix. One that does not is reported by the checker (watch-short).
func waitForWatchers(ctx context.Context, watchers []*Watcher, recorder *Recorder, logf func(string, ...any)) {
	deadline := time.Now().Add(30 * time.Second)
	for _, w := range watchers {
		want := recorder.LastUnder(w.record.Prefix)
		for w.Cursor() < want && time.Now().Before(deadline) && ctx.Err() == nil {
			pause(ctx, 50*time.Millisecond)
		}
		if got := w.Cursor(); got < want {
			logf("watcher %s stopped at %d, short of %d", w.Record().Name, got, want)
		}
	}
}

// finalList is one consistent list of ns made after the faults.
func (t *Traffic) finalList(ctx context.Context, ns string) Operation {
	op := Operation{Client: 0, Kind: OpList, Namespace: ns, Start: time.Now()}
	code, body, err := t.api.do(ctx, http.MethodGet, "/api/v1/namespaces/"+ns+"/configmaps", "", nil)
	op.End, op.Code = time.Now(), code
	if err == nil && code == http.StatusOK {
		if obj, decodeErr := decodeObject(body); decodeErr == nil {
			op.Outcome, op.ResourceVersion, op.Items = Acknowledged, obj.resourceVersion(), obj.items()
			return op
		} else {
			err = decodeErr
		}
	}
	op.Outcome, op.Err = Unknown, errors.Join(err, fmt.Errorf("status %d", code)).Error()
	return op
}
