package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kplane/test/framework"
)

// TestRestartKeepsEverything: restarting the apiserver on the same data
// dir loses nothing, and resourceVersions keep increasing.
func TestRestartKeepsEverything(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := framework.StartAPIServerIn(t, dir)
	var lastRV int64
	for _, name := range []string{"r1", "r2", "r3"} {
		obj := decodeMap(t, mustOK(t, a.Do(t, "POST", "/api/v1/namespaces/default/configmaps",
			[]byte(`{"metadata":{"name":"`+name+`"},"data":{"k":"`+name+`"}}`)), 201))
		lastRV, _ = strconv.ParseInt(path(obj, "metadata", "resourceVersion").(string), 10, 64)
	}
	mustOK(t, a.Do(t, "DELETE", "/api/v1/namespaces/default/configmaps/r2", nil), 200)
	a.Stop()

	b := framework.StartAPIServerIn(t, dir)
	list := decodeMap(t, mustOK(t, b.Do(t, "GET", "/api/v1/namespaces/default/configmaps", nil), 200))
	var names []string
	for _, item := range list["items"].([]any) {
		names = append(names, path(item, "metadata", "name").(string)+"="+path(item, "data", "k").(string))
	}
	if strings.Join(names, ",") != "r1=r1,r3=r3" {
		t.Errorf("after restart configmaps = %v, want r1 and r3", names)
	}
	obj := decodeMap(t, mustOK(t, b.Do(t, "POST", "/api/v1/namespaces/default/configmaps", []byte(`{"metadata":{"name":"r4"}}`)), 201))
	rv, _ := strconv.ParseInt(path(obj, "metadata", "resourceVersion").(string), 10, 64)
	if rv <= lastRV {
		t.Errorf("resourceVersion after restart %d is not above %d", rv, lastRV)
	}
	// The kubernetes service and system namespaces are still there, once.
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		mustOK(t, b.Do(t, "GET", "/api/v1/namespaces/"+ns, nil), 200)
	}
}

// TestAPIServerBinary checks the command-line contract: bin/apiserver
// --data-dir DIR --secure-port 0 writes DIR/kubeconfig once ready, kubectl
// works with it, and a restart on the same dir (new port) rewrites it.
func TestAPIServerBinary(t *testing.T) {
	t.Parallel()
	kubectl := framework.RequireKubectl(t)
	root := framework.RepoRoot(t)
	bin := filepath.Join(t.TempDir(), "apiserver")
	build := exec.Command("go", "build", "-o", bin, "./cmd/apiserver")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build apiserver: %v\n%s", err, out)
	}
	dir := t.TempDir()
	home := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")

	run := func() *exec.Cmd {
		os.Remove(kubeconfig)
		cmd := exec.Command(bin, "--data-dir", dir, "--secure-port", "0")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		framework.Eventually(t, 30*time.Second, func() (bool, string) {
			_, err := os.Stat(kubeconfig)
			return err == nil, "no kubeconfig yet"
		})
		return cmd
	}
	kc := func(stdin string, args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kubeconfig}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+home)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %v: %v\n%s", args, err, out)
		}
		return string(out)
	}

	first := run()
	kc("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: survivor\ndata:\n  a: b\n", "apply", "-f", "-")
	if err := first.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := first.Wait(); err != nil {
		t.Errorf("apiserver exit after SIGTERM: %v", err)
	}
	run()
	if out := kc("", "get", "configmap", "survivor", "-o", "jsonpath={.data.a}"); out != "b" {
		t.Errorf("configmap after restart: %q", out)
	}
	if out := kc("", "get", "ns"); !strings.Contains(out, "kube-node-lease") {
		t.Errorf("get ns: %s", out)
	}
}
