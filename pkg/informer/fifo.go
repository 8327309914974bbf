package informer

// This file is the choice between the two queues an informer can put
// between its reflector and its cache: the DeltaFIFO (delta_fifo.go), which
// kplane teaches by default, and the RealFIFO (real_fifo.go), upstream's
// default since Kubernetes 1.33. WithFIFO picks one; `ctl up
// --informer-fifo` picks it for every component of a cluster.

import (
	"fmt"
	"strings"
)

// FIFO is the queue between a reflector and an informer's cache. The
// reflector writes into it (ReflectorStore); the informer's single
// processing goroutine calls Pop and applies what it gets to the indexer.
// Upstream calls this interface cache.Queue.
type FIFO interface {
	ReflectorStore
	// Pop waits for the next item and calls process on it, a Deltas, under
	// the queue's lock; it returns ErrFIFOClosed once the queue is closed
	// and empty.
	Pop(process PopProcessFunc) (any, error)
	// HasSynced reports whether the items of the first Replace have all
	// been popped.
	HasSynced() bool
	// Close wakes every waiting Pop; the queue still hands out what it
	// holds.
	Close()
	// Len is the number of items waiting to be popped.
	Len() int
	// LastSyncResourceVersion is the resourceVersion of the last Replace.
	LastSyncResourceVersion() string
}

// FIFOKind names one of the two FIFO implementations.
type FIFOKind string

const (
	// FIFODelta is the DeltaFIFO: one item per key, holding every change
	// to that object since it was last popped, with duplicate deletions
	// dropped. kplane's default, because its per-object histories are what
	// the informer lessons show.
	FIFODelta FIFOKind = "delta"
	// FIFOReal is the RealFIFO: one item per event, popped in arrival
	// order, nothing merged or dropped. Upstream's default since
	// Kubernetes 1.33 (feature gate InOrderInformers).
	FIFOReal FIFOKind = "real"
)

// FIFOKinds are the valid FIFOKind values, for flags' help and errors.
var FIFOKinds = []FIFOKind{FIFODelta, FIFOReal}

// ParseFIFOKind reads a --informer-fifo value: "delta" or "real".
func ParseFIFOKind(s string) (FIFOKind, error) {
	for _, k := range FIFOKinds {
		if string(k) == s {
			return k, nil
		}
	}
	names := make([]string, len(FIFOKinds))
	for i, k := range FIFOKinds {
		names[i] = string(k)
	}
	return "", fmt.Errorf("unknown informer FIFO %q: must be one of %s", s, strings.Join(names, ", "))
}

// String returns the kind's flag value.
func (k FIFOKind) String() string { return string(k) }

// Set parses a flag value into k, so a FIFOKind can be a pflag.Value.
func (k *FIFOKind) Set(s string) error {
	parsed, err := ParseFIFOKind(s)
	if err != nil {
		return err
	}
	*k = parsed
	return nil
}

// Type names the flag's value type in help output.
func (k *FIFOKind) Type() string { return "delta|real" }

// FIFOFlagHelp is the help text of every component's --informer-fifo flag.
const FIFOFlagHelp = "queue between each informer's reflector and its cache: delta (the DeltaFIFO: one item per object, holding every change it got while it waited) or real (the RealFIFO, upstream's default since 1.33: one item per event, in arrival order)"

// newFIFO builds the FIFO of kind ("" is FIFODelta) over the consumer's
// cache known, tracing each queued item with trace (nil: no trace).
func newFIFO(kind FIFOKind, known KeyListerGetter, trace func(stage, key string, d Delta)) FIFO {
	if kind == FIFOReal {
		return NewRealFIFO(RealFIFOOptions{KeyFunction: MetaNamespaceKeyFunc, KnownObjects: known, Trace: trace})
	}
	return NewDeltaFIFO(DeltaFIFOOptions{KeyFunction: MetaNamespaceKeyFunc, KnownObjects: known, Trace: trace})
}
