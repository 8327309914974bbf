package kubelet

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
)

func TestIPAM(t *testing.T) {
	a, err := newIPAM(netip.MustParsePrefix("10.244.1.0/29")) // usable: .2 … .6
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, uid := range []string{"a", "b", "c", "d", "e"} {
		ip, err := a.Allocate(uid)
		if err != nil {
			t.Fatalf("allocate %s: %v", uid, err)
		}
		got = append(got, ip.String())
	}
	if strings.Join(got, " ") != "10.244.1.2 10.244.1.3 10.244.1.4 10.244.1.5 10.244.1.6" {
		t.Errorf("allocated %v", got)
	}
	if again, _ := a.Allocate("c"); again.String() != "10.244.1.4" {
		t.Errorf("a second Allocate for the same pod gave %s", again)
	}
	if _, err := a.Allocate("f"); !errors.Is(err, errRangeFull) {
		t.Errorf("allocating from a full range: %v", err)
	}
	a.Release("b")
	if ip, _ := a.Allocate("f"); ip.String() != "10.244.1.3" {
		t.Errorf("after releasing .3, got %s", ip)
	}
	a.Release("a")
	a.Release("d")
	// Round robin: the search resumes after the last address handed out
	// (.3), so .5 (released later) is taken before .2.
	if ip, _ := a.Allocate("g"); ip.String() != "10.244.1.5" {
		t.Errorf("round robin gave %s, want 10.244.1.5", ip)
	}
	if !a.Reserve("h", netip.MustParseAddr("10.244.1.2")) || a.Reserve("i", netip.MustParseAddr("10.244.1.2")) {
		t.Errorf("Reserve did not record an owner, or let two pods share an address")
	}
	if a.Reserve("j", netip.MustParseAddr("10.0.0.9")) {
		t.Errorf("Reserve accepted an address outside the range")
	}
}

func TestPodCIDRBlocks(t *testing.T) {
	base := netip.MustParsePrefix("10.244.1.0/24")
	if got := nthBlock(base, 2).String(); got != "10.244.3.0/24" {
		t.Errorf("nthBlock(2) = %s", got)
	}
	if got := nthBlock(netip.MustParsePrefix("10.244.255.0/24"), 1).String(); got != "10.245.0.0/24" {
		t.Errorf("nthBlock across an octet = %s", got)
	}
	a, b := fallbackPodCIDR("node1"), fallbackPodCIDR("node1")
	if a != b || a.Bits() != 24 || !netip.MustParsePrefix("10.64.0.0/10").Contains(a.Addr()) {
		t.Errorf("fallbackPodCIDR(node1) = %s, %s", a, b)
	}
}

func TestCrashBackOff(t *testing.T) {
	b := newCrashBackOff(10*time.Second, 5*time.Minute)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	exit := t0
	var delays []time.Duration
	for range 8 {
		_, delay, waiting := b.waitUntil("app", exit, exit)
		if waiting {
			delays = append(delays, delay)
		} else {
			delays = append(delays, 0)
		}
		restart := exit.Add(delay)
		b.restarted("app", exit, restart)
		exit = restart.Add(time.Second) // crashes a second after each restart
	}
	want := []time.Duration{0, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second,
		160 * time.Second, 300 * time.Second, 300 * time.Second}
	for i := range want {
		if delays[i] != want[i] {
			t.Fatalf("delays = %v, want %v", delays, want)
		}
	}
	// Eleven minutes of running since the last restart: back to no delay.
	last := exit.Add(-time.Second)
	if _, _, waiting := b.waitUntil("app", last.Add(11*time.Minute), last.Add(11*time.Minute)); waiting {
		t.Errorf("a container that ran 11 minutes is still backed off")
	}
}

func TestParseTaintsAndLabels(t *testing.T) {
	taints, err := ParseTaints("node-role.kubernetes.io/control-plane:NoSchedule, dedicated=gpu:NoExecute")
	if err != nil || len(taints) != 2 || taints[1].Key != "dedicated" || taints[1].Value != "gpu" || taints[1].Effect != api.TaintEffectNoExecute {
		t.Errorf("ParseTaints = %+v, %v", taints, err)
	}
	for _, bad := range []string{"key=value", "key:Sometimes", ":NoSchedule"} {
		if _, err := ParseTaints(bad); err == nil {
			t.Errorf("ParseTaints(%q) accepted", bad)
		}
	}
	labels, err := ParseLabels("node-role.kubernetes.io/worker=,zone=a")
	if err != nil || len(labels) != 2 || labels["zone"] != "a" || labels["node-role.kubernetes.io/worker"] != "" {
		t.Errorf("ParseLabels = %v, %v", labels, err)
	}
	if _, err := ParseLabels("novalue"); err == nil {
		t.Errorf("ParseLabels accepted a label without =")
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(*Options)
		wantErr string
	}{
		{"valid", func(o *Options) {}, ""},
		{"no node name", func(o *Options) { o.NodeName = "" }, "--node-name is required"},
		{"both name and count", func(o *Options) { o.NodeCount = 3 }, "mutually exclusive"},
		{"bad cidr", func(o *Options) { o.PodCIDR = "10.0.0.0/31" }, "--pod-cidr"},
		{"bad runtime", func(o *Options) { o.Runtime = "docker" }, "--runtime"},
		{"bad cpu", func(o *Options) { o.CPU = "lots" }, "--cpu"},
		{"no limits", func(o *Options) { o.KubeAPIQPS, o.EventRecordQPS = 0, 0 }, ""},
		{"negative event qps", func(o *Options) { o.EventRecordQPS = -1 }, "--event-qps"},
		{"negative api burst", func(o *Options) { o.KubeAPIBurst = -1 }, "--kube-api-burst"},
		{"real informer FIFO", func(o *Options) { o.InformerFIFO = "real" }, ""},
		{"unknown informer FIFO", func(o *Options) { o.InformerFIFO = "lifo" }, `--informer-fifo: unknown informer FIFO "lifo": must be one of delta, real`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions()
			o.Kubeconfig, o.NodeName = "kubeconfig", "node1"
			tt.mutate(&o)
			err := o.Validate()
			if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Validate() = %v, want %q", err, tt.wantErr)
			}
		})
	}
	o := DefaultOptions()
	o.NodeCount, o.NodeNamePrefix = 3, "hollow-"
	if got := strings.Join(o.nodeNames(), ","); got != "hollow-1,hollow-2,hollow-3" {
		t.Errorf("nodeNames = %s", got)
	}
}

func TestReadManifest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "web.yaml")
	manifest := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: kube-system\nspec:\n  containers:\n  - name: web\n    image: nginx\n"
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	seen := time.Date(2030, 1, 2, 3, 4, 5, 6, time.UTC)
	pod, err := readManifest(path, "node1", seen)
	if err != nil {
		t.Fatal(err)
	}
	if got := pod.Annotations[AnnotationConfigSeen]; got != "2030-01-02T03:04:05.000000006Z" {
		t.Errorf("%s = %q, want the time the manifest was read", AnnotationConfigSeen, got)
	}
	if pod.Name != "web-node1" || pod.Namespace != "kube-system" || pod.Spec.NodeName != "node1" || len(pod.UID) != 32 ||
		pod.Annotations[AnnotationConfigHash] != pod.UID || !isStaticPod(pod) {
		t.Errorf("static pod = %+v", pod.ObjectMeta)
	}
	if pod.Spec.RestartPolicy != api.RestartPolicyAlways || pod.Spec.Containers[0].ImagePullPolicy != api.PullAlways {
		t.Errorf("defaults were not applied: %+v", pod.Spec)
	}
	if tol := pod.Spec.Tolerations; len(tol) != 1 || tol[0].Operator != api.TolerationOpExists || tol[0].Effect != api.TaintEffectNoExecute {
		t.Errorf("tolerations = %+v", tol)
	}
	// The UID depends on the content, node and file, not on when the file
	// was read.
	again, _ := readManifest(path, "node1", seen.Add(time.Hour))
	other, _ := readManifest(path, "node2", seen)
	if again.UID != pod.UID || other.UID == pod.UID {
		t.Errorf("UIDs: same file %s/%s, other node %s", pod.UID, again.UID, other.UID)
	}

	for name, content := range map[string]string{
		"notapod.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n",
		"noname.json":  `{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"a","image":"b"}]}}`,
		"garbage.yaml": "{{{",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readManifest(p, "node1", seen); err == nil {
			t.Errorf("readManifest(%s) accepted it", name)
		}
	}
}

func TestEventQPS(t *testing.T) {
	tests := []struct {
		flag  float32
		nodes int
		want  float32
	}{
		{50, 1, 50},     // one node: the flag as is
		{50, 100, 50},   // 100 hollow nodes: still the flag
		{50, 1000, 200}, // 1 000 nodes: one event per node every 5 s
		{0, 1000, 0},    // no limit stays no limit
	}
	for _, tt := range tests {
		if got := eventQPS(tt.flag, tt.nodes); got != tt.want {
			t.Errorf("eventQPS(%v, %d) = %v, want %v", tt.flag, tt.nodes, got, tt.want)
		}
	}
}

// With --cloud-provider=external the node registers with the cloud's
// uninitialized taint, after the taints it was asked for; without, it has
// only those.
func TestNewNodeCarriesTheCloudTaintWithAnExternalCloudProvider(t *testing.T) {
	for _, provider := range []string{"", CloudProviderExternal} {
		opts := DefaultOptions()
		opts.CloudProvider = provider
		opts.RegisterWithTaints = []api.Taint{{Key: "node-role.kubernetes.io/control-plane", Effect: api.TaintEffectNoSchedule}}
		k := &Kubelet{nodeName: "node1", opts: &opts}
		taints := k.newNode(time.Now()).Spec.Taints
		var got []string
		for _, taint := range taints {
			got = append(got, taint.Key+"="+taint.Value+":"+string(taint.Effect))
		}
		want := "node-role.kubernetes.io/control-plane=:NoSchedule"
		if provider == CloudProviderExternal {
			want += " node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule"
		}
		if strings.Join(got, " ") != want {
			t.Errorf("--cloud-provider %q: taints %v, want %s", provider, got, want)
		}
	}
	opts := DefaultOptions()
	opts.Kubeconfig, opts.NodeName, opts.CloudProvider = "k", "n", "aws"
	if err := opts.Validate(); err == nil || !strings.Contains(err.Error(), `--cloud-provider "aws"`) {
		t.Errorf("Validate with --cloud-provider aws: %v", err)
	}
}
