package controllermanager

import (
	"slices"
	"strings"
	"testing"
)

// knownForTest is a fixed registry, so these tests do not change as
// controllers are added to the real one.
var knownForTest = []Descriptor{
	{Name: "deployment"},
	{Name: "replicaset"},
	{Name: "serviceaccount"},
	{Name: "tokencleaner", DisabledByDefault: true},
}

func names(ds []Descriptor) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Name)
	}
	return out
}

func TestEnabledControllers(t *testing.T) {
	tests := []struct {
		selection []string
		want      []string
	}{
		{[]string{"*"}, []string{"deployment", "replicaset", "serviceaccount"}},
		{[]string{"*", "-replicaset"}, []string{"deployment", "serviceaccount"}},
		{[]string{"-replicaset", "*"}, []string{"deployment", "serviceaccount"}},
		{[]string{"serviceaccount"}, []string{"serviceaccount"}},
		{[]string{"serviceaccount", "deployment"}, []string{"deployment", "serviceaccount"}},
		// Disabled by default: "*" leaves it off, naming it turns it on.
		{[]string{"*", "tokencleaner"}, []string{"deployment", "replicaset", "serviceaccount", "tokencleaner"}},
		{[]string{"tokencleaner"}, []string{"tokencleaner"}},
		// The first entry naming a controller decides, as upstream.
		{[]string{"replicaset", "-replicaset"}, []string{"replicaset"}},
		{[]string{"-replicaset", "replicaset", "*"}, []string{"deployment", "serviceaccount"}},
		// Only disabling, no "*": nothing is on.
		{[]string{"-replicaset"}, nil},
		{nil, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.selection, ","), func(t *testing.T) {
			if err := checkSelection(tt.selection, knownForTest); err != nil {
				t.Fatalf("checkSelection: %v", err)
			}
			if got := names(enabledControllers(tt.selection, knownForTest)); !slices.Equal(got, tt.want) {
				t.Fatalf("enabled = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCheckSelectionRejectsUnknownNames(t *testing.T) {
	tests := []struct {
		selection []string
		wantInErr string // "" means valid
	}{
		{[]string{"*", "-deployment", "tokencleaner"}, ""},
		{[]string{"deploymnt"}, `"deploymnt"`},
		{[]string{"*", "-statefulset"}, `"-statefulset"`},
		{[]string{"**"}, `"**"`},
		{[]string{""}, `""`},
		{[]string{"-"}, `"-"`},
		{[]string{"--deployment"}, `"--deployment"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.selection, ","), func(t *testing.T) {
			err := checkSelection(tt.selection, knownForTest)
			switch {
			case tt.wantInErr == "" && err != nil:
				t.Fatalf("checkSelection = %v, want nil", err)
			case tt.wantInErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantInErr)):
				t.Fatalf("checkSelection = %v, want an error naming %s", err, tt.wantInErr)
			}
		})
	}
}

// The real registry: "*" runs the serviceaccount controller, and every
// registered controller has a worker flag and a positive default.
func TestRegistry(t *testing.T) {
	if got := names(enabledControllers([]string{"*"}, Controllers())); !slices.Contains(got, "serviceaccount") {
		t.Fatalf("'*' enables %v, want serviceaccount among them", got)
	}
	if got := names(enabledControllers([]string{"*", "-serviceaccount"}, Controllers())); slices.Contains(got, "serviceaccount") {
		t.Fatalf("'*,-serviceaccount' enables %v", got)
	}
	seen := map[string]bool{}
	for _, d := range Controllers() {
		if seen[d.Name] || seen[d.SyncsFlag] {
			t.Errorf("duplicate controller name or flag: %s / %s", d.Name, d.SyncsFlag)
		}
		seen[d.Name], seen[d.SyncsFlag] = true, true
		if d.New == nil || d.DefaultWorkers < 1 || !strings.HasPrefix(d.SyncsFlag, "concurrent-") || !strings.HasSuffix(d.SyncsFlag, "-syncs") {
			t.Errorf("descriptor %+v: want a constructor, a --concurrent-…-syncs flag and at least one worker", d)
		}
	}
}

// Upstream's cloud controllers are accepted by the kube controller-manager
// (they run in the cloud-controller-manager), and only by it.
func TestCloudControllersAreNotUnknown(t *testing.T) {
	o := DefaultOptions()
	o.Kubeconfig = "k"
	o.Controllers = []string{"*", "-route", "service", "cloud-node-lifecycle"}
	if err := o.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if got := cloudControllersNamed(o.Controllers); !slices.Equal(got, []string{"-route", "service", "cloud-node-lifecycle"}) {
		t.Fatalf("cloudControllersNamed = %v", got)
	}
	o.Registry = knownForTest // another manager's registry: its own names only
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), `"service"`) {
		t.Fatalf("Validate with another registry: err = %v, want service unknown", err)
	}
}
