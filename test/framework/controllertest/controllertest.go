// Package controllertest helps the controllers' integration tests, which run one controller
// (or a chain of them) in-process against StartAPIServer with no scheduler
// and no kubelet. The tests stand in for the missing components themselves:
// MarkPodReady, MarkPodsReady and ReportPodStatus play the kubelet's part,
// and WaitForEvent checks what a user would read in `kubectl get events`.
//
// It also holds fixtures for unit tests: WebService and WebPod
// (servicefixtures.go), the objects the tests of the controllers that list
// a Service's pods start from, and Recorder (events.go), whose
// ExpectEvents compares the Events of one sync as fakeapi's ExpectActions
// compares its API writes.
package controllertest

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
)

// TestLogger returns the logger for components a test runs in-process: it
// discards everything unless KPLANE_TEST_LOGS is set, and then writes debug
// lines to stderr (the same switch StartAPIServer reads).
func TestLogger() *slog.Logger {
	if os.Getenv("KPLANE_TEST_LOGS") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// Runner is a controller's main loop as the controller-manager calls it:
// Run blocks, with workers sync goroutines, until ctx ends.
type Runner interface {
	Run(ctx context.Context, workers int)
}

// Controllers runs controllers in-process on one shared informer factory,
// as the controller-manager does, until the test ends. Build the
// controllers on Factory with recorders from Recorder, then call Run.
//
// When the test ends the cleanup stops things in the controller-manager's
// order: cancel the context, wait for every Run and Go loop to return,
// stop the informers, then flush the event recorders (so that no event is
// written to an apiserver that is already gone).
type Controllers struct {
	// Factory is the informer factory every controller shares; Run starts it.
	Factory *informer.SharedInformerFactory
	// Logger is TestLogger(), for the controllers' Options and the factory.
	Logger *slog.Logger

	client    *client.Client
	ctx       context.Context
	cancel    context.CancelFunc
	loops     sync.WaitGroup
	recorders []*events.Recorder
}

// NewControllers returns a Controllers on c and registers its cleanup.
func NewControllers(t testing.TB, c *client.Client) *Controllers {
	t.Helper()
	logger := TestLogger()
	ctx, cancel := context.WithCancel(context.Background())
	h := &Controllers{
		Factory: informer.NewSharedInformerFactory(c, 0, informer.WithLogger(logger)),
		Logger:  logger,
		client:  c, ctx: ctx, cancel: cancel,
	}
	t.Cleanup(func() {
		h.cancel()
		h.loops.Wait()
		h.Factory.Shutdown()
		for _, r := range h.recorders {
			r.Shutdown()
		}
	})
	return h
}

// Recorder returns an event recorder that writes Events through the API
// with source component (e.g. "replicaset-controller"), or, for "", an
// events.FakeRecorder for controllers whose tests do not read events.
func (h *Controllers) Recorder(component string) events.EventRecorder {
	if component == "" {
		return &events.FakeRecorder{}
	}
	r := events.NewRecorder(h.client, api.EventSource{Component: component}, h.Logger)
	h.recorders = append(h.recorders, r)
	return r
}

// Run starts the informers the controllers asked for and runs each
// controller with workers workers until the test ends.
func (h *Controllers) Run(workers int, controllers ...Runner) {
	h.Factory.Start(h.ctx)
	for _, ctrl := range controllers {
		h.loops.Go(func() { ctrl.Run(h.ctx, workers) })
	}
}

// Go runs loop (a stand-in for another component) until the test ends.
func (h *Controllers) Go(loop func(ctx context.Context)) {
	h.loops.Go(func() { loop(h.ctx) })
}

// RunController runs the one controller newController builds until the
// test ends and returns it (for tests that look inside it). component is
// the event source, "" for a FakeRecorder (see Controllers.Recorder).
func RunController[C Runner](t testing.TB, c *client.Client, component string, workers int,
	newController func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (C, error)) C {
	t.Helper()
	h := NewControllers(t, c)
	ctrl, err := newController(h.Factory, h.Recorder(component), h.Logger)
	if err != nil {
		t.Fatalf("new controller: %v", err)
	}
	h.Run(workers, ctrl)
	return ctrl
}

// setPodReady is what a kubelet reports once a pod's containers run and
// pass their readiness probes.
func setPodReady(p *api.Pod) {
	p.Status.Phase = api.PodRunning
	p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.Now()}}
}

// MarkPodReady plays the kubelet for one pod: it runs and its Ready
// condition turns True now. Conflicts (a controller writing the pod at the
// same time) are retried until timeout; other errors fail the test.
func MarkPodReady(t testing.TB, c *client.Client, timeout time.Duration, namespace, name string) {
	t.Helper()
	ctx := context.Background()
	framework.Eventually(t, timeout, func() (bool, string) {
		p, err := c.Pods(namespace).Get(ctx, name, client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		setPodReady(p)
		_, err = c.Pods(namespace).UpdateStatus(ctx, p, client.UpdateOptions{})
		if apierrors.IsConflict(err) {
			return false, err.Error()
		}
		if err != nil {
			t.Fatalf("update status of pod %s/%s: %v", namespace, name, err)
		}
		return true, ""
	})
}

// ReportPodStatus plays the kubelet for one pod that has started: it is
// Running with IP ip, and its Ready condition is ready, as of now. Unlike
// MarkPodReady it does not retry: any error, a conflict too, fails the
// test, for tests in which nothing else writes the pod.
func ReportPodStatus(t testing.TB, c *client.Client, namespace, name, ip string, ready bool) {
	t.Helper()
	ctx := context.Background()
	pod, err := c.Pods(namespace).Get(ctx, name, client.GetOptions{})
	if err != nil {
		t.Fatalf("get pod %s/%s: %v", namespace, name, err)
	}
	readyStatus := api.ConditionFalse
	if ready {
		readyStatus = api.ConditionTrue
	}
	pod.Status.Phase = api.PodRunning
	pod.Status.PodIP, pod.Status.PodIPs = ip, []api.PodIP{{IP: ip}}
	pod.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: readyStatus, LastTransitionTime: api.Now()}}
	if _, err := c.Pods(namespace).UpdateStatus(ctx, pod, client.UpdateOptions{}); err != nil {
		t.Fatalf("update status of pod %s/%s: %v", namespace, name, err)
	}
}

// podsReadyInterval is how often MarkPodsReady looks for new pods: a real
// kubelet takes seconds to start a container; 20 ms keeps rollouts quick.
const podsReadyInterval = 20 * time.Millisecond

// MarkPodsReady plays the kubelet for every pod in namespace matching
// labelSelector ("" for all) until ctx ends: each one not Ready yet (and not
// being deleted) is marked Running and Ready. Pass it to Controllers.Go.
func MarkPodsReady(ctx context.Context, c *client.Client, namespace, labelSelector string) {
	tick := time.NewTicker(podsReadyInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		list, err := c.Pods(namespace).List(ctx, client.ListOptions{LabelSelector: labelSelector})
		if err != nil {
			continue
		}
		for _, p := range list.Items {
			if controllerutil.IsPodReady(p) || p.DeletionTimestamp != nil {
				continue
			}
			setPodReady(p)
			// Conflicts and pods deleted meanwhile are retried next tick.
			_, _ = c.Pods(namespace).UpdateStatus(ctx, p, client.UpdateOptions{})
		}
	}
}

// EventMatch says which Event a test waits for. Empty fields match
// anything; Message must equal the event's message, MessagePrefix start it.
type EventMatch struct {
	Namespace     string
	Component     string // source.component, e.g. "job-controller"
	Kind, Name    string // the involved object
	Reason        string
	Message       string
	MessagePrefix string
}

// matches reports whether ev is one m describes.
func (m EventMatch) matches(ev *api.Event) bool {
	return (m.Component == "" || ev.Source.Component == m.Component) &&
		(m.Kind == "" || ev.InvolvedObject.Kind == m.Kind) &&
		(m.Name == "" || ev.InvolvedObject.Name == m.Name) &&
		(m.Reason == "" || ev.Reason == m.Reason) &&
		(m.Message == "" || ev.Message == m.Message) &&
		strings.HasPrefix(ev.Message, m.MessagePrefix)
}

// EventSeen returns a condition for Eventually (or a caller's own polling
// loop) that holds once an Event matching m exists in m.Namespace; until
// then it says which events there are, as "Reason: message".
func EventSeen(c *client.Client, m EventMatch) func() (bool, string) {
	return func() (bool, string) {
		list, err := c.Events(m.Namespace).List(context.Background(), client.ListOptions{})
		if err != nil {
			return false, fmt.Sprintf("list events: %v", err)
		}
		var seen []string
		for _, ev := range list.Items {
			if m.matches(ev) {
				return true, ""
			}
			seen = append(seen, ev.Reason+": "+ev.Message)
		}
		return false, fmt.Sprintf("no event %+v; events: %q", m, seen)
	}
}

// WaitForEvent waits up to timeout for an Event matching m.
func WaitForEvent(t testing.TB, c *client.Client, timeout time.Duration, m EventMatch) {
	t.Helper()
	framework.Eventually(t, timeout, EventSeen(c, m))
}
