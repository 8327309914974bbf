package bench

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/pprof"
	"sync"
	"time"

	"kplane/pkg/store"
)

// w3DriverEnv names the environment variable that turns this test binary
// into W3's client driver: TestMain sees it, runs runW3DriverFromEnv with
// the JSON w3DriverConfig it holds and exits, so the driver is a process of
// its own that shares nothing with the apiserver or the benchmark.
const w3DriverEnv = "KPLANE_W3_DRIVER"

// What one driver run measures.
const (
	w3PhaseRawPuts = "raw-puts" // etcd puts straight to the embedded etcd
	w3PhaseCreates = "creates"  // creates through the apiserver
)

// w3DriverConfig is what the benchmark hands the driver process.
type w3DriverConfig struct {
	Phase string
	// Server, Token and CAPEM reach the apiserver as its admin kubeconfig does.
	Server, Token string
	CAPEM         []byte
	// EtcdURL is the apiserver's embedded etcd, for the raw puts.
	EtcdURL string
	// Kind is "configmaps" or "pods"; Prefix starts every object's name.
	Kind, Prefix string
	// Clients each get their own connection; Total is split among them.
	Clients, Total int
	// HTTP1 makes the clients speak HTTP/1.1 instead of HTTP/2.
	HTTP1 bool
	// CPUProfile, when set, is where the driver writes a CPU profile of
	// its creates.
	CPUProfile string
}

// w3DriverResult is what the driver prints as one JSON line on stdout.
type w3DriverResult struct {
	CreatesPerSecond  float64 `json:",omitempty"`
	EtcdPutsPerSecond float64 `json:",omitempty"`
}

// runW3DriverFromEnv runs the driver if w3DriverEnv is set and returns
// the process's exit code, or ok=false when this is not a driver process.
func runW3DriverFromEnv() (code int, ok bool) {
	encoded := os.Getenv(w3DriverEnv)
	if encoded == "" {
		return 0, false
	}
	var config w3DriverConfig
	if err := json.Unmarshal([]byte(encoded), &config); err != nil {
		fmt.Fprintf(os.Stderr, "W3 driver: %s: %v\n", w3DriverEnv, err)
		return 2, true
	}
	result, err := measureW3Phase(config)
	if err != nil {
		fmt.Fprintf(os.Stderr, "W3 driver: %v\n", err)
		return 1, true
	}
	if err := json.NewEncoder(os.Stdout).Encode(result); err != nil {
		fmt.Fprintf(os.Stderr, "W3 driver: %v\n", err)
		return 1, true
	}
	return 0, true
}

// measureW3Phase measures one phase of the driver.
func measureW3Phase(config w3DriverConfig) (w3DriverResult, error) {
	path, body := "/api/v1/namespaces/default/configmaps", configMapBody
	if config.Kind == "pods" {
		path, body = "/api/v1/namespaces/default/pods", podBody
	}
	switch config.Phase {
	case w3PhaseRawPuts:
		// The same value size as the in-process W3 (benchmarkCreates).
		rate, err := store.MeasureRawPuts(context.Background(), []string{config.EtcdURL}, config.Clients, config.Total,
			len(body("sample-00000"))+200)
		return w3DriverResult{EtcdPutsPerSecond: rate}, err
	case w3PhaseCreates:
		rate, err := createFromDriver(config, path, body)
		return w3DriverResult{CreatesPerSecond: rate}, err
	}
	return w3DriverResult{}, fmt.Errorf("unknown phase %q", config.Phase)
}

// createFromDriver creates config.Total objects with config.Clients
// clients, each with a transport (so a TCP+TLS connection) of its own, and
// returns objects per second. The connections are made before the clock
// starts, as the in-process W3 makes them.
func createFromDriver(config w3DriverConfig, path string, body func(string) []byte) (float64, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(config.CAPEM) {
		return 0, errors.New("no CA certificate in the config")
	}
	conns := make([]*http.Client, config.Clients)
	for i := range conns {
		transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: !config.HTTP1,
			MaxIdleConnsPerHost: 4}
		if config.HTTP1 {
			// A non-nil empty map turns HTTP/2 off (net/http's documented switch).
			transport.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
		}
		conns[i] = &http.Client{Transport: transport}
		if _, err := driverDo(conns[i], config, "GET", "/version", nil); err != nil {
			return 0, fmt.Errorf("connect client %d: %w", i, err)
		}
	}
	if config.CPUProfile != "" {
		f, err := os.Create(config.CPUProfile)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return 0, err
		}
		defer pprof.StopCPUProfile()
	}
	var wg sync.WaitGroup
	var failOnce sync.Once
	var failure error
	start := time.Now()
	for i, c := range conns {
		wg.Go(func() {
			for n := i; n < config.Total; n += config.Clients {
				name := fmt.Sprintf("%s-%d", config.Prefix, n)
				if code, err := driverDo(c, config, "POST", path, body(name)); err != nil || code != http.StatusCreated {
					failOnce.Do(func() { failure = fmt.Errorf("create %s: status %d: %v", name, code, err) })
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if failure != nil {
		return 0, failure
	}
	return float64(config.Total) / elapsed.Seconds(), nil
}

// driverDo sends one request as the admin and reads the whole answer, as a
// client decoding it would have to.
func driverDo(c *http.Client, config w3DriverConfig, method, path string, body []byte) (int, error) {
	req, err := http.NewRequest(method, config.Server+path, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+config.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode >= 300 {
		err = fmt.Errorf("%s", bytes.TrimSpace(out))
	}
	return resp.StatusCode, err
}
