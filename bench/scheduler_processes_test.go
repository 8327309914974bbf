package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"kplane/pkg/client"
	"kplane/test/framework"
)

// W7 with every component a process of its own, as a cluster runs them:
// the apiserver (with its embedded etcd) and the controller-manager start
// from bin/, 1 000 nodes and 5 000 pending pods are created through the
// API, and only then does bin/scheduler start. The clock runs from the
// scheduler's exec — its start-up and informer lists included, as in
// BenchmarkW7SchedulerPodsPerSecond — until a watch has seen every pod
// bound. Beside the in-process W7 it adds what a real deployment pays: the
// scheduler's and the apiserver's work on separate processes (no shared
// heap or garbage collector), and the bindings over a real loopback TLS
// connection between them. W7's target compares it with W3's separate-
// process create rate of the same run (BenchmarkW3CreateConfigMapsSeparateProcess).
//
//	go test -run '^$' -bench W7SchedulerSeparateProcesses -benchtime 1x -count 5 ./bench/
func BenchmarkW7SchedulerSeparateProcesses(b *testing.B) {
	const nodes, pods, writers = 1000, 5000, 16
	bin := framework.BuildBinaries(b)
	for _, name := range []string{"apiserver", "scheduler", "controller-manager"} {
		if !framework.HasBinary(bin, name) {
			b.Fatalf("bin/%s was not built", name)
		}
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := b.TempDir()
		pids := map[string]int{"bench": os.Getpid()}
		pids["apiserver"] = startProcess(b, bin, "apiserver", "--data-dir", dir, "--secure-port", "0")
		kubeconfig := filepath.Join(dir, "kubeconfig")
		c := waitForAPIServer(b, kubeconfig)
		// The controller-manager runs as in a cluster (its controllers have
		// nothing to do with ownerless pods, but it watches them all, as it
		// would), with the admin's credentials like the benchmark.
		pids["controller-manager"] = startProcess(b, bin, "controller-manager", "--kubeconfig", kubeconfig, "--bind-address", "127.0.0.1:0")
		ctx := context.Background()
		createAll(b, writers, nodes, func(n int) error {
			_, err := c.Nodes().Create(ctx, benchNode(n), client.CreateOptions{})
			return err
		})
		createAll(b, writers, pods, func(n int) error {
			_, err := c.Pods("default").Create(ctx, benchPod(fmt.Sprintf("pod-%05d", n)), client.CreateOptions{})
			return err
		})
		list, err := c.Pods("default").List(ctx, client.ListOptions{Limit: 1})
		if err != nil {
			b.Fatal(err)
		}
		watchCtx, stopWatch := context.WithCancel(ctx)
		allBound := make(chan error, 1)
		go func() { allBound <- waitAllBound(watchCtx, c, pods, list.ResourceVersion) }()

		before := sampleLoad(c, pids)
		b.StartTimer()
		start := time.Now()
		pids["scheduler"] = startProcess(b, bin, "scheduler", "--kubeconfig", kubeconfig)
		select {
		case err := <-allBound:
			if err != nil {
				b.Fatal(err)
			}
		case <-time.After(5 * time.Minute):
			b.Fatal("not all pods were bound within 5 minutes")
		}
		elapsed := time.Since(start)
		b.StopTimer()
		stopWatch()
		// Where the time went: each process's CPU and the requests the
		// apiserver served (the bindings, and the scheduler's Events).
		logLoad(b, before, sampleLoad(c, pids), elapsed)
		b.ReportMetric(float64(pods)/elapsed.Seconds(), "pods/s")
		b.ReportMetric(elapsed.Seconds(), "s-to-bind-all")
	}
}

// startProcess starts bin/name with args, returns its PID, and kills it,
// by that PID, when the benchmark ends; its output is logged if the
// benchmark failed.
func startProcess(b *testing.B, bin, name string, args ...string) int {
	b.Helper()
	cmd := exec.Command(filepath.Join(bin, name), args...)
	out := &framework.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	framework.StartProcess(b, name, cmd, func() {
		if b.Failed() {
			b.Logf("%s output:\n%s", name, out)
		}
	})
	return cmd.Process.Pid
}

// waitForAPIServer waits for the apiserver to write its admin kubeconfig
// (it does once it serves) and answer a request, and returns an admin
// client.
func waitForAPIServer(b *testing.B, kubeconfig string) *client.Client {
	b.Helper()
	framework.Eventually(b, time.Minute, func() (bool, string) {
		_, err := os.Stat(kubeconfig)
		return err == nil, fmt.Sprintf("no %s yet: %v", kubeconfig, err)
	})
	c := benchClient(b, kubeconfig)
	framework.Eventually(b, time.Minute, func() (bool, string) {
		_, err := c.Namespaces().Get(context.Background(), "default", client.GetOptions{})
		return err == nil, fmt.Sprintf("namespace default: %v", err)
	})
	return c
}
