package metricsserver

// This file is the scrape loop, upstream's pkg/scraper/scraper.go and the
// tick in pkg/server/server.go: every resolution, on the component's clock
// (the cluster clock under --virtual-clock), ask every Ready node's kubelet
// for its resource metrics, a bounded number at a time, each within a
// timeout shorter than the resolution, and store the round.

import (
	"context"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
)

// maxConcurrentScrapes bounds the kubelets asked at once. Upstream asks
// every node at once, spreading the starts over the resolution; a
// teaching cluster of a few nodes on one machine is better served by a
// small bound.
const maxConcurrentScrapes = 8

// scrapeTimeoutFraction is the part of the resolution one kubelet may
// take: upstream's 0.9, so a round ends before the next one begins.
const scrapeTimeoutFraction = 0.9

// NodeLister lists the nodes to scrape.
type NodeLister interface {
	List() ([]*api.Node, error)
}

// scraper asks the kubelets for their metrics.
type scraper struct {
	nodes   NodeLister
	kubelet *kubeletClient
	timeout time.Duration
	clock   clock.Clock
	// metrics records each request; nil records nothing.
	metrics *serverMetrics
}

// RoundResult says what one scrape round did.
type RoundResult struct {
	// Scraped and Failed count the Ready nodes that answered and those
	// that did not; Errors has why, by node.
	Scraped, Failed int
	Errors          map[string]string
}

// scrape asks every Ready node's kubelet once and returns the batches by
// node name, with what failed.
func (s *scraper) scrape(ctx context.Context) (map[string]*MetricsBatch, RoundResult) {
	nodes, err := s.nodes.List()
	result := RoundResult{Errors: map[string]string{}}
	if err != nil {
		result.Errors[""] = err.Error()
		return nil, result
	}
	var (
		mu      sync.Mutex
		batches = map[string]*MetricsBatch{}
		wg      sync.WaitGroup
		slots   = make(chan struct{}, maxConcurrentScrapes)
	)
	for _, node := range nodes {
		if !nodeReady(node) {
			continue
		}
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			batch, err := s.scrapeNode(ctx, node)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				result.Failed++
				result.Errors[node.Name] = err.Error()
				return
			}
			result.Scraped++
			batches[node.Name] = batch
		})
	}
	wg.Wait()
	return batches, result
}

// scrapeNode fetches one node's metrics within the scrape timeout.
func (s *scraper) scrapeNode(ctx context.Context, node *api.Node) (*MetricsBatch, error) {
	url, err := kubeletURL(node)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	began := s.clock.Now()
	batch, err := s.kubelet.get(ctx, url, s.clock.Now)
	if s.metrics != nil {
		s.metrics.observe(node.Name, began, s.clock.Since(began), err)
	}
	return batch, err
}

// nodeReady reports whether the node's Ready condition is True: a node
// whose kubelet stopped posting status is not asked.
func nodeReady(node *api.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == api.NodeReady {
			return c.Status == api.ConditionTrue
		}
	}
	return false
}
