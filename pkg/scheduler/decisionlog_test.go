package scheduler

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/scheduler/framework"
)

func TestDecisionLogAtVerbosity4(t *testing.T) {
	var out bytes.Buffer
	s := bareScheduler(Options{Verbosity: 4})
	s.log = slog.New(slog.NewTextHandler(&out, nil))
	s.cache.AddNode(cacheNode("n1"))
	s.cache.AddNode(cacheNode("n2"))
	full := cacheNode("n3")
	full.Spec.Taints = []api.Taint{{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoSchedule}}
	s.cache.AddNode(full)
	s.cache.AddPod(cachePod("hog", "n1", "2"))

	result, err := s.schedulePod(framework.NewPodInfo(cachePod("web", "", "1")))
	if err != nil || result.node != "n2" {
		t.Fatalf("result %+v, err %v; want n2", result, err)
	}
	log := out.String()
	for _, want := range []string{
		`msg=filter pod=default/web node=n1 result=Success`,
		`msg=filter pod=default/web node=n3 result=UnschedulableAndUnresolvable plugin=TaintToleration reasons="node(s) had untolerated taint {dedicated: db}"`,
		// n2: cpu (4000-1000)/4000 = 75, memory 97 → 86; balanced: cpu .25, memory 0 → 87.
		`msg=score pod=default/web node=n2 total=473 scores="TaintToleration=100x3 NodeAffinity=0x2 NodeResourcesFit=86x1 NodeResourcesBalancedAllocation=87x1"`,
		`msg=score pod=default/web node=n1`,
		`msg=decision pod=default/web node=n2 feasible=2 evaluated=3 nodes=3`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("decision log lacks %s\nlog:\n%s", want, log)
		}
	}

	// Below verbosity 4 nothing is logged.
	out.Reset()
	s.opts.Verbosity = 3
	if _, err := s.schedulePod(framework.NewPodInfo(cachePod("quiet", "", ""))); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Fatalf("logged at verbosity 3:\n%s", out.String())
	}
}
