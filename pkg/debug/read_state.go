package debug

import (
	"context"
)

// The readers in this file ask every component of a cluster for one kind of
// live state, as ctl's teaching verbs and the web view's panels both show
// it: one entry per component, in the order of the endpoints, with the
// reason when a component did not answer (it is restarting, or was killed
// by `ctl fault kill`) rather than failing the whole read.

// ComponentQueues is one component's workqueues, as `ctl queues -o json`
// prints them and the web view's Workqueues panel receives them.
type ComponentQueues struct {
	Component string       `json:"component"`
	Queues    []QueueState `json:"queues"`
	// Error says why the component did not answer (it is restarting).
	Error string `json:"error,omitempty"`
}

// ReadQueues asks every endpoint for its workqueues (PathQueues).
func ReadQueues(ctx context.Context, c *Client, endpoints []Endpoint) []ComponentQueues {
	out := make([]ComponentQueues, 0, len(endpoints))
	for _, ep := range endpoints {
		cq := ComponentQueues{Component: ep.Component}
		if err := c.Get(ctx, ep, PathQueues, &cq.Queues); err != nil {
			cq.Error = err.Error()
		}
		if cq.Queues == nil {
			cq.Queues = []QueueState{}
		}
		out = append(out, cq)
	}
	return out
}

// ComponentLeaders is one component's leader elections (PathLeader) and
// the process serving them, so a reader can say which process — which
// PID — holds a Lease.
type ComponentLeaders struct {
	Component string `json:"component"`
	// PID is the process that announced the endpoint.
	PID       int           `json:"pid,omitempty"`
	Elections []LeaderState `json:"elections"`
	// Error says why the component did not answer.
	Error string `json:"error,omitempty"`
}

// ReadLeaders asks every endpoint for its leader elections. Components
// that take part in none (the apiserver, kubelets) answer an empty list.
func ReadLeaders(ctx context.Context, c *Client, endpoints []Endpoint) []ComponentLeaders {
	out := make([]ComponentLeaders, 0, len(endpoints))
	for _, ep := range endpoints {
		cl := ComponentLeaders{Component: ep.Component, PID: ep.PID}
		if err := c.Get(ctx, ep, PathLeader, &cl.Elections); err != nil {
			cl.Error = err.Error()
		}
		if cl.Elections == nil {
			cl.Elections = []LeaderState{}
		}
		out = append(out, cl)
	}
	return out
}
