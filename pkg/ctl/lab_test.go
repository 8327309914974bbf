package ctl

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// `ctl lab` in-process against an in-process apiserver without
// controllers: the test plays the Job controller's part by writing the
// Job's status, and ctl must follow what the cluster says.
// test/e2e/labs_test.go follows every lab on a full cluster.

func TestLabVerbsFollowTheCluster(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "lab")
	labCtl := func(args ...string) (int, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		args = append([]string{"--kubeconfig", a.KubeconfigPath()}, args...)
		code := Main(ctx, args, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		return code, out.String() + errOut.String()
	}
	expect := func(code int, out string, wantCode int, wants ...string) {
		t.Helper()
		if code != wantCode {
			t.Fatalf("exit %d, want %d:\n%s", code, wantCode, out)
		}
		for _, want := range wants {
			if !strings.Contains(out, want) {
				t.Fatalf("output lacks %q:\n%s", want, out)
			}
		}
	}

	code, out := labCtl("lab", "check")
	expect(code, out, 1, "No lab started")
	code, out = labCtl("lab", "list", "--lang", "fr")
	expect(code, out, 1, `unknown language "fr"`)

	code, out = labCtl("lab", "start", "job-pi", "--dir", dir, "--lang", "zh")
	expect(code, out, 0, "实验 job-pi", "第 1/2 步：运行 Job", "$ ctl apply -f "+dir+"/job.yaml", "完成后运行：ctl lab check")
	if _, err := os.Stat(filepath.Join(dir, "job.yaml")); err != nil {
		t.Errorf("start did not write the lab's file: %v", err)
	}

	code, out = labCtl("lab", "check", "--wait", "0")
	expect(code, out, 1, "✗ Step 1 is not done yet: job pi does not exist yet", "Hint: Apply the file the lab wrote: ctl apply -f "+dir+"/job.yaml", "more hints: ctl lab hint")
	code, out = labCtl("lab", "hint", "--lang", "zh")
	expect(code, out, 0, "提示：应用本实验写出的文件")
	code, out = labCtl("lab", "hint")
	expect(code, out, 0, "Hint: ctl describe job pi")

	job := &api.Job{
		ObjectMeta: api.ObjectMeta{Name: "pi", Namespace: "default"},
		Spec: api.JobSpec{Template: api.PodTemplateSpec{Spec: api.PodSpec{
			RestartPolicy: api.RestartPolicyNever,
			Containers:    []api.Container{{Name: "pi", Image: "perl"}},
		}}},
	}
	created, err := c.Jobs("default").Create(ctx, job, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	code, out = labCtl("lab", "check", "--wait", "0")
	expect(code, out, 1, "job pi: 0 succeeded, 0 active; not Complete yet")

	created.Status = api.JobStatus{Succeeded: 5, Conditions: []api.JobCondition{{Type: api.JobComplete, Status: api.ConditionTrue}}}
	if _, err := c.Jobs("default").UpdateStatus(ctx, created, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	code, out = labCtl("lab", "check", "--wait", "0")
	expect(code, out, 0, "✓ Step 1 passed: Run the Job", "ctl trace job/pi", "Step 2/2: Delete the Job and its pods")

	if err := c.Jobs("default").Delete(ctx, "pi", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	code, out = labCtl("lab", "check", "--wait", "0", "--lang", "zh")
	expect(code, out, 0, "✓ 第 2 步通过", "实验 job-pi 已完成")

	code, out = labCtl("lab", "reset")
	expect(code, out, 0, "Lab job-pi reset")
	code, out = labCtl("lab", "check")
	expect(code, out, 1, "No lab started")
}
