package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"kplane/test/framework"
)

// crontabCRDYAML is upstream's CronTab example with a status and scale
// subresource and printer columns.
const crontabCRDYAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: CronTab runs an image on a cron schedule.
        type: object
        properties:
          spec:
            description: Spec is what the user asks for.
            type: object
            required: [cronSpec]
            properties:
              cronSpec:
                description: CronSpec is the schedule, in cron format.
                type: string
              image:
                description: Image is the container image to run.
                type: string
              replicas:
                description: Replicas is how many copies run at once.
                type: integer
          status:
            description: Status is what the controller observed.
            type: object
            properties:
              replicas: {type: integer}
              labelSelector: {type: string}
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.labelSelector
    additionalPrinterColumns:
    - {name: Spec, type: string, jsonPath: .spec.cronSpec}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
`

// crontabYAML is one CronTab.
func crontabYAML(name, cronSpec string, replicas int) string {
	return fmt.Sprintf(`apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: %s
spec:
  cronSpec: "%s"
  image: my-cron-image
  replicas: %d
`, name, cronSpec, replicas)
}

// TestCRDWithKubectl drives a CRD the way a user does: kubectl apply of
// the CRD, kubectl wait for Established, apply of objects, kubectl get
// with the printer columns, the short name and the category all,
// kubectl explain of the kind and its spec from the published schema
// (and ctl explain printing the same), client-side apply of a changed
// file, kubectl edit and kubectl patch, kubectl scale through the
// scale subresource, a /status update that leaves spec alone, a watch
// that sees ADDED, MODIFIED and DELETED in order, and kubectl delete of
// the CRD, which removes every object before the CRD goes.
func TestCRDWithKubectl(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	kubectl := func(stdin string, args ...string) string {
		t.Helper()
		r := a.Kubectl(t, stdin, args...)
		if r.Err != nil {
			t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
		}
		return r.Stdout
	}

	if out := kubectl(crontabCRDYAML, "apply", "-f", "-"); !strings.Contains(out, "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created") {
		t.Fatalf("apply CRD: %s", out)
	}
	kubectl("", "wait", "--for=condition=Established", "--timeout=20s", "crd/crontabs.stable.example.com")
	if out := kubectl("", "get", "crd"); !regexp.MustCompile(`(?m)^NAME\s+CREATED AT\n crontabs\.stable\.example\.com\s+\S+`).MatchString(strings.Replace(out, "\ncrontabs", "\n crontabs", 1)) {
		t.Errorf("kubectl get crd:\n%s", out)
	}

	explainCustomKind(t, a)
	applyEditPatchCustomKind(t, a)

	kubectl(crontabYAML("nightly", "0 3 * * *", 1)+"---\n"+crontabYAML("hourly", "0 * * * *", 2), "apply", "-f", "-")
	out := kubectl("", "get", "crontabs")
	for _, want := range []string{`(?m)^NAME\s+SPEC\s+REPLICAS\s+AGE$`, `(?m)^hourly\s+0 \* \* \* \*\s+2\s+\S+$`, `(?m)^nightly\s+0 3 \* \* \*\s+1\s+\S+$`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("kubectl get crontabs does not match %s:\n%s", want, out)
		}
	}
	if out := kubectl("", "get", "ct", "nightly", "-o", "jsonpath={.spec.image}"); out != "my-cron-image" {
		t.Errorf("get by short name: %q", out)
	}
	if out := kubectl("", "get", "all"); !regexp.MustCompile(`(?m)^crontab\.stable\.example\.com/nightly\s+0 3 \* \* \*\s+1\s+\S+$`).MatchString(out) {
		t.Errorf("kubectl get all does not list the CronTabs (category all):\n%s", out)
	}

	// A watch from now on, in kubectl's own output.
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	watch := exec.CommandContext(ctx, framework.RequireKubectl(t), "--kubeconfig", a.KubeconfigPath(), "--cache-dir", a.Home+"/cache",
		"get", "crontabs", "--watch-only", "--output-watch-events", "-o", "custom-columns=EVENT:.type,NAME:.object.metadata.name,REPLICAS:.object.spec.replicas", "--no-headers")
	watch.Env = append(watch.Environ(), "HOME="+a.Home, "KUBECONFIG=")
	stdout, err := watch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = watch.Wait() }()
	lines := make(chan string, 16)
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			lines <- strings.Join(strings.Fields(scanner.Text()), " ")
		}
		close(lines)
	}()
	time.Sleep(2 * time.Second) // let kubectl open its watch; ADDED of the new object proves it did

	kubectl(crontabYAML("weekly", "0 0 * * 0", 1), "apply", "-f", "-")
	if out := kubectl("", "scale", "crontab/weekly", "--replicas=3"); !strings.Contains(out, "crontab.stable.example.com/weekly scaled") {
		t.Errorf("kubectl scale: %s", out)
	}
	kubectl("", "patch", "crontab/weekly", "--subresource=status", "--type=merge", "-p", `{"status":{"replicas":3},"spec":{"replicas":9}}`)
	if out := kubectl("", "get", "crontab/weekly", "-o", "jsonpath={.spec.replicas}/{.status.replicas}"); out != "3/3" {
		t.Errorf("after scale and /status: spec/status replicas %q, want 3/3", out)
	}
	kubectl("", "delete", "crontab/weekly")
	for _, want := range []string{"ADDED weekly 1", "MODIFIED weekly 3", "MODIFIED weekly 3", "DELETED weekly 3"} {
		select {
		case got := <-lines:
			if got != want {
				t.Fatalf("watch printed %q, want %q", got, want)
			}
		case <-ctx.Done():
			t.Fatalf("watch printed no %q", want)
		}
	}

	// Deleting the CRD deletes its objects first.
	kubectl("", "delete", "crd", "crontabs.stable.example.com", "--timeout=30s")
	if r := a.Kubectl(t, "", "get", "crd", "crontabs.stable.example.com"); r.Err == nil || !strings.Contains(r.Stderr, "NotFound") {
		t.Errorf("CRD still there after kubectl delete: %s %s", r.Stdout, r.Stderr)
	}
	if r := a.Kubectl(t, "", "get", "--raw", "/apis/stable.example.com/v1/namespaces/default/crontabs"); r.Err == nil {
		t.Errorf("crontabs still served after the CRD went: %s", r.Stdout)
	}
	if keys := a.Kubectl(t, "", "get", "--raw", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"); strings.Contains(keys.Stdout, "crontabs") {
		t.Errorf("CRD listed after delete: %s", keys.Stdout)
	}
}
