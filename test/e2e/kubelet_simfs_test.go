package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kplane/test/framework"
)

// simShellFiles drives the simulated runtime's writable files with the
// real kubectl, as a student's first tutorials do: `kubectl cp` a local
// file into a container (kubectl runs `test -d` and then tar in it),
// `kubectl exec -- cat` it, `kubectl cp` it back out byte for byte, and
// two containers of a pod share a file through an emptyDir. A volume from
// the API stays read-only.
func simShellFiles(t *testing.T, c *framework.LocalCluster) {
	applyYAML(t, c, `apiVersion: v1
kind: Pod
metadata:
  name: files
spec:
  volumes:
  - name: shared
    emptyDir: {}
  containers:
  - name: writer
    image: busybox
    command: ["sleep", "infinity"]
    volumeMounts:
    - {name: shared, mountPath: /shared}
  - name: reader
    image: nginx:1.27
    volumeMounts:
    - {name: shared, mountPath: /usr/share/nginx/html}
`)
	waitKubectl(t, c, 60*time.Second, func(out string) bool { return out == "Running true true" },
		"get", "pod", "files", "-o", "jsonpath={.status.phase} {.status.containerStatuses[0].ready} {.status.containerStatuses[1].ready}")

	mustKubectl := func(stdin string, args ...string) framework.KubectlResult {
		t.Helper()
		r := c.Kubectl(t, stdin, args...)
		if r.Err != nil {
			t.Fatalf("kubectl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
		}
		return r
	}

	// A file with every byte value, bigger than one stream frame.
	content := make([]byte, 200<<10)
	for i := range content {
		content[i] = byte(i*31 + i/256)
	}
	dir := t.TempDir()
	local := filepath.Join(dir, "blob.bin")
	if err := os.WriteFile(local, content, 0o644); err != nil {
		t.Fatal(err)
	}

	mustKubectl("", "cp", local, "files:/tmp/copied.bin", "-c", "writer")
	if r := mustKubectl("", "exec", "files", "-c", "writer", "--", "cat", "/tmp/copied.bin"); !bytes.Equal([]byte(r.Stdout), content) {
		t.Errorf("kubectl exec -- cat /tmp/copied.bin printed %d bytes, not the %d copied in", len(r.Stdout), len(content))
	}
	if r := mustKubectl("", "exec", "files", "-c", "writer", "--", "ls", "-l", "/tmp"); !strings.Contains(r.Stdout, " 204800 ") || !strings.HasSuffix(r.Stdout, " copied.bin\n") {
		t.Errorf("ls -l /tmp: %q", r.Stdout)
	}

	back := filepath.Join(dir, "back.bin")
	mustKubectl("", "cp", "files:/tmp/copied.bin", back, "-c", "writer")
	if got, err := os.ReadFile(back); err != nil || !bytes.Equal(got, content) {
		t.Errorf("kubectl cp out: %d bytes (err %v), want the %d copied in, identical", len(got), err, len(content))
	}

	// Into a directory (kubectl asks `test -d` first), here the emptyDir,
	// which the other container mounts elsewhere.
	mustKubectl("", "cp", local, "files:/shared", "-c", "writer")
	if r := mustKubectl("", "exec", "files", "-c", "reader", "--", "wc", "-c", "/usr/share/nginx/html/blob.bin"); r.Stdout != "204800 /usr/share/nginx/html/blob.bin\n" {
		t.Errorf("the reader sees the copied file as %q, want its 204800 bytes", r.Stdout)
	}
	mustKubectl("", "exec", "files", "-c", "writer", "--", "sh", "-c", "echo hello from the writer > /shared/note")
	if r := mustKubectl("", "exec", "files", "-c", "reader", "--", "cat", "/usr/share/nginx/html/note"); r.Stdout != "hello from the writer\n" {
		t.Errorf("the reader read %q from the emptyDir", r.Stdout)
	}

	// The ServiceAccount volume is read-only, in ash's words.
	r := c.Kubectl(t, "", "exec", "files", "-c", "writer", "--", "sh", "-c", "echo x > /var/run/secrets/kubernetes.io/serviceaccount/token")
	if r.Err == nil || r.Stderr == "" || !strings.HasPrefix(r.Stderr, "sh: can't create /var/run/secrets/kubernetes.io/serviceaccount/token: Read-only file system\n") {
		t.Errorf("writing the token: err %v stderr %q, want ash's Read-only file system", r.Err, r.Stderr)
	}
}
