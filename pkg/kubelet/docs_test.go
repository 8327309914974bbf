package kubelet

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"gopkg.in/yaml.v3"

	"kplane/pkg/api"
)

// TestDocsExamples runs the example pods of docs/kubelet.md for a minute of
// virtual time and checks they do what the page says.
func TestDocsExamples(t *testing.T) {
	page, err := os.ReadFile("../../docs/kubelet.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(page), "Examples (each works as is):\n\n```yaml\n")
	block, _, _ := strings.Cut(rest, "```")
	dec := yaml.NewDecoder(bytes.NewBufferString(block))
	var pods []*api.Pod
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			break
		}
		data, _ := json.Marshal(doc)
		pod := &api.Pod{}
		if err := json.Unmarshal(data, pod); err != nil {
			t.Fatal(err)
		}
		api.SetDefaults(pod)
		pod.Namespace, pod.UID = "default", "uid-"+pod.Name
		pods = append(pods, pod)
	}
	checks := map[string]func(api.PodStatus) bool{
		"crashy": func(s api.PodStatus) bool { return s.ContainerStatuses[0].RestartCount >= 2 },
		"not-ready": func(s api.PodStatus) bool {
			return s.Phase == api.PodRunning && condition(s, api.PodReady) == api.ConditionFalse
		},
		"goes-bad": func(s api.PodStatus) bool {
			return s.ContainerStatuses[0].RestartCount >= 1 && s.ContainerStatuses[0].LastTerminationState.Terminated != nil
		},
		"flaky-task": func(s api.PodStatus) bool {
			return s.Phase == api.PodSucceeded && s.ContainerStatuses[0].RestartCount == 2
		},
	}
	if len(pods) != len(checks) {
		t.Fatalf("found %d example pods, want %d", len(pods), len(checks))
	}
	for _, pod := range pods {
		t.Run(pod.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := startWorker(t, pod)
				time.Sleep(time.Minute)
				synctest.Wait()
				if st := h.status(); !checks[pod.Name](st) {
					t.Errorf("after a minute: %+v", st)
				}
			})
		})
	}
}
