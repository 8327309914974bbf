package debug

import (
	"cmp"
	"slices"
	"time"
)

// A live reading of a workqueue (PathQueues) shows where its keys are at
// one moment, and a key a worker handles in a millisecond is almost never
// caught there. The journal does not miss it: every Add, Get and Done of a
// controller's queue, and the sync between them, is a trace record. A
// QueueHistory replays those records into each key's passage through its
// queue — queue → processing → done — as the web view's Workqueues panel
// shows it.

// The states of a key's passage, in the words of the queue's three sets
// (docs/workqueue.md).
const (
	// PassageQueue: Add put the key in the queue; it waits for a worker.
	PassageQueue = "queue"
	// PassageProcessing: a worker took the key (Get).
	PassageProcessing = "processing"
	// PassageSync: the controller's sync of the key returned; the step's
	// Detail is its result (ok, or error and why).
	PassageSync = "sync"
	// PassageDirty: the key was added again while a worker held it; it
	// stays out of the queue (never two workers on one key) and goes back
	// in when the worker is done.
	PassageDirty = "dirty"
	// PassageWaiting: the key was parked for a delay (AddAfter, or a
	// rate-limited retry after a failed sync) and is added again when the
	// delay has passed.
	PassageWaiting = "waiting"
	// PassageDone: the worker released the key (Done).
	PassageDone = "done"
)

// The trace records a QueueHistory reads: the workqueue's events, named
// by informer.QueueTrace (package informer imports this one, so the names
// are repeated here).
const (
	stageEnqueue    = "enqueue"
	stageQueue      = "queue"
	queueEventGet   = "get"
	queueEventDone  = "done"
	queueEventAfter = "requeue-after"
)

// maxPassageSteps bounds one passage: a key that is added again and
// again while it waits is deduplicated (counted, not stepped), but a
// passage that waits and retries many times keeps only its last steps.
const maxPassageSteps = 24

// QueueStep is one move of a key in its queue.
type QueueStep struct {
	// State is one of the Passage constants.
	State string `json:"state"`
	// Time is when the component recorded the move, on its clock.
	Time time.Time `json:"time"`
	// Seq is the journal record the step comes from.
	Seq uint64 `json:"seq"`
	// Detail is a sync's result ("ok", "error: …") and how long it took.
	Detail string `json:"detail,omitempty"`
}

// KeyPassage is one key's way through a queue: from the Add that put it
// there to the Done that released it.
type KeyPassage struct {
	Component string `json:"component"`
	Queue     string `json:"queue"`
	Key       string `json:"key"`
	// Steps are the key's moves, oldest first.
	Steps []QueueStep `json:"steps"`
	// Deduplicated counts the Adds of the key while it was already queued,
	// or already dirty: they changed nothing (the queue holds a key once).
	Deduplicated int `json:"deduplicated,omitempty"`
	// Finished is set once the passage ended with Done.
	Finished bool `json:"finished"`

	// processing is set from the key's Get to its Done; dirty when it
	// was added again meanwhile.
	processing, dirty bool
}

// QueueHistory keeps the last passages of every queue of the components
// whose records it is given. It is not safe for concurrent use.
//
// Invariants: open[k] is the last passage of key k if that passage is not
// finished, else absent; passages[q] holds at most perQueue passages,
// oldest first.
type QueueHistory struct {
	perQueue int
	passages map[queueName][]*KeyPassage
	open     map[queuedKey]*KeyPassage
}

type queueName struct{ component, queue string }

type queuedKey struct {
	queueName
	key string
}

// NewQueueHistory returns a history keeping the last perQueue passages of
// each queue.
func NewQueueHistory(perQueue int) *QueueHistory {
	return &QueueHistory{perQueue: max(perQueue, 1), passages: map[queueName][]*KeyPassage{}, open: map[queuedKey]*KeyPassage{}}
}

// Add replays one journal record; records other than a workqueue's trace
// (enqueue, queue events, syncs) are ignored. Records must come in the
// order of their component's journal.
func (h *QueueHistory) Add(r Record) {
	if r.Type != TypeTrace || r.Actor == "" || r.Key == "" {
		return
	}
	k := queuedKey{queueName{r.Component, r.Actor}, r.Key}
	step := QueueStep{Time: r.Time, Seq: r.Seq}
	switch {
	case r.Stage == stageEnqueue:
		h.added(k, step)
	case r.Stage == stageQueue && r.Field("event") == queueEventGet:
		step.State = PassageProcessing
		h.step(k, step).processing = true
	case r.Stage == StageSync:
		step.State, step.Detail = PassageSync, syncDetail(r)
		h.step(k, step)
	case r.Stage == stageQueue && r.Field("event") == queueEventAfter:
		step.State = PassageWaiting
		h.step(k, step)
	case r.Stage == stageQueue && r.Field("event") == queueEventDone:
		h.done(k, step)
	}
}

// added is an Add: the start of a passage, a deduplicated Add, or an Add
// while a worker holds the key (dirty).
func (h *QueueHistory) added(k queuedKey, step QueueStep) {
	p := h.open[k]
	switch {
	case p == nil:
		step.State = PassageQueue
		h.start(k, step)
	case p.processing && !p.dirty:
		step.State = PassageDirty
		p.dirty = true
		h.append(p, step)
	case p.processing, last(p).State == PassageQueue:
		// Already dirty, or already queued: the queue holds a key once.
		p.Deduplicated++
	default: // waiting: the delay passed, the key is queued again
		step.State = PassageQueue
		h.append(p, step)
	}
}

// step appends a Get, sync or delayed Add to the key's open passage, or
// starts one when the journal's ring no longer held the key's Add.
func (h *QueueHistory) step(k queuedKey, step QueueStep) *KeyPassage {
	if p := h.open[k]; p != nil {
		h.append(p, step)
		return p
	}
	return h.start(k, step)
}

// done ends the key's passage. A key added again while it was processed
// goes straight back into the queue: its next passage starts now.
func (h *QueueHistory) done(k queuedKey, step QueueStep) {
	step.State = PassageDone
	p := h.open[k]
	if p == nil {
		p = h.start(k, QueueStep{State: PassageProcessing, Time: step.Time, Seq: step.Seq})
	}
	requeue := p.dirty
	h.append(p, step)
	p.Finished = true
	delete(h.open, k)
	if requeue {
		h.start(k, QueueStep{State: PassageQueue, Time: step.Time, Seq: step.Seq, Detail: "added while processing"})
	}
}

// start opens a new passage of k with its first step, dropping the
// queue's oldest passage when the queue has perQueue of them.
func (h *QueueHistory) start(k queuedKey, first QueueStep) *KeyPassage {
	p := &KeyPassage{Component: k.component, Queue: k.queue, Key: k.key, Steps: []QueueStep{first}}
	h.open[k] = p
	list := append(h.passages[k.queueName], p)
	if len(list) > h.perQueue {
		dropped := list[0]
		dk := queuedKey{k.queueName, dropped.Key}
		if h.open[dk] == dropped {
			delete(h.open, dk)
		}
		list = slices.Delete(list, 0, 1)
	}
	h.passages[k.queueName] = list
	return p
}

// append adds a step to p, keeping its last maxPassageSteps.
func (h *QueueHistory) append(p *KeyPassage, step QueueStep) {
	p.Steps = append(p.Steps, step)
	if len(p.Steps) > maxPassageSteps {
		p.Steps = slices.Delete(p.Steps, 0, len(p.Steps)-maxPassageSteps)
	}
}

// Forget drops the passages of component: it restarted, and its new
// journal numbers its records from 1 again.
func (h *QueueHistory) Forget(component string) {
	for name := range h.passages {
		if name.component == component {
			delete(h.passages, name)
		}
	}
	for k := range h.open {
		if k.component == component {
			delete(h.open, k)
		}
	}
}

// Passages returns copies of the passages kept, of every queue or (queue
// not "") of the queues of that name, ordered by component and queue, then
// oldest first.
func (h *QueueHistory) Passages(queue string) []KeyPassage {
	var out []KeyPassage
	for name, list := range h.passages {
		if queue != "" && name.queue != queue {
			continue
		}
		for _, p := range list {
			c := *p
			c.Steps = slices.Clone(p.Steps)
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b KeyPassage) int {
		return cmp.Or(cmp.Compare(a.Component, b.Component), cmp.Compare(a.Queue, b.Queue),
			cmp.Compare(a.Steps[0].Seq, b.Steps[0].Seq))
	})
	return out
}

func last(p *KeyPassage) QueueStep { return p.Steps[len(p.Steps)-1] }

// syncDetail is a sync record's result in words: "ok in 1.2ms", or the
// error it returned.
func syncDetail(r Record) string {
	detail := r.Field("result")
	if r.Message != "" {
		detail += ": " + r.Message
	}
	if took := r.Field("took"); took != "" {
		detail += " (took " + took + ")"
	}
	return detail
}
