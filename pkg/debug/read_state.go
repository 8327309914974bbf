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
	readEach(ctx, c, endpoints, PathQueues, func(ep Endpoint, queues []QueueState, errText string) {
		out = append(out, ComponentQueues{Component: ep.Component, Queues: queues, Error: errText})
	})
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
	readEach(ctx, c, endpoints, PathLeader, func(ep Endpoint, elections []LeaderState, errText string) {
		out = append(out, ComponentLeaders{Component: ep.Component, PID: ep.PID, Elections: elections, Error: errText})
	})
	return out
}

// readEach gets the list at path from every endpoint in turn and hands it
// to add — never nil, so it encodes as [] — with the error, if any, as
// text.
func readEach[T any](ctx context.Context, c *Client, endpoints []Endpoint, path string, add func(Endpoint, []T, string)) {
	for _, ep := range endpoints {
		var items []T
		errText := ""
		if err := c.Get(ctx, ep, path, &items); err != nil {
			errText = err.Error()
		}
		if items == nil {
			items = []T{}
		}
		add(ep, items, errText)
	}
}
