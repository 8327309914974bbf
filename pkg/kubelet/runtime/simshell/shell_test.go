package simshell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"kplane/pkg/api"
)

func ioNopCloser(s string) io.ReadCloser { return io.NopCloser(strings.NewReader(s)) }

func TestScripts(t *testing.T) {
	cases := []struct {
		line           string
		stdout, stderr string
		code           int
	}{
		{`echo hello   world`, "hello world\n", "", 0},
		{`echo 'single $HOME' "double $HOME" \$HOME`, "single $HOME double /root $HOME\n", "", 0},
		{`echo "${GREETING}!" $UNSET.`, "hello world! .\n", "", 0},
		{`echo -n a; echo b`, "ab\n", "", 0},
		{`echo "I am $(hostname)" $(cat /etc/hostname | wc -l)`, "I am nginx-ss-0 1\n", "", 0},
		{`false; echo $?`, "1\n", "", 0},
		{`true && echo yes || echo no`, "yes\n", "", 0},
		{`false && echo yes || echo no`, "no\n", "", 0},
		{`false || false && echo never`, "", "", 1},
		{`exit 3; echo unreachable`, "", "", 3},
		{`exit 300`, "", "", 44},
		{`echo a # a comment`, "a\n", "", 0},
		{"echo one\necho two", "one\ntwo\n", "", 0},
		{`hostname`, "nginx-ss-0\n", "", 0},
		{`hostname -f`, "nginx-ss-0.nginx-ss.default.svc.cluster.local\n", "", 0},
		{`hostname -i`, "10.244.1.5\n", "", 0},
		{`whoami; id`, "root\nuid=0(root) gid=0(root) groups=0(root)\n", "", 0},
		{`pwd; cd /etc; pwd; cd; pwd`, "/\n/etc\n/root\n", "", 0},
		{`cd /nowhere`, "", "sh: cd: can't cd to /nowhere: No such file or directory\n", 2},
		{`date`, "Fri Nov 27 14:44:03 UTC 2026\n", "", 0},
		{`date +%F`, "2026-11-27\n", "", 0},
		{`printenv GREETING`, "hello world\n", "", 0},
		{`printenv NOPE`, "", "", 1},
		{`env | grep GREETING`, "GREETING=hello world\n", "", 0},
		{`cat /etc/hostname`, "nginx-ss-0\n", "", 0},
		{`cat /etc/resolv.conf`, "search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n", "", 0},
		{`cd /etc && cat hostname`, "nginx-ss-0\n", "", 0},
		{`cat /etc/hosts | grep nginx`, "10.244.1.5\tnginx-ss-0.nginx-ss.default.svc.cluster.local\tnginx-ss-0\n", "", 0},
		{`cat /etc/hosts | head -n 2`, "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n", "", 0},
		{`cat /etc/hosts | grep -c ip6`, "5\n", "", 0},
		{`cat /etc/hosts | wc -l`, "8\n", "", 0},
		{`grep -q nothing /etc/hosts`, "", "", 1},
		{`cat /etc/shadow`, "", "cat: can't open '/etc/shadow': No such file or directory\n", 1},
		{`cat /etc/shadow 2>/dev/null; echo $?`, "1\n", "", 0},
		{`cat /etc/shadow 2>&1`, "cat: can't open '/etc/shadow': No such file or directory\n", "", 1},
		{`echo hi > /tmp/x && cat /tmp/x`, "hi\n", "", 0},
		{`ls /etc`, "group\nhostname\nhosts\npasswd\nresolv.conf\n", "", 0},
		{`ls /`, "bin\ndev\netc\nhome\nlib\nproc\nroot\nsbin\nsys\ntmp\nusr\nvar\n", "", 0},
		{`ls /nope`, "", "ls: /nope: No such file or directory\n", 1},
		{`ps`, "PID   USER     TIME  COMMAND\n    1 root      0:00 nginx: master process nginx -g daemon off;\n    7 root      0:00 sh\n    9 root      0:00 ps\n", "", 0},
		{`/bin/echo via path`, "via path\n", "", 0},
		{`echo 'unterminated`, "", "sh: syntax error: unterminated quoted string\n", 2},
		{`echo a &&`, "", "sh: syntax error: unexpected end of file\n", 2},
		{`echo $((1+1))`, "", "sh: syntax error: arithmetic expansion $((…)) is not supported by kplane's simulated shell\n", 2},
		{`echo '$((1+1))'`, "$((1+1))\n", "", 0},
		{`sleep 0 && echo slept`, "slept\n", "", 0},
	}
	for _, tc := range cases {
		t.Run(tc.line, func(t *testing.T) {
			r := script(t, testEnv(), tc.line)
			if r.stdout != tc.stdout || r.stderr != tc.stderr || r.code != tc.code || r.err != nil {
				t.Errorf("sh -c %q:\nstdout %q\nstderr %q\ncode %d err %v\nwant stdout %q stderr %q code %d",
					tc.line, r.stdout, r.stderr, r.code, r.err, tc.stdout, tc.stderr, tc.code)
			}
		})
	}
}

func TestUnknownCommandSaysWhatTheShellIsOnce(t *testing.T) {
	r := script(t, testEnv(), "top; vi x; echo $?")
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) != 3 || lines[0] != "sh: top: not found" || lines[2] != "sh: vi: not found" {
		t.Fatalf("stderr = %q", r.stderr)
	}
	if !strings.Contains(lines[1], "kplane's simulated runtime") || !strings.Contains(lines[1], "nslookup") || !strings.Contains(lines[1], "docs/kubelet.md") {
		t.Errorf("the note does not say what the shell is and knows: %q", lines[1])
	}
	if r.stdout != "127\n" || r.code != 0 {
		t.Errorf("stdout %q code %d, want 127 from $? and 0", r.stdout, r.code)
	}
}

func TestBareCommands(t *testing.T) {
	if r := run(t, testEnv(), "", "hostname"); r.stdout != "nginx-ss-0\n" || r.code != 0 || r.err != nil {
		t.Errorf("hostname: %+v", r)
	}
	if r := run(t, testEnv(), "", "cat", "/etc/hostname"); r.stdout != "nginx-ss-0\n" || r.code != 0 {
		t.Errorf("cat /etc/hostname: %+v", r)
	}
	r := run(t, testEnv(), "", "top", "-b")
	var notFound *NotFoundError
	if r.code != 127 || !errors.As(r.err, &notFound) || notFound.Command != "top" {
		t.Fatalf("top: code %d err %v, want 127 and a NotFoundError", r.code, r.err)
	}
	if !strings.Contains(r.err.Error(), "executable file not found in $PATH") {
		t.Errorf("error %q does not read like a missing executable", r.err)
	}
	if r := run(t, testEnv(), "", "/bin/sh", "-c", "exit 5"); r.code != 5 {
		t.Errorf("sh -c 'exit 5' = %d", r.code)
	}
	if r := run(t, testEnv(), "", "bash", "script.sh"); r.code != 2 || r.stderr != "sh: can't open 'script.sh': No such file or directory\n" {
		t.Errorf("bash script.sh: %+v", r)
	}
}

func TestInteractiveWithoutTTY(t *testing.T) {
	r := run(t, testEnv(), "hostname\necho $?\nfalse\n", "sh")
	if r.stdout != "nginx-ss-0\n0\n" || r.code != 1 {
		t.Errorf("stdout %q code %d, want the two lines and the last status 1 at EOF", r.stdout, r.code)
	}
	r = run(t, testEnv(), "exit 4\nhostname\n", "/bin/sh")
	if r.stdout != "" || r.code != 4 {
		t.Errorf("exit 4: stdout %q code %d", r.stdout, r.code)
	}
}

func TestInteractiveTTYPromptsEchoesAndEdits(t *testing.T) {
	env := testEnv()
	env.Container.Image = "busybox:1.36"
	var out strings.Builder
	sh := New(t.Context(), env)
	// "hostnamX", backspace, "e", Enter; "cd /etc", Enter; Ctrl-D.
	code, err := sh.Run(t.Context(), []string{"sh"}, Streams{Stdin: strings.NewReader("hostnamX\x7fe\rcd /etc\r\x04"), Stdout: &out, TTY: true})
	if err != nil || code != 0 {
		t.Fatalf("code %d err %v", code, err)
	}
	want := "/ # hostnamX\b \be\r\nnginx-ss-0\r\n/ # cd /etc\r\n/etc # exit\r\n"
	if out.String() != want {
		t.Errorf("terminal shows %q\nwant %q", out.String(), want)
	}

	out.Reset()
	env.Container.Image = "nginx"
	sh = New(t.Context(), env)
	sh.Run(t.Context(), []string{"sh"}, Streams{Stdin: strings.NewReader("exit 2\r"), Stdout: &out, TTY: true})
	if out.String() != "# exit 2\r\n" {
		t.Errorf("nginx's dash prompt: %q", out.String())
	}
}

func TestVolumeFiles(t *testing.T) {
	env := testEnv()
	env.Pod.Spec.Volumes = []api.Volume{{Name: "config", VolumeSource: api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: api.LocalObjectReference{Name: "web-config"}}}},
		{Name: "cache", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}}}
	env.Container.VolumeMounts = []api.VolumeMount{{Name: "config", MountPath: "/etc/web"}, {Name: "cache", MountPath: "/cache"}}
	env.Cluster = &fakeCluster{configMaps: []*api.ConfigMap{{ObjectMeta: api.ObjectMeta{Name: "web-config", Namespace: "default"},
		Data: map[string]string{"mode": "fast\n", "port": "8080"}}}}
	r := script(t, env, "ls /etc/web; cat /etc/web/mode; ls /cache; ls / | grep cache")
	if r.stdout != "mode\nport\nfast\ncache\n" || r.code != 0 {
		t.Errorf("stdout %q stderr %q code %d", r.stdout, r.stderr, r.code)
	}

	// Selected items land at their paths; an item naming a key the
	// ConfigMap lacks fails the whole volume, as upstream's kubelet refuses
	// to set it up: nothing is mounted.
	config := env.Pod.Spec.Volumes[0].ConfigMap
	config.Items = []api.KeyToPath{{Key: "port", Path: "listen/port"}}
	if r := script(t, env, "cat /etc/web/listen/port"); r.stdout != "8080" || r.code != 0 {
		t.Errorf("selected item: stdout %q stderr %q code %d", r.stdout, r.stderr, r.code)
	}
	config.Items = append(config.Items, api.KeyToPath{Key: "missing", Path: "missing"})
	if r := script(t, env, "cat /etc/web/listen/port"); r.code == 0 {
		t.Errorf("a volume naming a missing key was set up: %q", r.stdout)
	}
}

// tokenCluster is a fakeCluster whose view also issues pod tokens, as the
// kubelet's token manager does.
type tokenCluster struct{ fakeCluster }

func (tokenCluster) PodToken(_ context.Context, pod *api.Pod, audience string, expirationSeconds int64) (string, error) {
	return fmt.Sprintf("jwt-of-%s/%s-%d", pod.Namespace, pod.Name, expirationSeconds), nil
}

// TestServiceAccountTokenFiles: the kube-api-access volume shows its
// token, CA and namespace where in-cluster clients look for them.
func TestServiceAccountTokenFiles(t *testing.T) {
	env := testEnv()
	expiration := int64(3607)
	env.Pod.Spec.Volumes = []api.Volume{{Name: "kube-api-access-x7k2p", VolumeSource: api.VolumeSource{Projected: &api.ProjectedVolumeSource{
		Sources: []api.VolumeProjection{
			{ServiceAccountToken: &api.ServiceAccountTokenProjection{ExpirationSeconds: &expiration, Path: "token"}},
			{ConfigMap: &api.ConfigMapProjection{LocalObjectReference: api.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []api.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &api.DownwardAPIProjection{Items: []api.DownwardAPIVolumeFile{{Path: "namespace",
				FieldRef: &api.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		}}}}}
	env.Container.VolumeMounts = []api.VolumeMount{{Name: "kube-api-access-x7k2p", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}}
	env.Cluster = &tokenCluster{fakeCluster{configMaps: []*api.ConfigMap{{ObjectMeta: api.ObjectMeta{Name: "kube-root-ca.crt", Namespace: "default"},
		Data: map[string]string{"ca.crt": "CA PEM\n"}}}}}
	r := script(t, env, "cd /var/run/secrets/kubernetes.io/serviceaccount; ls; cat token; echo; cat namespace; echo; cat ca.crt")
	want := "ca.crt\nnamespace\ntoken\njwt-of-default/nginx-ss-0-3607\ndefault\nCA PEM\n"
	if r.stdout != want || r.code != 0 {
		t.Errorf("stdout %q stderr %q code %d, want %q", r.stdout, r.stderr, r.code, want)
	}

	// Without a token issuer (a cluster view that cannot) the token is absent.
	env.Cluster = &fakeCluster{configMaps: []*api.ConfigMap{{ObjectMeta: api.ObjectMeta{Name: "kube-root-ca.crt", Namespace: "default"},
		Data: map[string]string{"ca.crt": "CA PEM\n"}}}}
	if r := script(t, env, "cat /var/run/secrets/kubernetes.io/serviceaccount/token"); r.code == 0 {
		t.Errorf("token without an issuer: %q", r.stdout)
	}
}
