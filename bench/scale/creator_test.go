//go:build scale

package scale

import (
	"context"
	"fmt"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// createdPod is one create of the creator: when the request was sent
// (the start of the pod's startup latency) and how long the apiserver took
// to answer it.
type createdPod struct {
	name    string
	sentAt  time.Time
	latency time.Duration
}

// createPods creates the pods podFor(from) … podFor(to-1) from workers
// goroutines sharing one client (several HTTP/2 streams), paced at qps
// pods per second on a fixed schedule (pod i is due at start + i/qps, so a
// slow answer is caught up rather than lowering the rate), or as fast as
// the workers go when qps is 0. It returns every create, in no order, or
// the first error.
func createPods(ctx context.Context, c *client.Client, namespace string, from, to, workers int, qps float64, podFor func(i int) *api.Pod) ([]createdPod, error) {
	due := make(chan int, workers)
	go func() {
		defer close(due)
		start := time.Now()
		for i := from; i < to; i++ {
			if qps > 0 {
				if wait := time.Until(start.Add(time.Duration(float64(i-from) / qps * float64(time.Second)))); wait > 0 {
					time.Sleep(wait)
				}
			}
			select {
			case due <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var (
		mu       sync.Mutex
		created  = make([]createdPod, 0, to-from)
		firstErr error
		wg       sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for i := range due {
				pod := podFor(i)
				sent := time.Now()
				_, err := c.Pods(namespace).Create(ctx, pod, client.CreateOptions{})
				latency := time.Since(sent)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("create pod %s: %w", pod.Name, err)
				}
				if err == nil {
					created = append(created, createdPod{name: pod.Name, sentAt: sent, latency: latency})
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return created, firstErr
}

// scalePod is the run's pod: one container of the pause image with small
// requests (10m CPU, 16 MiB, so the scheduler's least-allocated score
// spreads pods over the nodes and 100 of them fit a default node's 4 CPUs
// and 8 GiB), bound to nodeName when it is not empty and placed by
// schedulerName when that is not empty.
func scalePod(name, nodeName, schedulerName string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"app": "scale"}},
		Spec: api.PodSpec{NodeName: nodeName, SchedulerName: schedulerName,
			Containers: []api.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10", Resources: api.ResourceRequirements{
				Requests: api.ResourceList{api.ResourceCPU: api.MustParseQuantity("10m"), api.ResourceMemory: api.MustParseQuantity("16Mi")},
			}}}},
	}
}
