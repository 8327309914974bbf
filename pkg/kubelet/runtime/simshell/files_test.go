package simshell

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"kplane/pkg/api"
)

// volumeEnv is testEnv with the volumes of a two-container tutorial pod:
// an emptyDir "shared" at /data (and again, readOnly, at /ro, and its
// subdirectory "logs" at /logs), and a ConfigMap at /etc/config. storage
// is the pod's storage; the session's layer is a fresh one unless the
// caller sets env.Layer.
func volumeEnv(storage *PodStorage) Env {
	env := testEnv()
	env.Pod.Spec.Volumes = []api.Volume{
		{Name: "shared", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}},
		{Name: "config", VolumeSource: api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: api.LocalObjectReference{Name: "settings"}}}},
	}
	env.Container.VolumeMounts = []api.VolumeMount{
		{Name: "shared", MountPath: "/data"},
		{Name: "shared", MountPath: "/ro", ReadOnly: true},
		{Name: "shared", MountPath: "/logs", SubPath: "logs"},
		{Name: "config", MountPath: "/etc/config"},
	}
	env.Cluster = &fakeCluster{configMaps: []*api.ConfigMap{{ObjectMeta: api.ObjectMeta{Name: "settings", Namespace: "default"},
		Data: map[string]string{"mode": "fast\n"}}}}
	env.Storage = storage
	return env
}

// TestWritableFiles runs each line in a fresh container with volumeEnv's
// mounts: redirections, the commands that write, and busybox's messages
// where a write is refused.
func TestWritableFiles(t *testing.T) {
	cases := []struct {
		line           string
		stdout, stderr string
		code           int
	}{
		// Redirections.
		{`echo a > /tmp/x; echo b >> /tmp/x; cat /tmp/x`, "a\nb\n", "", 0},
		{`echo a > /tmp/x; echo b > /tmp/x; cat /tmp/x`, "b\n", "", 0},
		{`cd /tmp && echo here > rel && cat /tmp/rel`, "here\n", "", 0},
		{`ls /nope 2> /tmp/err; cat /tmp/err`, "ls: /nope: No such file or directory\n", "", 0},
		{`ls /nope 2>> /tmp/err; ls /gone 2>>/tmp/err; cat /tmp/err`, "ls: /nope: No such file or directory\nls: /gone: No such file or directory\n", "", 0},
		{`echo out >/tmp/o 2>/tmp/e; cat /tmp/o; cat /tmp/e`, "out\n", "", 0},
		{`echo x > /dev/stderr`, "", "x\n", 0},
		{`echo x > /nope/f`, "", "sh: can't create /nope/f: nonexistent directory\n", 1},
		{`echo x > /tmp`, "", "sh: can't create /tmp: Is a directory\n", 1},
		{`echo x > /etc/config/new`, "", "sh: can't create /etc/config/new: Read-only file system\n", 1},
		{`echo x > /etc/config/mode`, "", "sh: can't create /etc/config/mode: Read-only file system\n", 1},
		{`echo x > /ro/f`, "", "sh: can't create /ro/f: Read-only file system\n", 1},
		{`echo x > /ro/no/f`, "", "sh: can't create /ro/no/f: nonexistent directory\n", 1},
		{`echo hi > /etc/hostname; cat /etc/hostname; hostname`, "hi\nnginx-ss-0\n", "", 0},

		// Reading what was written: cat, head, wc, grep, ls, sh FILE.
		{`echo a b > /tmp/a; echo c > /tmp/b; wc /tmp/a /tmp/b /tmp/nope`, "        1         2         4 /tmp/a\n        1         1         2 /tmp/b\n        2         3         6 total\n", "wc: /tmp/nope: No such file or directory\n", 1},
		{`echo one > /tmp/f; echo two >> /tmp/f; head -n 1 /tmp/f; wc -l /tmp/f; grep tw /tmp/f; ls /tmp`, "one\n2 /tmp/f\ntwo\nf\n", "", 0},
		{`echo 'echo from a script; exit 4' > /tmp/s.sh; sh /tmp/s.sh`, "from a script\n", "", 4},
		{`echo hello > /tmp/f; ls -l /tmp/f /tmp`, "-rw-r--r--    1 root     root             6 Nov 27 14:44 /tmp/f\n\n/tmp:\n-rw-r--r--    1 root     root             6 Nov 27 14:44 f\n", "", 0},

		// touch and mkdir.
		{`touch /tmp/t && ls /tmp && cat /tmp/t`, "t\n", "", 0},
		{`touch -c /tmp/t; ls /tmp`, "", "", 0},
		{`touch /nope/t`, "", "touch: /nope/t: No such file or directory\n", 1},
		{`touch /etc/config/t`, "", "touch: /etc/config/t: Read-only file system\n", 1},
		{`mkdir /tmp/d && touch /tmp/d/f && ls /tmp/d`, "f\n", "", 0},
		{`mkdir /tmp/a/b`, "", "mkdir: can't create directory '/tmp/a/b': No such file or directory\n", 1},
		{`mkdir -p /tmp/a/b && mkdir -p /tmp/a/b && ls /tmp/a`, "b\n", "", 0},
		{`mkdir /tmp`, "", "mkdir: can't create directory '/tmp': File exists\n", 1},
		{`mkdir /data`, "", "mkdir: can't create directory '/data': File exists\n", 1},
		{`touch /tmp/f; mkdir -p /tmp/f/g`, "", "mkdir: can't create directory '/tmp/f/g': Not a directory\n", 1},
		{`mkdir /etc/config/d`, "", "mkdir: can't create directory '/etc/config/d': Read-only file system\n", 1},
		{`mkdir -z /tmp/d`, "", "mkdir: unrecognized option: z\n", 1},

		// rm.
		{`touch /tmp/f; rm /tmp/f; ls /tmp`, "", "", 0},
		{`rm /tmp/nope`, "", "rm: can't remove '/tmp/nope': No such file or directory\n", 1},
		{`rm -f /tmp/nope`, "", "", 0},
		{`mkdir /tmp/d; rm /tmp/d`, "", "rm: '/tmp/d' is a directory\n", 1},
		{`mkdir -p /tmp/d/e; touch /tmp/d/e/f /tmp/d/g; rm -r /tmp/d; ls /tmp`, "", "", 0},
		{`cd /tmp; mkdir d; rm -rf d .`, "", "rm: can't remove '.' or '..'\n", 1},
		{`rm /etc/config/mode`, "", "rm: can't remove '/etc/config/mode': Read-only file system\n", 1},
		{`rm -rf /data`, "", "rm: can't remove '/data': Resource busy\n", 1},
		{`rm -r /etc || ls /etc`, "config\n", "rm: can't remove '/etc/config/mode': Read-only file system\nrm: can't remove '/etc/config': Resource busy\n", 0},
		{`rm`, "", "rm: missing operand\n", 1},

		// test and [.
		{`test -d /tmp && echo dir`, "dir\n", "", 0},
		{`test -d /etc/hosts || echo not-a-dir`, "not-a-dir\n", "", 0},
		{`[ -f /etc/hosts ] && [ -e /data ] && [ ! -e /nope ] && echo ok`, "ok\n", "", 0},
		{`touch /tmp/e; [ -s /tmp/e ] || echo empty; echo x > /tmp/e; [ -s /tmp/e ] && echo full`, "empty\nfull\n", "", 0},
		{`[ a = a -a 3 -gt 2 ] && [ "" ] || echo no`, "no\n", "", 0},
		{`test 1 -lt x`, "", "sh: test: invalid number 'x'\n", 2},
		{`[ -d /tmp`, "", "[: missing ]\n", 2},
	}
	for _, tc := range cases {
		t.Run(tc.line, func(t *testing.T) {
			r := script(t, volumeEnv(NewPodStorage(DefaultStorageLimit)), tc.line)
			if r.stdout != tc.stdout || r.stderr != tc.stderr || r.code != tc.code || r.err != nil {
				t.Errorf("sh -c %q:\nstdout %q\nstderr %q\ncode %d err %v\nwant stdout %q stderr %q code %d",
					tc.line, r.stdout, r.stderr, r.code, r.err, tc.stdout, tc.stderr, tc.code)
			}
		})
	}
}

// TestFilesOutliveSessions: a file written in the container's layer is
// there in the next exec session and gone in the next run of the
// container (a new layer); a file in an emptyDir outlives the run, and
// the pod's other containers see it.
func TestFilesOutliveSessions(t *testing.T) {
	storage := NewPodStorage(DefaultStorageLimit)
	first := volumeEnv(storage)
	first.Layer = storage.NewLayer()
	if r := script(t, first, `echo layer > /tmp/a; echo volume > /data/b; echo log > /logs/c; rm /etc/passwd`); r.code != 0 {
		t.Fatalf("writing: %+v", r)
	}
	if r := script(t, first, `cat /tmp/a /data/b /ro/b /data/logs/c; ls /etc`); r.stdout != "layer\nvolume\nvolume\nlog\nconfig\ngroup\nhostname\nhosts\nresolv.conf\n" {
		t.Errorf("the next session of the same run: %+v", r)
	}

	restarted := volumeEnv(storage)
	restarted.Layer = storage.NewLayer()
	first.Layer.Release()
	r := script(t, restarted, `cat /tmp/a; cat /data/b; ls /etc | grep -c passwd`)
	if r.stdout != "volume\n1\n" || r.stderr != "cat: can't open '/tmp/a': No such file or directory\n" {
		t.Errorf("after a restart the layer should be new and the emptyDir kept: %+v", r)
	}

	// A second container of the pod mounts the emptyDir elsewhere.
	sidecar := volumeEnv(storage)
	sidecar.Container = &api.Container{Name: "sidecar", Image: "busybox",
		VolumeMounts: []api.VolumeMount{{Name: "shared", MountPath: "/shared"}}}
	if r := script(t, sidecar, `cat /shared/b; echo back > /shared/from-sidecar`); r.stdout != "volume\n" {
		t.Errorf("the sidecar does not see the emptyDir's file: %+v", r)
	}
	if r := script(t, restarted, `cat /data/from-sidecar`); r.stdout != "back\n" {
		t.Errorf("the first container does not see the sidecar's file: %+v", r)
	}
}

// TestStorageQuota: a pod's writable files share one quota; past it a
// write fails with ENOSPC and writes nothing, and removing files gives
// their bytes back. A released layer's bytes go back too.
func TestStorageQuota(t *testing.T) {
	storage := NewPodStorage(3 * 1024)
	env := volumeEnv(storage)
	env.Layer = NewPodStorage(-1).NewLayer() // the image's files do not count here
	big := strings.Repeat("x", 1000)
	r := script(t, env, fmt.Sprintf(`echo %s > /data/one; echo %s > /data/two; echo %s > /data/three; echo $?; cat /data/three | wc -c`, big, big, big))
	if r.stdout != "1\n0\n" || r.stderr != "echo: write error: No space left on device\n" {
		t.Errorf("past the quota: %+v", r)
	}
	if used := storage.Used(); used > 3*1024 {
		t.Errorf("used %d bytes of a 3072-byte quota", used)
	}
	if r := script(t, env, fmt.Sprintf(`rm /data/one /data/three && echo %s > /data/three && wc -c /data/three`, big)); r.stdout != "1001 /data/three\n" || r.code != 0 {
		t.Errorf("after rm the bytes should be free again: %+v", r)
	}
	if r := script(t, env, `rm /data/two /data/three`); r.code != 0 || storage.Used() != entryCost /* /data/logs */ {
		t.Errorf("after removing everything: %+v, used %d", r, storage.Used())
	}

	layer := storage.NewLayer()
	env.Layer = layer
	script(t, env, `echo some > /tmp/f`) // the layer's image files and /tmp/f count now
	if storage.Used() <= entryCost {
		t.Fatalf("the layer's files were not charged: used %d", storage.Used())
	}
	layer.Release()
	if storage.Used() != entryCost {
		t.Errorf("a released layer still holds %d bytes", storage.Used()-entryCost)
	}
	if r := script(t, env, `echo late > /tmp/g`); r.code == 0 {
		t.Errorf("a released layer took a write: %+v", r)
	}
}

// TestConcurrentSessionsShareVolume: sessions of two containers writing
// to one emptyDir at once (run with -race) all land.
func TestConcurrentSessionsShareVolume(t *testing.T) {
	storage := NewPodStorage(DefaultStorageLimit)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := volumeEnv(storage)
			var out strings.Builder
			sh := New(context.Background(), env)
			sh.Run(context.Background(), []string{"sh", "-c", fmt.Sprintf("echo %d > /data/f%d; echo %d >> /data/all", i, i, i)}, Streams{Stdout: &out})
		}()
	}
	wg.Wait()
	r := script(t, volumeEnv(storage), `ls /data | wc -l; wc -l /data/all`)
	if r.stdout != "10\n8 /data/all\n" {
		t.Errorf("stdout %q, want 8 files, logs and all, and 8 lines", r.stdout)
	}
}

// TestDownwardAPIVolume: a downwardAPI volume shows the pod's fields and
// is read-only.
func TestDownwardAPIVolume(t *testing.T) {
	env := testEnv()
	env.Pod.Labels = map[string]string{"app": "web"}
	env.Pod.Spec.Volumes = []api.Volume{{Name: "podinfo", VolumeSource: api.VolumeSource{DownwardAPI: &api.DownwardAPIVolumeSource{
		Items: []api.DownwardAPIVolumeFile{{Path: "labels", FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.labels"}}}}}}}
	env.Container.VolumeMounts = []api.VolumeMount{{Name: "podinfo", MountPath: "/etc/podinfo"}}
	env.Cluster = &fakeCluster{}
	r := script(t, env, `cat /etc/podinfo/labels; echo; echo x > /etc/podinfo/labels`)
	if r.stdout != "app=\"web\"\n" || r.stderr != "sh: can't create /etc/podinfo/labels: Read-only file system\n" {
		t.Errorf("%+v", r)
	}
}
