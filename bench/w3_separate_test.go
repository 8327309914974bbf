package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// W3 as upstream was measured: the apiserver is the real bin/apiserver
// process on a fresh data dir with its embedded etcd, as a user runs it,
// and the 16 clients live in a process of their own (this test binary
// started again as the driver, w3_separate_driver_test.go), each on its
// own TCP+TLS connection speaking HTTP/2, as client-go does with one
// connection per client. Raw etcd is measured by the same driver process
// in the same run: 16 clients, each on its own gRPC connection, putting
// 2 000 values of the same size into the apiserver's embedded etcd. So
// both sides of the ratio cross a process boundary over loopback, which
// the in-process W3 (BenchmarkW3CreateConfigMaps16Clients) does not: there
// the clients share the apiserver's and etcd's process, scheduler and
// garbage collector.
//
//	go test -run '^$' -bench 'W3Create.*SeparateProcess' -benchtime 1x -count 5 ./bench/
//
// Reports creates/s, etcd-puts/s and their ratio (the target is ≥ 0.6).
// Environment knobs for explaining the figure (docs/performance.md,
// "Issue 18: writes"), none of them used by `make bench`:
//
//	KPLANE_W3_PROFILE_DIR=dir  CPU profiles of the apiserver (over its
//	                           /debug/pprof/profile) and of the driver
//	                           during the creates, into dir
//	KPLANE_W3_TOTAL=n          objects to create (default 2 000; raise it
//	                           so a profile has enough samples)
//	KPLANE_W3_HTTP1=1          the clients speak HTTP/1.1 instead of HTTP/2
func BenchmarkW3CreateConfigMapsSeparateProcess(b *testing.B) {
	benchmarkSeparateCreates(b, "configmaps")
}

// BenchmarkW3CreatePodsSeparateProcess is W3's Pod variant in the same
// shape: 2 000 small Pods created by 16 clients in a process of their own.
func BenchmarkW3CreatePodsSeparateProcess(b *testing.B) { benchmarkSeparateCreates(b, "pods") }

func benchmarkSeparateCreates(b *testing.B, kind string) {
	const clients = 16
	total := framework.EnvCount(b, "KPLANE_W3_TOTAL", 2000)
	profileDir := os.Getenv("KPLANE_W3_PROFILE_DIR")
	bin := framework.BuildBinaries(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		api := startAPIServerProcess(b, bin)
		config := w3DriverConfig{
			Server: api.config.Host, Token: api.config.Token, CAPEM: api.config.CAData,
			EtcdURL: api.etcdURL, Kind: kind, Prefix: fmt.Sprintf("%s%d", kind, i),
			Clients: clients, Total: total, HTTP1: os.Getenv("KPLANE_W3_HTTP1") == "1",
		}
		config.Phase = w3PhaseRawPuts
		raw := runW3Driver(b, config)

		if kind == "pods" {
			createDefaultServiceAccount(b, api.config)
		}
		config.Phase = w3PhaseCreates
		var profiled sync.WaitGroup
		if profileDir != "" {
			config.CPUProfile = filepath.Join(profileDir, fmt.Sprintf("w3-%s-driver-%d.pprof", kind, i))
			// The apiserver's profile covers the driver's start-up too (a
			// few hundred ms); long runs (KPLANE_W3_TOTAL) make that small.
			seconds := max(2, total/3000)
			profiled.Go(func() {
				api.cpuProfile(b, seconds, filepath.Join(profileDir, fmt.Sprintf("w3-%s-apiserver-%d.pprof", kind, i)))
			})
		}
		b.StartTimer()
		created := runW3Driver(b, config)
		b.StopTimer()
		profiled.Wait()
		api.stop(b)
		b.ReportMetric(created.CreatesPerSecond, "creates/s")
		b.ReportMetric(raw.EtcdPutsPerSecond, "etcd-puts/s")
		b.ReportMetric(created.CreatesPerSecond/raw.EtcdPutsPerSecond, "ratio")
	}
}

// apiserverProcess is a bin/apiserver process started for one benchmark run.
type apiserverProcess struct {
	cmd     *exec.Cmd
	exited  chan struct{} // closed once cmd.Wait returned
	config  *client.Config
	etcdURL string // the embedded etcd's client URL, from the apiserver's log
}

// etcdReadyLine and apiserverReadyLine are the apiserver's log lines that
// carry its embedded etcd's URL and say that it serves.
var (
	etcdReadyLine      = regexp.MustCompile(`msg="embedded etcd ready".* url=(\S+)`)
	apiserverReadyLine = regexp.MustCompile(`msg="apiserver ready"`)
)

// startAPIServerProcess starts bin/apiserver on a fresh data dir with its
// embedded etcd and a free port, and returns once it is ready.
func startAPIServerProcess(b *testing.B, bin string) *apiserverProcess {
	b.Helper()
	dataDir := b.TempDir()
	cmd := exec.Command(filepath.Join(bin, "apiserver"), "--data-dir", dataDir, "--secure-port", "0",
		"--etcd-compaction-interval", "0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatalf("start apiserver: %v", err)
	}
	p := &apiserverProcess{cmd: cmd, exited: make(chan struct{})}
	b.Cleanup(func() { p.stop(b) })

	ready := make(chan string, 1) // the etcd URL, once the apiserver is ready
	var logTail bytes.Buffer
	var logMu sync.Mutex
	go func() {
		sc := bufio.NewScanner(stderr)
		etcdURL := ""
		for sc.Scan() {
			line := sc.Text()
			logMu.Lock()
			logTail.WriteString(line + "\n")
			logMu.Unlock()
			if m := etcdReadyLine.FindStringSubmatch(line); m != nil {
				etcdURL = m[1]
			}
			if apiserverReadyLine.MatchString(line) {
				ready <- etcdURL
			}
		}
		_ = cmd.Wait()
		close(p.exited)
	}()
	select {
	case p.etcdURL = <-ready:
	case <-p.exited:
		logMu.Lock()
		defer logMu.Unlock()
		b.Fatalf("apiserver exited before it was ready:\n%s", logTail.String())
	case <-time.After(60 * time.Second):
		logMu.Lock()
		defer logMu.Unlock()
		b.Fatalf("apiserver not ready within 60 s:\n%s", logTail.String())
	}
	if p.etcdURL == "" {
		b.Fatal("the apiserver's log named no embedded etcd URL")
	}
	p.config, err = client.ConfigFromKubeconfig(filepath.Join(dataDir, "kubeconfig"), "")
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// cpuProfile fetches a CPU profile of seconds from the apiserver's
// /debug/pprof/profile into path.
func (p *apiserverProcess) cpuProfile(b *testing.B, seconds int, path string) {
	c, err := client.New(p.config)
	if err != nil {
		b.Error(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(seconds+30)*time.Second)
	defer cancel()
	status, body, err := c.Do(ctx, "GET", "/debug/pprof/profile?seconds="+strconv.Itoa(seconds), nil, nil)
	if err != nil || status != 200 {
		b.Errorf("apiserver CPU profile: %v %d", err, status)
		return
	}
	if err := os.WriteFile(path, body, 0o644); err != nil {
		b.Error(err)
	}
}

// stop ends the apiserver by its PID: SIGTERM, then SIGKILL if it has not
// exited within 20 s.
func (p *apiserverProcess) stop(b *testing.B) {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
		b.Log("apiserver did not stop within 20 s of SIGTERM; killed")
	}
}

// runW3Driver runs this test binary again as the W3 driver with config and
// returns what it measured.
func runW3Driver(b *testing.B, config w3DriverConfig) w3DriverResult {
	b.Helper()
	encoded, err := json.Marshal(config)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), w3DriverEnv+"="+string(encoded))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("W3 driver (%s): %v\n%s", config.Phase, err, stderr.String())
	}
	var result w3DriverResult
	if err := json.NewDecoder(io.LimitReader(&stdout, 1<<20)).Decode(&result); err != nil {
		b.Fatalf("W3 driver (%s) printed no result: %v\nstdout: %s\nstderr: %s", config.Phase, err,
			strings.TrimSpace(stdout.String()), stderr.String())
	}
	return result
}

// createDefaultServiceAccount creates the default namespace's `default`
// ServiceAccount, which the controller-manager creates in every namespace
// of a real cluster. Without it the apiserver, run alone here, admits
// each pod with no account after a quorum read of etcd that finds none.
func createDefaultServiceAccount(b *testing.B, config *client.Config) {
	b.Helper()
	c, err := client.New(config)
	if err != nil {
		b.Fatal(err)
	}
	account := &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "default"}}
	if _, err := c.ServiceAccounts("default").Create(context.Background(), account, client.CreateOptions{}); err != nil {
		b.Fatalf("create the default ServiceAccount: %v", err)
	}
}
