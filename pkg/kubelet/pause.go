package kubelet

// This file is the kubelet's "pause" fault for lessons: `ctl fault
// pause-kubelet node1` asks node1's kubelet, through its debug API, to stop
// its heartbeat — the Lease renewals and the node status updates — and
// nothing else: its pods keep running and their statuses keep being
// written. To the control plane the node looks like one whose kubelet
// died or lost its network: after the grace period the node-lifecycle
// controller marks it Unknown and taints it unreachable, and after the
// pods' tolerationSeconds the taint-eviction controller deletes them.
// `ctl fault resume-kubelet node1` starts the heartbeat again.

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"

	"kplane/pkg/debug"
)

// The kubelet's routes on its debug API. Both answer a HeartbeatState per
// node they acted on. Without ?node=NAME they act on every node of the
// process.
const (
	PathPause  = "/debug/kplane/pause"
	PathResume = "/debug/kplane/resume"
)

// HeartbeatState says whether a node's heartbeat is paused.
type HeartbeatState struct {
	Node   string `json:"node"`
	Paused bool   `json:"paused"`
}

// heartbeatGate holds one node's heartbeat while it is paused. The Lease
// and node status loops call wait before each heartbeat.
type heartbeatGate struct {
	mu     sync.Mutex
	paused bool
	// resumed is closed while the heartbeat runs; a pause replaces it
	// with an open channel, which resume closes.
	resumed chan struct{}
}

func newHeartbeatGate() *heartbeatGate {
	g := &heartbeatGate{resumed: make(chan struct{})}
	close(g.resumed)
	return g
}

// set pauses or resumes the heartbeat and reports whether that changed
// anything.
func (g *heartbeatGate) set(paused bool) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.paused == paused {
		return false
	}
	g.paused = paused
	if paused {
		g.resumed = make(chan struct{})
	} else {
		close(g.resumed)
	}
	return true
}

func (g *heartbeatGate) isPaused() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.paused
}

// wait returns at once while the heartbeat runs; while it is paused it
// blocks until it is resumed (true) or ctx ends (false).
func (g *heartbeatGate) wait(ctx context.Context) bool {
	g.mu.Lock()
	resumed := g.resumed
	g.mu.Unlock()
	select {
	case <-resumed:
		return true
	case <-ctx.Done():
		return false
	}
}

// registerPauseRoutes adds PathPause and PathResume to the process's debug
// API (a nil journal: no debug API, no routes).
func (s *nodeSet) registerPauseRoutes(j *debug.Journal) {
	j.Handle("POST "+PathPause, s.pauseHandler(j, true))
	j.Handle("POST "+PathResume, s.pauseHandler(j, false))
}

// pauseHandler pauses (or resumes) the heartbeat of ?node=NAME, or of every
// node of the process, and records it in the journal.
func (s *nodeSet) pauseHandler(j *debug.Journal, pause bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nodes := s.ordered
		if name := r.URL.Query().Get("node"); name != "" {
			k, ok := s.byName[name]
			if !ok {
				debug.WriteStatus(w, http.StatusNotFound, "NotFound", "node "+name+" is not run by this kubelet")
				return
			}
			nodes = []*Kubelet{k}
		}
		states := make([]HeartbeatState, 0, len(nodes))
		for _, k := range nodes {
			if k.heartbeat.set(pause) {
				k.logHeartbeat(j, pause)
			}
			states = append(states, HeartbeatState{Node: k.nodeName, Paused: k.heartbeat.isPaused()})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(states)
	})
}

// logHeartbeat says in the log and in the journal that the heartbeat was
// paused or resumed.
func (k *Kubelet) logHeartbeat(j *debug.Journal, paused bool) {
	stage, message := "resume", "heartbeat resumed: renewing the Lease and posting node status again"
	if paused {
		stage, message = "pause", "heartbeat paused by the debug API: no Lease renewal, no node status update until resumed"
	}
	k.log.Info(message)
	j.Add(debug.Record{Type: debug.TypeEvent, Stage: stage, Actor: "heartbeat", Resource: "nodes", Key: k.nodeName, Message: message})
}
