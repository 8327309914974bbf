package apiserver

import (
	"sync"
	"time"
)

// limitRangeMissTTL is how long a namespace found without LimitRanges is
// believed to have none: upstream's LimitRanger keeps its live lookup
// that long (liveTTL).
const limitRangeMissTTL = 30 * time.Second

// limitRangeMissLimit bounds how many namespaces are remembered, as
// upstream's live-lookup LRU is bounded (4096 entries).
const limitRangeMissLimit = 4096

// limitRangeMisses remembers the namespaces a consistent read found
// without LimitRanges, so that a pod create there does not pay a quorum
// read of etcd (which waits behind the WAL fsync of the writes in flight)
// twice per pod. Any LimitRange this server writes forgets them all, so a
// LimitRange created through this server applies to the next pod at once;
// one written through another apiserver applies once the watch cache has
// it, and at the latest after limitRangeMissTTL, as upstream's does.
type limitRangeMisses struct {
	mu    sync.Mutex
	epoch uint64               // bumped by forget
	until map[string]time.Time // namespace → when the miss expires
}

// has reports whether namespace was found without LimitRanges less than
// limitRangeMissTTL before now.
func (m *limitRangeMisses) has(namespace string, now time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	until, ok := m.until[namespace]
	return ok && now.Before(until)
}

// begin returns the epoch to pass to record for a read that starts now.
func (m *limitRangeMisses) begin() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.epoch
}

// record remembers that a consistent read begun at epoch found namespace
// without LimitRanges. It does nothing if a LimitRange was written since
// the read began: the read may predate it.
func (m *limitRangeMisses) record(namespace string, epoch uint64, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if epoch != m.epoch {
		return
	}
	if m.until == nil {
		m.until = make(map[string]time.Time)
	}
	if len(m.until) >= limitRangeMissLimit {
		for ns, until := range m.until {
			if !now.Before(until) {
				delete(m.until, ns)
			}
		}
		if len(m.until) >= limitRangeMissLimit {
			clear(m.until)
		}
	}
	m.until[namespace] = now.Add(limitRangeMissTTL)
}

// forget drops every remembered namespace; the server calls it after it
// writes a LimitRange.
func (m *limitRangeMisses) forget() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.epoch++
	clear(m.until)
}
