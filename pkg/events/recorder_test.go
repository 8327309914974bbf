package events

import (
	"context"
	"regexp"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/test/framework"
)

func TestRecorderAggregatesRepeats(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	dep, err := c.Deployments("default").Create(ctx, &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: "ng-dep"},
		Spec: api.DeploymentSpec{Selector: &api.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"a": "b"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}},
	}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRecorder(c, api.EventSource{Component: "deployment-controller"}, nil)
	r.Eventf(dep, api.EventTypeNormal, "ScalingReplicaSet", "Scaled up replica set %s-6b558d4747 from 0 to 4", dep.Name)
	r.Event(dep, api.EventTypeNormal, "ScalingReplicaSet", "Scaled down replica set ng-dep-6b558d4747 from 4 to 3")
	r.Event(dep, api.EventTypeNormal, "ScalingReplicaSet", "Scaled down replica set ng-dep-6b558d4747 from 4 to 3")
	r.Shutdown()

	list, err := c.Events("default").List(ctx, client.ListOptions{FieldSelector: "involvedObject.name=ng-dep,involvedObject.kind=Deployment"})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int32{}
	for _, e := range list.Items {
		counts[e.Message] = e.Count
		if e.Source.Component != "deployment-controller" || e.InvolvedObject.UID != dep.UID || e.InvolvedObject.APIVersion != "apps/v1" {
			t.Errorf("event %+v", e)
		}
	}
	if len(counts) != 2 || counts["Scaled down replica set ng-dep-6b558d4747 from 4 to 3"] != 2 || counts["Scaled up replica set ng-dep-6b558d4747 from 0 to 4"] != 1 {
		t.Errorf("event counts %v", counts)
	}
	out := a.MustKubectl(t, "describe", "deployment", "ng-dep")
	if !regexp.MustCompile(`Normal\s+ScalingReplicaSet\s+\S+ \(x2 over \S+\)\s+deployment-controller\s+Scaled down replica set ng-dep-6b558d4747 from 4 to 3`).MatchString(out) {
		t.Errorf("describe does not show the aggregated event:\n%s", out)
	}
	// Recording after Shutdown is a no-op, not a panic.
	r.Event(dep, api.EventTypeNormal, "Late", "ignored")
}

func TestReferenceFillsKindForGoObjects(t *testing.T) {
	ref := Reference(&api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "ns", UID: "u"}})
	if ref.Kind != "Pod" || ref.APIVersion != "v1" || ref.Name != "p" || ref.Namespace != "ns" || ref.UID != "u" {
		t.Errorf("reference %+v", ref)
	}
	ref = Reference(&api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "s"}})
	if ref.APIVersion != "apps/v1" {
		t.Errorf("statefulset apiVersion %q", ref.APIVersion)
	}
}

func TestRecorderStampsEventsWithItsClock(t *testing.T) {
	c := framework.StartAPIServer(t).Client(t, nil)
	ctx := context.Background()
	at := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	cm, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "timed"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRecorder(c, api.EventSource{Component: "test"}, nil, WithClock(clock.NewFake(at)))
	r.Event(cm, api.EventTypeNormal, "Timed", "on the recorder's clock")
	r.Event(cm, api.EventTypeNormal, "Timed", "on the recorder's clock")
	r.Shutdown()

	list, err := c.Events("default").List(ctx, client.ListOptions{FieldSelector: "involvedObject.name=timed"})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("events %+v (err %v), want one", list, err)
	}
	e := list.Items[0]
	if !e.FirstTimestamp.Equal(at) || !e.LastTimestamp.Equal(at) || e.Count != 2 {
		t.Fatalf("event first %v last %v count %d; want both %v (the recorder's clock), count 2", e.FirstTimestamp, e.LastTimestamp, e.Count, at)
	}
}
