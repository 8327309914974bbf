package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/debug"
	"kplane/pkg/informer"
	"kplane/test/framework"
)

// TestDropWatchResumesEveryInformerWithoutARelist: `ctl fault drop-watch
// controller-manager` ends every watch of the manager's informers; its
// journal then shows a rewatch from a resourceVersion for each of them,
// no list of a dropped resource after the drop, and a ConfigMap created
// afterwards still reaches its informer.
func TestDropWatchResumesEveryInformerWithoutARelist(t *testing.T) {
	bin := requireControllerManager(t)
	c := framework.StartCluster(t, nil)
	dc := faultDebugClient(t, c)
	ctx := context.Background()
	eps := managerEndpoints(t, c)
	cm, ok := eps["controller-manager"]
	if !ok {
		t.Fatalf("no controller-manager endpoint: %+v", eps)
	}
	var info debug.Info
	if err := dc.Get(ctx, cm, debug.PathInfo, &info); err != nil {
		t.Fatal(err)
	}

	out := faultCtl(t, bin, c, "fault", "drop-watch", "controller-manager")
	first, _, _ := strings.Cut(out, "\n")
	_, list, ok := strings.Cut(strings.TrimSuffix(first, ")."), " informers (")
	if !ok || !strings.HasPrefix(first, "fault injected: dropped the watches of controller-manager's ") {
		t.Fatalf("ctl fault drop-watch printed:\n%s", out)
	}
	dropped := strings.Split(list, ", ")
	if !slices.Contains(dropped, "configmaps") || !slices.Contains(dropped, "deployments.apps") {
		t.Errorf("dropped %v, want the manager's informers, configmaps and deployments.apps among them", dropped)
	}
	if _, err := c.Client(t).ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "after-drop"}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		rewatched := map[string]string{}
		var lists, seen []string
		dropSeq := uint64(0)
		err := dc.Records(ctx, cm, debug.RecordQuery{After: info.LastSeq, Types: debug.TypeTrace + "," + debug.TypeEvent}, func(r debug.Record) error {
			switch {
			case r.Type == debug.TypeEvent:
				if r.Stage == "drop-watch" {
					dropSeq = r.Seq
				}
			case dropSeq == 0:
				// Before the drop: a controller that starts an informer
				// late (the garbage collector after its discovery) lists.
			case r.Stage == informer.StageRewatch:
				rewatched[r.Resource] = r.ResourceVersion
			case r.Stage == informer.StageList && slices.Contains(dropped, r.Resource):
				lists = append(lists, r.Resource+" "+r.Key)
			case r.Stage == informer.StageWatch && r.Key == "default/after-drop":
				seen = append(seen, r.Detail)
			}
			return nil
		})
		if err != nil {
			return false, err.Error()
		}
		if len(lists) > 0 {
			t.Fatalf("the informers relisted after a dropped watch: %v", lists)
		}
		for _, res := range dropped {
			if rewatched[res] == "" {
				return false, fmt.Sprintf("no rewatch (with a resourceVersion) of %s yet; rewatched %v", res, rewatched)
			}
		}
		return len(seen) > 0, fmt.Sprintf("the ConfigMap created after the drop reached the informer: %v", seen)
	})
}
