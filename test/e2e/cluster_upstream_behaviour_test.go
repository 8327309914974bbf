package e2e

import (
	"encoding/base64"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kplane/test/framework"
)

// TestBehavesLikeARealCluster compares, with the real kubectl on a `ctl up`
// cluster, what a user sees with what a real 1.32 cluster prints: the
// ServiceAccount token volume of a bare pod, the kube-root-ca.crt
// ConfigMap in every namespace, the apiserver's identity Lease, every
// validation error of an invalid Deployment at once, kubectl auth whoami,
// and a certificate user that `ctl user add` made.
func TestBehavesLikeARealCluster(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 1)

	t.Run("a bare pod runs as default with the kube-api-access volume", func(t *testing.T) {
		c.MustKubectl(t, "run", "web", "--image=nginx")
		yaml := c.MustKubectl(t, "get", "pod", "web", "-o", "yaml")
		volume := regexp.MustCompile(`kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}`).FindString(yaml)
		if volume == "" {
			t.Fatalf("no kube-api-access-xxxxx volume in:\n%s", yaml)
		}
		// As a real 1.32 cluster prints them (kubectl sorts the keys).
		for _, want := range []string{
			"  serviceAccount: default\n  serviceAccountName: default\n",
			"    volumeMounts:\n" +
				"    - mountPath: /var/run/secrets/kubernetes.io/serviceaccount\n" +
				"      name: " + volume + "\n" +
				"      readOnly: true\n",
			"  volumes:\n" +
				"  - name: " + volume + "\n" +
				"    projected:\n" +
				"      defaultMode: 420\n" +
				"      sources:\n" +
				"      - serviceAccountToken:\n" +
				"          expirationSeconds: 3607\n" +
				"          path: token\n" +
				"      - configMap:\n" +
				"          items:\n" +
				"          - key: ca.crt\n" +
				"            path: ca.crt\n" +
				"          name: kube-root-ca.crt\n" +
				"      - downwardAPI:\n" +
				"          items:\n" +
				"          - fieldRef:\n" +
				"              apiVersion: v1\n" +
				"              fieldPath: metadata.namespace\n" +
				"            path: namespace\n",
		} {
			if !strings.Contains(yaml, want) {
				t.Errorf("kubectl get pod -o yaml lacks\n%s\nin:\n%s", want, yaml)
			}
		}
	})

	t.Run("a pod naming a missing ServiceAccount is refused", func(t *testing.T) {
		r := c.Kubectl(t, "", "run", "lost", "--image=nginx", `--overrides={"spec":{"serviceAccountName":"builder"}}`)
		want := `Error from server (Forbidden): pods "lost" is forbidden: error looking up service account default/builder: serviceaccount "builder" not found`
		if r.Err == nil || strings.TrimSpace(r.Stderr) != want {
			t.Errorf("kubectl run with a missing account: err %v, stderr:\n%s\nwant:\n%s", r.Err, r.Stderr, want)
		}
	})

	t.Run("every namespace has kube-root-ca.crt with the cluster CA", func(t *testing.T) {
		caData := c.MustKubectl(t, "config", "view", "--raw", "--minify", "-o", "jsonpath={.clusters[0].cluster.certificate-authority-data}")
		ca, err := base64.StdEncoding.DecodeString(strings.TrimSpace(caData))
		if err != nil || !strings.Contains(string(ca), "BEGIN CERTIFICATE") {
			t.Fatalf("the kubeconfig's CA: %v %q", err, caData)
		}
		c.MustKubectl(t, "create", "namespace", "team-a")
		namespaces := strings.Fields(c.MustKubectl(t, "get", "namespaces", "-o", "jsonpath={.items[*].metadata.name}"))
		if len(namespaces) < 5 {
			t.Fatalf("namespaces = %v", namespaces)
		}
		for _, ns := range namespaces {
			waitKubectl(t, c, 30*time.Second, func(out string) bool { return out == string(ca) },
				"-n", ns, "get", "configmap", "kube-root-ca.crt", "-o", `jsonpath={.data.ca\.crt}`)
		}
	})

	t.Run("kube-system lists the apiserver identity lease", func(t *testing.T) {
		out := c.MustKubectl(t, "-n", "kube-system", "get", "lease")
		line := regexp.MustCompile(`(?m)^(apiserver-[a-z2-7]{26})\s+(\S+)\s+\S+$`)
		m := line.FindStringSubmatch(out)
		if m == nil || !strings.HasPrefix(m[2], m[1]+"_") {
			t.Fatalf("kubectl -n kube-system get lease shows no apiserver-<id> lease held by <id>_<uuid>:\n%s", out)
		}
		labels := c.MustKubectl(t, "-n", "kube-system", "get", "lease", m[1], "-o", "jsonpath={.metadata.labels.apiserver\\.kubernetes\\.io/identity}")
		if labels != "kube-apiserver" {
			t.Errorf("identity label = %q, want kube-apiserver", labels)
		}
	})

	t.Run("an invalid Deployment reports every error", func(t *testing.T) {
		manifest := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: bad
spec:
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx
`
		r := c.Kubectl(t, manifest, "create", "-f", "-")
		want := "The Deployment \"bad\" is invalid: \n" +
			"* spec.selector: Required value\n" +
			"* spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}: `selector` does not match template `labels`\n"
		if r.Err == nil || r.Stderr != want {
			t.Errorf("kubectl create of an invalid Deployment: err %v, stderr:\n%q\nwant:\n%q", r.Err, r.Stderr, want)
		}
	})

	t.Run("kubectl auth whoami names the kubeconfig's user", func(t *testing.T) {
		want := "ATTRIBUTE   VALUE\nUsername    kubernetes-admin\nGroups      [system:masters system:authenticated]\n"
		if r := c.Kubectl(t, "", "auth", "whoami"); r.Err != nil || r.Stdout != want {
			t.Errorf("kubectl auth whoami: err %v, stdout:\n%s\nstderr:\n%s\nwant:\n%s", r.Err, r.Stdout, r.Stderr, want)
		}
	})

	t.Run("ctl user add makes a certificate user of the running cluster", func(t *testing.T) {
		code, out := runCtl(t, framework.BuildBinaries(t), "user", "add", "alice", "--group", "dev", "--data-dir", c.Dir)
		kubeconfig := filepath.Join(c.Dir, "users", "alice.kubeconfig")
		if code != 0 || !strings.Contains(out, "Kubeconfig written to "+kubeconfig) {
			t.Fatalf("ctl user add alice: exit %d\n%s", code, out)
		}
		want := "ATTRIBUTE   VALUE\nUsername    alice\nGroups      [dev system:authenticated]\n"
		r := framework.KubectlWith(t, kubeconfig, c.Home, "", "auth", "whoami")
		if r.Err != nil || r.Stdout != want {
			t.Errorf("kubectl auth whoami as alice: err %v, stdout:\n%s\nstderr:\n%s\nwant:\n%s", r.Err, r.Stdout, r.Stderr, want)
		}
	})
}
