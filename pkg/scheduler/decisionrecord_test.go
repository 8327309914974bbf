package scheduler

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/debug"
	"kplane/pkg/scheduler/framework"
)

// tainted returns a node with a NoSchedule taint no test pod tolerates.
func tainted(name string) *api.Node {
	n := cacheNode(name)
	n.Spec.Taints = []api.Taint{{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoSchedule}}
	return n
}

// onlyDecision returns the one decision record in j.
func onlyDecision(t *testing.T, j *debug.Journal) debug.Record {
	t.Helper()
	records, _ := j.After(0)
	if len(records) != 1 || records[0].Type != debug.TypeDecision {
		t.Fatalf("journal holds %+v, want one decision", records)
	}
	return records[0]
}

// scoreTerm is one "Plugin score×weight" of a per-node line.
var scoreTerm = regexp.MustCompile(`(\w+) (\d+)×(\d+)`)

func TestDecisionRecordTableNamesFilterAndAddsUpScores(t *testing.T) {
	j := debug.NewJournal("scheduler", 100, nil)
	s := bareScheduler(Options{Journal: j}) // verbosity 0: the journal alone asks for the record
	s.cache.AddNode(cacheNode("n1"))
	s.cache.AddNode(cacheNode("n2"))
	s.cache.AddNode(tainted("n3"))
	s.cache.AddPod(cachePod("hog", "n1", "2"))
	pod := cachePod("web", "", "1")
	pod.ResourceVersion = "42"

	result, err := s.schedulePod(framework.NewPodInfo(pod))
	if err != nil || result.node != "n2" {
		t.Fatalf("result %+v, err %v; want n2", result, err)
	}
	r := onlyDecision(t, j)
	// n2 (as the -v=4 log test works out): NodeResourcesFit cpu
	// (4000−1000)/4000 = 75, memory 97 → 86; balanced allocation 87;
	// TaintToleration 100 (no PreferNoSchedule taint to count), NodeAffinity
	// 0 (no preference).
	want := "n2: TaintToleration 100×3, NodeAffinity 0×2, NodeResourcesFit 86×1, NodeResourcesBalancedAllocation 87×1 = 473, chosen of 2 feasible"
	if r.Message != want {
		t.Errorf("message %q\nwant    %q", r.Message, want)
	}
	if r.Actor != "scheduler" || r.Resource != "pods" || r.Key != "default/web" || r.UID != "web-uid" || r.ResourceVersion != "42" ||
		r.Source != "pkg/scheduler/schedule_one.go" {
		t.Errorf("record %+v does not name the pod and schedule_one.go", r)
	}
	if r.Values["node"] != "n2" || r.Values["total"] != "473" || r.Values["feasible"] != "2" || r.Values["nodes"] != "3" || r.Values["result"] != "scheduled" {
		t.Errorf("values %v", r.Values)
	}

	if len(r.Lines) < 3 {
		t.Fatalf("lines %q, want one per node", r.Lines)
	}
	if want := "n3: filtered out by TaintToleration: node(s) had untolerated taint {dedicated: db}"; r.Lines[2] != want {
		t.Errorf("n3's line %q\nwant        %q", r.Lines[2], want)
	}
	// Each feasible node's line adds up: Σ score × weight = its total, and
	// the chosen node's total is the highest.
	best := int64(-1)
	for _, line := range r.Lines[:2] {
		node, rest, _ := strings.Cut(line, ": feasible: ")
		terms, totalText, ok := strings.Cut(rest, " = ")
		if !ok {
			t.Fatalf("line %q has no total", line)
		}
		total, _ := strconv.ParseInt(strings.TrimSuffix(totalText, ", chosen"), 10, 64)
		var sum int64
		matches := scoreTerm.FindAllStringSubmatch(terms, -1)
		if len(matches) != 4 {
			t.Errorf("line %q: %d score terms, want the 4 score plugins", line, len(matches))
		}
		for _, m := range matches {
			score, _ := strconv.ParseInt(m[2], 10, 64)
			weight, _ := strconv.ParseInt(m[3], 10, 64)
			sum += score * weight
		}
		if sum != total || r.Values["total/"+node] != strconv.FormatInt(total, 10) {
			t.Errorf("line %q: the terms add up to %d, the line says %d, values say %s", line, sum, total, r.Values["total/"+node])
		}
		if strings.HasSuffix(line, ", chosen") != (node == "n2") {
			t.Errorf("line %q: only n2 is chosen", line)
		}
		best = max(best, total)
	}
	if strconv.FormatInt(best, 10) != r.Values["total"] {
		t.Errorf("chosen total %s is not the best, %d", r.Values["total"], best)
	}
	want = strings.Join([]string{
		"plugin NodeAffinity mirrors upstream pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go",
		"plugin NodeResourcesBalancedAllocation mirrors upstream pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go",
		"plugin NodeResourcesFit mirrors upstream pkg/scheduler/framework/plugins/noderesources/fit.go",
		"plugin TaintToleration mirrors upstream pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go",
	}, "\n")
	if got := strings.Join(r.Lines[3:], "\n"); got != want {
		t.Errorf("after the table:\n%s\nwant the plugins' upstream files:\n%s", got, want)
	}
}

func TestDecisionRecordUnschedulableSaysWhatTheEventSays(t *testing.T) {
	j := debug.NewJournal("scheduler", 100, nil)
	s := bareScheduler(Options{Journal: j})
	for _, n := range []string{"n1", "n2"} {
		s.cache.AddNode(tainted(n))
	}
	s.cache.AddNode(cacheNode("n3"))
	s.cache.AddPod(cachePod("hog", "n3", "4"))

	_, err := s.schedulePod(framework.NewPodInfo(cachePod("web", "", "1")))
	if err == nil {
		t.Fatal("the pod was scheduled; want no node to fit")
	}
	r := onlyDecision(t, j)
	if r.Message != err.Error() || !strings.HasPrefix(r.Message, "0/3 nodes are available: ") {
		t.Errorf("message %q, want the FitError %q", r.Message, err)
	}
	want := []string{
		"n1: filtered out by TaintToleration: node(s) had untolerated taint {dedicated: db}",
		"n2: filtered out by TaintToleration: node(s) had untolerated taint {dedicated: db}",
		"n3: filtered out by NodeResourcesFit: Insufficient cpu",
	}
	if got := strings.Join(r.Lines[:3], "\n"); got != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if r.Values["result"] != "unschedulable" || r.Values["feasible"] != "0" {
		t.Errorf("values %v", r.Values)
	}
}

func TestDecisionRecordOneFeasibleNodeIsNotScored(t *testing.T) {
	j := debug.NewJournal("scheduler", 100, nil)
	s := bareScheduler(Options{Journal: j})
	s.cache.AddNode(cacheNode("n1"))
	s.cache.AddNode(tainted("n2"))
	if _, err := s.schedulePod(framework.NewPodInfo(cachePod("web", "", ""))); err != nil {
		t.Fatal(err)
	}
	r := onlyDecision(t, j)
	if want := "n1: the only feasible node of 2, scoring skipped"; r.Message != want {
		t.Errorf("message %q, want %q", r.Message, want)
	}
	if r.Lines[0] != "n1: feasible, chosen (the only feasible node: not scored)" {
		t.Errorf("line %q", r.Lines[0])
	}
}

func TestDecisionRecordSaysWhenTiedNodesWereAPickAtRandom(t *testing.T) {
	j := debug.NewJournal("scheduler", 100, nil)
	s := bareScheduler(Options{Journal: j})
	s.cache.AddNode(cacheNode("n1"))
	s.cache.AddNode(cacheNode("n2"))
	result, err := s.schedulePod(framework.NewPodInfo(cachePod("web", "", "1")))
	if err != nil {
		t.Fatal(err)
	}
	r := onlyDecision(t, j)
	if r.Values["total/n1"] != r.Values["total/n2"] || !strings.HasPrefix(r.Message, result.node+": ") ||
		!strings.HasSuffix(r.Message, ", chosen of 2 feasible (2 tied at "+r.Values["total"]+": picked at random)") {
		t.Errorf("two equal nodes: message %q, values %v", r.Message, r.Values)
	}
}

func TestDecisionRecordPreFilterRejectionLooksAtNoNode(t *testing.T) {
	j := debug.NewJournal("scheduler", 100, nil)
	s := bareScheduler(Options{Journal: j})
	s.cache.AddNode(cacheNode("n1"))
	s.cache.AddNode(cacheNode("n2"))
	withMissingClaim := cachePod("p", "", "")
	withMissingClaim.Spec.Volumes = []api.Volume{{Name: "data", VolumeSource: api.VolumeSource{
		PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: "data"},
	}}}
	if _, err := s.schedulePod(framework.NewPodInfo(withMissingClaim)); err == nil {
		t.Fatal("the pod was scheduled without its claim")
	}
	r := onlyDecision(t, j)
	want := []string{
		`PreFilter VolumeBinding: persistentvolumeclaim "data" not found (UnschedulableAndUnresolvable): no node was looked at`,
		"plugin VolumeBinding mirrors upstream pkg/scheduler/framework/plugins/volumebinding/volume_binding.go",
	}
	if r.Message != `0/2 nodes are available: persistentvolumeclaim "data" not found.` || strings.Join(r.Lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("record %q\n%s\nwant the PreFilter line and VolumeBinding's source:\n%s", r.Message, strings.Join(r.Lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestDecisionRecordTableOfABigClusterIsBounded(t *testing.T) {
	tests := []struct {
		name        string
		tainted     int // of 30 nodes, the last ones
		wantSummary string
	}{
		// 25 feasible, 5 rejected: all 5 rejected rows and the 15 best
		// feasible show; node00, busy, scores lowest and is summed up.
		{"mostly feasible", 5, "… 10 more feasible nodes not shown, totals 473 down to 422"},
		// 5 feasible, 25 rejected: the 5 feasible and 15 rejected rows show.
		{"mostly rejected", 25, "… 10 more nodes filtered out not shown: 10 by TaintToleration (node(s) had untolerated taint {dedicated: db})"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := debug.NewJournal("scheduler", 100, nil)
			s := bareScheduler(Options{Journal: j})
			for i := range 30 {
				name := fmt.Sprintf("node%02d", i)
				if i >= 30-tt.tainted {
					s.cache.AddNode(tainted(name))
					continue
				}
				s.cache.AddNode(cacheNode(name))
			}
			s.cache.AddPod(cachePod("hog", "node00", "2"))
			result, err := s.schedulePod(framework.NewPodInfo(cachePod("web", "", "1")))
			if err != nil {
				t.Fatal(err)
			}
			r := onlyDecision(t, j)
			var rows, chosen int
			var summary []string
			for _, line := range r.Lines {
				switch {
				case strings.HasPrefix(line, "… "):
					summary = append(summary, line)
				case strings.HasPrefix(line, "node"):
					rows++
					if strings.HasPrefix(line, result.node+": ") && strings.HasSuffix(line, ", chosen") {
						chosen++
					}
				}
			}
			if rows != maxTableRows || chosen != 1 || strings.Join(summary, "\n") != tt.wantSummary {
				t.Errorf("%d rows (the chosen one %d times), summary %q; want %d rows with the chosen node and %q:\n%s",
					rows, chosen, summary, maxTableRows, tt.wantSummary, strings.Join(r.Lines, "\n"))
			}
			// Per-node totals are values only while there are few scored nodes.
			if _, ok := r.Values["total/node01"]; ok != (30-tt.tainted <= maxTableRows) || r.Values["total"] != "473" {
				t.Errorf("values %v", r.Values)
			}
		})
	}
}
