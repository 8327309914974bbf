package controllerutil

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"kplane/pkg/informer/workqueue"
)

// The controllers' metrics, registered with prometheus' default registry so
// that the controller-manager's /metrics serves them. They are labelled by
// the workqueue's name, which is the controller's name.
var (
	syncTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kplane_controller_syncs_total",
		Help: "Syncs run by each controller, by result (success, error).",
	}, []string{"controller", "result"})
	syncDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "kplane_controller_sync_duration_seconds",
		Help:    "How long one sync of one key took, per controller.",
		Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
	}, []string{"controller"})
)

func init() {
	prometheus.MustRegister(syncTotal, syncDuration, queueDepth)
}

// queueDepth reports kplane_workqueue_depth for every queue RunWorkers is
// draining, read at scrape time.
var queueDepth = &depthCollector{
	desc: prometheus.NewDesc("kplane_workqueue_depth", "Keys waiting in each controller's workqueue.", []string{"name"}, nil),
}

type depthCollector struct {
	desc   *prometheus.Desc
	queues sync.Map // *workqueue.Queue[string] → struct{}
}

func (d *depthCollector) Describe(ch chan<- *prometheus.Desc) { ch <- d.desc }

func (d *depthCollector) Collect(ch chan<- prometheus.Metric) {
	d.queues.Range(func(k, _ any) bool {
		q := k.(*workqueue.Queue[string])
		ch <- prometheus.MustNewConstMetric(d.desc, prometheus.GaugeValue, float64(q.Len()), q.Name())
		return true
	})
}

// observeSync records one sync's result and duration.
func observeSync(controller string, start time.Time, err error) {
	result := "success"
	if err != nil {
		result = "error"
	}
	syncTotal.WithLabelValues(controller, result).Inc()
	syncDuration.WithLabelValues(controller).Observe(time.Since(start).Seconds())
}
