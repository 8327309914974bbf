package lab

import (
	"context"
	"reflect"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/test/framework/fakeapi"
)

func TestProgressIsStoredInAConfigMap(t *testing.T) {
	server := fakeapi.New(t)
	c, ctx := server.Client(), context.Background()
	if p, err := LoadProgress(ctx, c); p != nil || err != nil {
		t.Fatalf("LoadProgress before any lab = %+v, %v; want nil, nil", p, err)
	}
	want := &Progress{Lab: "job-pi", Step: 1, Hints: 2, Lang: Chinese, Dir: "kplane-lab", Memo: map[string]string{"k": "v"}}
	if err := SaveProgress(ctx, c, want); err != nil {
		t.Fatal(err)
	}
	want.Step = 2 // a second save updates the same ConfigMap
	if err := SaveProgress(ctx, c, want); err != nil {
		t.Fatal(err)
	}
	server.ExpectActions(t, "create configmaps kplane-lab", "update configmaps kplane-lab")
	got, err := LoadProgress(ctx, c)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("LoadProgress = %+v, %v; want %+v", got, err, want)
	}
	cm, err := c.ConfigMaps(ProgressNamespace).Get(ctx, ProgressName, client.GetOptions{})
	if err != nil || cm.Data["lab"] != "job-pi" || cm.Data["step"] != "2" || cm.Data["lang"] != "zh" {
		t.Errorf("the ConfigMap the web page reads holds %v, %v", cm, err)
	}
	if err := DeleteProgress(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := DeleteProgress(ctx, c); err != nil {
		t.Errorf("a second DeleteProgress: %v; want none", err)
	}
	if p, err := LoadProgress(ctx, c); p != nil || err != nil {
		t.Errorf("LoadProgress after delete = %+v, %v; want nil, nil", p, err)
	}
}

func TestABrokenProgressIsAnErrorNotACrash(t *testing.T) {
	server := fakeapi.New(t)
	server.Add(t, &api.ConfigMap{
		ObjectMeta: api.ObjectMeta{Name: ProgressName, Namespace: ProgressNamespace},
		Data:       map[string]string{"lab": "job-pi", "step": "two", "hints": "0"},
	})
	if p, err := LoadProgress(context.Background(), server.Client()); err == nil {
		t.Errorf("LoadProgress of step \"two\" = %+v; want an error", p)
	}
}

// TestCheckAdvancesOnlyWhenTheClusterSaysSo drives job-pi's first step
// against the fake apiserver: no Job, then a running one, then a
// complete one.
func TestCheckAdvancesOnlyWhenTheClusterSaysSo(t *testing.T) {
	server := fakeapi.New(t)
	c, ctx := server.Client(), context.Background()
	l, err := Find("job-pi")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Start(ctx, c, l, English, "kplane-lab")
	if err != nil {
		t.Fatal(err)
	}

	step, err := Check(ctx, c, l, p, 0, time.Millisecond)
	if u, notYet := AsUnmet(err); !notYet || step != &l.Steps[0] {
		t.Fatalf("check without a Job = %v; want the first step not done", err)
	} else if u.Reason.En != "job pi does not exist yet" {
		t.Errorf("reason = %q", u.Reason.En)
	}

	job := &api.Job{ObjectMeta: api.ObjectMeta{Name: "pi", Namespace: "default"}, Status: api.JobStatus{Active: 2, Succeeded: 3}}
	server.Add(t, job)
	if _, err := Check(ctx, c, l, p, 0, time.Millisecond); err == nil || p.Step != 0 {
		t.Fatalf("check of a running Job = %v at step %d; want not done, still step 0", err, p.Step)
	}
	hint, err := NextHint(ctx, c, l, p)
	if err != nil || hint != l.Steps[0].Hints[0] || p.Hints != 1 {
		t.Errorf("first hint = %+v, %v (hints shown %d)", hint, err, p.Hints)
	}

	job.Status = api.JobStatus{Succeeded: 5, Conditions: []api.JobCondition{{Type: api.JobComplete, Status: api.ConditionTrue}}}
	server.Add(t, job)
	if _, err := Check(ctx, c, l, p, 0, time.Millisecond); err != nil {
		t.Fatalf("check of a complete Job: %v", err)
	}
	stored, err := LoadProgress(ctx, c)
	if err != nil || stored.Step != 1 || stored.Hints != 0 {
		t.Errorf("stored progress after passing = %+v, %v; want step 1 and no hints shown", stored, err)
	}
}
