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

// The verbs that change existing objects (label, annotate, patch, scale,
// rollout, edit, cordon, drain, explain, completion), run in-process
// against an in-process apiserver. There are no controllers here: where a
// verb depends on what a controller writes (ReplicaSets with revisions, a
// Deployment's status), the test writes it. test/e2e/ctl_verbs_test.go runs
// the same verbs on a whole cluster and next to the real kubectl.

// ctlRun runs ctl against a with stdin and returns exit code, stdout and
// stderr.
func ctlRun(t *testing.T, a *framework.APIServer, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append([]string{"--kubeconfig", a.KubeconfigPath()}, args...)
	code := Main(context.Background(), args, IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

// ctlCase is one command and what it must print.
type ctlCase struct {
	args     []string
	wantCode int
	wantOut  string
	wantErr  string
}

// check runs each case in order (they may depend on each other).
func check(t *testing.T, a *framework.APIServer, cases []ctlCase) {
	t.Helper()
	for _, tt := range cases {
		code, out, errOut := ctlRun(t, a, "", tt.args...)
		if code != tt.wantCode || out != tt.wantOut || errOut != tt.wantErr {
			t.Errorf("ctl %s = %d\nstdout %q\nstderr %q\nwant %d\nstdout %q\nstderr %q",
				strings.Join(tt.args, " "), code, out, errOut, tt.wantCode, tt.wantOut, tt.wantErr)
		}
	}
}

// testDeployment is a Deployment of nginx:1 with app=web.
func testDeployment(name string, replicas int32) *api.Deployment {
	d := &api.Deployment{}
	d.Name, d.Namespace = name, "default"
	d.Spec.Replicas = &replicas
	d.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": name}}
	d.Spec.Template.Labels = map[string]string{"app": name}
	d.Spec.Template.Spec.Containers = []api.Container{{Name: "web", Image: "nginx:1"}}
	return d
}

func TestLabelAnnotatePatchScale(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	if _, err := c.Deployments("default").Create(ctx, testDeployment("web", 1), client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	check(t, a, []ctlCase{
		{[]string{"label", "deploy", "web", "tier=front"}, 0, "deployment.apps/web labeled\n", ""},
		{[]string{"label", "deploy/web", "tier=back"}, 1, "", "error: 'tier' already has a value (front), and --overwrite is false\n"},
		{[]string{"label", "deploy/web", "tier=back", "--overwrite"}, 0, "deployment.apps/web labeled\n", ""},
		{[]string{"label", "deploy/web", "tier=back", "--overwrite"}, 0, "deployment.apps/web not labeled\n", ""},
		{[]string{"label", "deploy/web", "tier-"}, 0, "deployment.apps/web unlabeled\n", ""},
		// kubectl's quirk: the object has no labels left, and removing a
		// missing one still writes "labels: {}", so it says "labeled".
		{[]string{"label", "deploy/web", "tier-"}, 0, "label \"tier\" not found.\ndeployment.apps/web labeled\n", ""},
		{[]string{"label", "deploy/web", "y=1"}, 0, "deployment.apps/web labeled\n", ""},
		{[]string{"label", "deploy/web", "tier-"}, 0, "label \"tier\" not found.\ndeployment.apps/web not labeled\n", ""},
		{[]string{"label", "deploy/web", "x=1", "--dry-run=client"}, 0, "deployment.apps/web labeled (dry run)\n", ""},
		{[]string{"label", "deploy/web", "x=1", "--dry-run=server"}, 0, "deployment.apps/web labeled (server dry run)\n", ""},
		{[]string{"label", "deploy/web", "--list"}, 0, "y=1\n", ""},
		{[]string{"label", "deploy", "web"}, 1, "", "error: at least one label update is required\n"},
		{[]string{"label", "deploy", "x=1"}, 1, "", "error: resource(s) were provided, but no name was specified\n"},
		{[]string{"label", "deploy", "--all", "x=2", "--overwrite"}, 0, "deployment.apps/web labeled\n", ""},
		{[]string{"label", "deploy", "--all", "-l", "a=b", "x=1"}, 1, "", "error: cannot set --all and --selector at the same time\n"},
		{[]string{"label", "deploy/nope", "x=1"}, 1, "", "Error from server (NotFound): deployments.apps \"nope\" not found\n"},
		{[]string{"label", "deploy/web", "z=1", "--resource-version=1"}, 1, "", "Error from server (Conflict): Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply your changes to the latest version and try again\n"},

		{[]string{"annotate", "deploy/web", "note=one"}, 0, "deployment.apps/web annotated\n", ""},
		{[]string{"annotate", "deploy/web", "note=two"}, 1, "", "error: --overwrite is false but found the following declared annotation(s): 'note' already has a value (one)\n"},
		{[]string{"annotate", "deploy/web", "note=two", "--overwrite"}, 0, "deployment.apps/web annotated\n", ""},
		{[]string{"annotate", "deploy/web", "--list"}, 0, "note=two\n", ""},
		{[]string{"annotate", "deploy/web", "note-", "-o", "name"}, 0, "deployment.apps/web\n", ""},

		{[]string{"patch", "deploy/web", "-p", `{"spec":{"replicas":2}}`}, 0, "deployment.apps/web patched\n", ""},
		{[]string{"patch", "deploy/web", "-p", `{"spec":{"replicas":2}}`}, 0, "deployment.apps/web patched (no change)\n", ""},
		{[]string{"patch", "deploy/web", "--type=merge", "-p", "spec: {replicas: 3}"}, 0, "deployment.apps/web patched\n", ""},
		{[]string{"patch", "deploy/web", "--type=json", "-p", `[{"op":"replace","path":"/spec/replicas","value":2}]`}, 0, "deployment.apps/web patched\n", ""},
		{[]string{"patch", "deploy/web", "-p", `{"spec":{"replicas":5}}`, "--dry-run=client", "-o", "jsonpath={.spec.replicas}"}, 0, "5", ""},
		{[]string{"patch", "deploy/web", "--type=foo", "-p", "{}"}, 1, "", "error: --type must be one of [json merge strategic], not \"foo\"\n"},
		{[]string{"patch", "deploy/web"}, 1, "", "error: must specify --patch or --patch-file containing the contents of the patch\n"},
		{[]string{"patch", "deploy/web", "-p", `{"spec":{"replicas":-1}}`}, 1, "", "The Deployment \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0\n"},
		{[]string{"patch", "deploy/web", "--subresource=scale", "-p", `{"spec":{"replicas":2}}`}, 0, "scale.autoscaling/web patched (no change)\n", ""},

		{[]string{"scale", "deploy/web", "--replicas=4"}, 0, "deployment.apps/web scaled\n", ""},
		{[]string{"scale", "deploy", "web", "--replicas=3", "--current-replicas=4"}, 0, "deployment.apps/web scaled\n", ""},
		{[]string{"scale", "deploy", "web", "--replicas=1", "--current-replicas=4"}, 1, "", "error: Expected replicas to be 4, was 3\n"},
		{[]string{"scale", "deploy", "web", "--replicas=1", "--dry-run=client"}, 0, "deployment.apps/web scaled (dry run)\n", ""},
		{[]string{"scale", "deploy", "nope", "--replicas=1"}, 1, "", "error: no objects passed to scale deployments.apps \"nope\" not found\n"},
		{[]string{"scale", "deploy", "web"}, 1, "", "error: required flag(s) \"replicas\" not set\n"},
		{[]string{"scale", "deploy", "web", "--replicas=-1"}, 1, "", "error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0\n"},
		{[]string{"scale", "configmap", "x", "--replicas=1"}, 1, "", "error: no objects passed to scale configmaps \"x\" not found\n"},
	})
	d, err := c.Deployments("default").Get(ctx, "web", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *d.Spec.Replicas != 3 || d.Labels["x"] != "2" || d.Annotations["note"] != "" {
		t.Errorf("deployment after the commands: replicas %d, labels %v, annotations %v", *d.Spec.Replicas, d.Labels, d.Annotations)
	}
}

// ownedReplicaSet creates the ReplicaSet the deployment controller would
// have made for revision, owned by d, with d's template and image.
func ownedReplicaSet(t *testing.T, c *client.Client, d *api.Deployment, revision, image, cause string) {
	t.Helper()
	yes := true
	rs := &api.ReplicaSet{}
	rs.Name, rs.Namespace = d.Name+"-"+revision, d.Namespace
	rs.Annotations = map[string]string{api.DeploymentRevisionAnnotation: revision}
	if cause != "" {
		rs.Annotations[changeCauseAnnotation] = cause
	}
	rs.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID, Controller: &yes}}
	rs.Spec.Selector = d.Spec.Selector
	rs.Spec.Template = api.DeepCopyValue(d.Spec.Template)
	rs.Spec.Template.Labels[api.DefaultDeploymentUniqueLabelKey] = "h" + revision
	rs.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": d.Name, api.DefaultDeploymentUniqueLabelKey: "h" + revision}}
	rs.Spec.Template.Spec.Containers[0].Image = image
	rs.Labels = rs.Spec.Template.Labels
	if _, err := c.ReplicaSets(d.Namespace).Create(context.Background(), rs, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestRolloutVerbs(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	d := testDeployment("web", 1)
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: "2"}
	d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	d, err := c.Deployments("default").Create(ctx, d, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ownedReplicaSet(t, c, d, "1", "nginx:1", "first")
	ownedReplicaSet(t, c, d, "2", "nginx:2", "")

	check(t, a, []ctlCase{
		{[]string{"rollout", "history", "deploy/web"}, 0, "deployment.apps/web \nREVISION  CHANGE-CAUSE\n1         first\n2         <none>\n\n", ""},
		{[]string{"rollout", "history", "deploy/web", "--revision=9"}, 1, "", "error: unable to find the specified revision\n"},
		{[]string{"rollout", "undo", "deploy/web", "--to-revision=2"}, 0, "deployment.apps/web skipped rollback (current template already matches revision 2)\n", ""},
		{[]string{"rollout", "undo", "deploy/web", "--to-revision=9"}, 1, "", "error: unable to find specified revision 9 in history\n"},
		{[]string{"rollout", "undo", "deploy/web"}, 0, "deployment.apps/web rolled back\n", ""},
		{[]string{"rollout", "pause", "deploy/web"}, 0, "deployment.apps/web paused\n", ""},
		{[]string{"rollout", "pause", "deploy/web"}, 1, "", "error: deployments.apps \"web\" is already paused\n"},
		{[]string{"rollout", "undo", "deploy/web"}, 1, "", "error: you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again\n"},
		{[]string{"rollout", "restart", "deploy/web"}, 1, "", "error: deployments.apps \"web\" can't restart paused deployment (run rollout resume first)\n"},
		{[]string{"rollout", "resume", "deploy/web"}, 0, "deployment.apps/web resumed\n", ""},
		{[]string{"rollout", "resume", "deploy/web"}, 1, "", "error: deployments.apps \"web\" is not paused\n"},
		{[]string{"rollout", "restart", "deploy/web"}, 0, "deployment.apps/web restarted\n", ""},
		{[]string{"rollout", "status", "deploy/web", "--watch=false"}, 0, "Waiting for deployment spec update to be observed...\n", ""},
		// Nothing observes the Deployment here, so --timeout ends the watch.
		{[]string{"rollout", "status", "deploy/web", "--timeout=300ms"}, 1, "Waiting for deployment spec update to be observed...\n", "error: timed out waiting for the condition\n"},
		{[]string{"rollout", "status"}, 1, "", "error: required resource not specified\n"},
		{[]string{"rollout", "status", "deploy/nope"}, 1, "", "Error from server (NotFound): deployments.apps \"nope\" not found\n"},
		{[]string{"rollout", "status", "configmap/x"}, 1, "", "Error from server (NotFound): configmaps \"x\" not found\n"},
	})
	d, err = c.Deployments("default").Get(ctx, "web", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Spec.Template.Spec.Containers[0].Image; got != "nginx:1" {
		t.Errorf("after undo the image is %s, want nginx:1", got)
	}
	if _, ok := d.Spec.Template.Labels[api.DefaultDeploymentUniqueLabelKey]; ok {
		t.Error("undo copied the pod-template-hash label into the Deployment")
	}
	if d.Annotations[changeCauseAnnotation] != "first" || d.Annotations[api.DeploymentRevisionAnnotation] != "2" {
		t.Errorf("annotations after undo = %v", d.Annotations)
	}
	if d.Spec.Template.Annotations[restartedAtAnnotation] == "" {
		t.Error("restart did not set the restartedAt annotation")
	}

	// rollout status reads what the controller reports: pretend to be it.
	d.Status = api.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}
	if d, err = c.Deployments("default").UpdateStatus(ctx, d, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	check(t, a, []ctlCase{{[]string{"rollout", "status", "deploy/web"}, 0, "deployment \"web\" successfully rolled out\n", ""}})
	d.Status.Conditions = []api.DeploymentCondition{{Type: api.DeploymentProgressing, Status: api.ConditionFalse, Reason: "ProgressDeadlineExceeded"}}
	if _, err = c.Deployments("default").UpdateStatus(ctx, d, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	check(t, a, []ctlCase{{[]string{"rollout", "status", "deployment", "web"}, 1, "", "error: deployment \"web\" exceeded its progress deadline\n"}})
}

func TestEditWithAScriptedEditor(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	if _, err := c.Deployments("default").Create(context.Background(), testDeployment("web", 1), client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// Edit keeps the files of failed edits in the temporary directory.
	t.Setenv("TMPDIR", t.TempDir())
	editor := func(name, script string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	t.Setenv("KUBE_EDITOR", editor("true.sh", "exit 0\n"))
	check(t, a, []ctlCase{{[]string{"edit", "deploy/web"}, 0, "", "Edit cancelled, no changes made.\n"}})

	t.Setenv("KUBE_EDITOR", editor("scale.sh", `sed -i 's/^  replicas: 1$/  replicas: 4/' "$1"`+"\n"))
	check(t, a, []ctlCase{{[]string{"edit", "deploy/web"}, 0, "deployment.apps/web edited\n", ""}})

	// An invalid value: the file comes back with the error on top; the
	// second run of the script changes nothing, so the edit is given up.
	seen := filepath.Join(dir, "seen")
	t.Setenv("KUBE_EDITOR", editor("bad.sh", `cp "$1" "`+seen+`"; sed -i 's/^  replicas: 4$/  replicas: -1/' "$1"`+"\n"))
	code, out, errOut := ctlRun(t, a, "", "edit", "deploy/web")
	if code != 1 || out != "" || !strings.HasPrefix(errOut, "error: deployments.apps \"web\" is invalid\nA copy of your changes has been stored to \"") ||
		!strings.HasSuffix(errOut, "\"\nerror: Edit cancelled, no valid changes were saved.\n") {
		t.Errorf("invalid edit = %d %q %q", code, out, errOut)
	}
	reopened, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	if want := editHeader + "# deployments.apps \"web\" was not valid:\n# * spec.replicas: Invalid value: -1: must be greater than or equal to 0\n#\n"; !strings.HasPrefix(string(reopened), want) {
		t.Errorf("the reopened file starts\n%s\nwant\n%s", string(reopened)[:min(len(reopened), 400)], want)
	}
	kept := errOut[strings.Index(errOut, "stored to \"")+len("stored to \"") : strings.LastIndex(errOut, "\"\nerror:")]
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("the file with the changes was not kept: %v", err)
	}

	t.Setenv("KUBE_EDITOR", editor("rename.sh", `sed -i 's/^  name: web$/  name: other/' "$1"`+"\n"))
	code, _, errOut = ctlRun(t, a, "", "edit", "deploy/web")
	if code != 1 || !strings.HasSuffix(errOut, "error: At least one of apiVersion, kind and name was changed\n") {
		t.Errorf("renaming edit = %d %q", code, errOut)
	}

	d, err := c.Deployments("default").Get(context.Background(), "web", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *d.Spec.Replicas != 4 {
		t.Errorf("replicas = %d, want 4 (from the one good edit)", *d.Spec.Replicas)
	}
}

func TestCordonDrainExplainAndCompletion(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	node := &api.Node{}
	node.Name = "node1"
	if _, err := c.Nodes().Create(ctx, node, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	yes := true
	for _, name := range []string{"managed", "loner"} {
		pod := &api.Pod{}
		pod.Name, pod.Namespace = name, "default"
		pod.Spec.NodeName = "node1"
		pod.Spec.Containers = []api.Container{{Name: "c", Image: "busybox"}}
		if name == "managed" {
			pod.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u1", Controller: &yes}}
		}
		if _, err := c.Pods("default").Create(ctx, pod, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	check(t, a, []ctlCase{
		{[]string{"cordon", "node1"}, 0, "node/node1 cordoned\n", ""},
		{[]string{"cordon", "node1"}, 0, "node/node1 already cordoned\n", ""},
		{[]string{"uncordon", "node1"}, 0, "node/node1 uncordoned\n", ""},
		{[]string{"uncordon", "node1", "--dry-run=client"}, 0, "node/node1 already uncordoned (dry run)\n", ""},
		{[]string{"cordon", "nope"}, 1, "", "Error from server (NotFound): nodes \"nope\" not found\n"},
		{[]string{"cordon"}, 1, "", "error: USAGE: cordon NODE [flags]\nSee 'ctl cordon -h' for help and examples\n"},
		{[]string{"drain", "node1"}, 1, "node/node1 cordoned\n",
			"error: unable to drain node \"node1\" due to error: cannot delete cannot delete Pods that declare no controller (use --force to override): default/loner, continuing command...\n" +
				"There are pending nodes to be drained:\n node1\n" +
				"cannot delete cannot delete Pods that declare no controller (use --force to override): default/loner\n"},
		{[]string{"drain", "node1", "--force", "--dry-run=client"}, 0,
			"node/node1 already cordoned (dry run)\nevicting pod default/loner (dry run)\nevicting pod default/managed (dry run)\nnode/node1 drained (dry run)\n",
			"Warning: deleting Pods that declare no controller: default/loner\n"},
		// Evictions run concurrently (their lines interleave, see
		// drain_evict_test.go); deletes one after the other.
		{[]string{"drain", "node1", "--force", "--grace-period=0", "--disable-eviction"}, 0,
			"node/node1 already cordoned\npod/loner deleted\npod/managed deleted\nnode/node1 drained\n",
			"Warning: deleting Pods that declare no controller: default/loner\n"},

		// kubectl explain's layout: two blank lines after FIELD, the header
		// printed before an unknown field is found, an unknown resource
		// type without "error: ".
		{[]string{"explain", "deploy.spec.paused"}, 0, "GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\nFIELD: paused <boolean>\n\n\nDESCRIPTION:\n    <empty>\n\n", ""},
		{[]string{"explain", "deploy.spec.nope"}, 1, "GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\n", "error: field \"nope\" does not exist\n"},
		{[]string{"explain", "nope"}, 1, "", "the server doesn't have a resource type \"nope\"\n"},

		// What a shell's completion script asks: kinds, then names.
		{[]string{"__complete", "label", "nodes", "no"}, 0, "node1\n:4\n", "Completion ended with directive: ShellCompDirectiveNoFileComp\n"},
		{[]string{"__complete", "label", "node/"}, 0, "node/node1\n:4\n", "Completion ended with directive: ShellCompDirectiveNoFileComp\n"},
		{[]string{"__complete", "cordon", ""}, 0, "node1\n:4\n", "Completion ended with directive: ShellCompDirectiveNoFileComp\n"},
		{[]string{"__complete", "get", "nodes", ""}, 0, "node1\n:4\n", "Completion ended with directive: ShellCompDirectiveNoFileComp\n"},
		{[]string{"__complete", "describe", "node/n"}, 0, "node/node1\n:4\n", "Completion ended with directive: ShellCompDirectiveNoFileComp\n"},
		{[]string{"__complete", "delete", "nodes", "no"}, 0, "node1\n:4\n", "Completion ended with directive: ShellCompDirectiveNoFileComp\n"},
		{[]string{"__complete", "scale", "rep"}, 0, "replicaset\nreplicationcontroller\n:4\n", "Completion ended with directive: ShellCompDirectiveNoFileComp\n"},
	})
	code, out, _ := ctlRun(t, a, "", "__complete", "explain", "deployments")
	if code != 0 || !strings.HasPrefix(out, "deployments.apps\n") {
		t.Errorf("completing a kind = %d %q", code, out)
	}
}

// TestEditKeepsCommentLinesInBlockScalars checks that lines starting with
// '#' inside a multi-line value (a script in a ConfigMap) survive an edit:
// only YAML comments are dropped, by the YAML parser, as in kubectl.
func TestEditKeepsCommentLinesInBlockScalars(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	const script = "#!/bin/sh\n# say hello\necho hi\n"
	cm := &api.ConfigMap{}
	cm.Name, cm.Namespace = "scripts", "default"
	cm.Data = map[string]string{"run.sh": script, "other": "a"}
	if _, err := c.ConfigMaps("default").Create(ctx, cm, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+`grep -q '^    #!/bin/sh$' "$1" || exit 1`+"\n"+`sed -i 's/^  other: a$/  other: b/' "$1"`+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBE_EDITOR", path)
	t.Setenv("TMPDIR", t.TempDir())
	check(t, a, []ctlCase{{[]string{"edit", "configmap/scripts"}, 0, "configmap/scripts edited\n", ""}})
	got, err := c.ConfigMaps("default").Get(ctx, "scripts", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Data["other"] != "b" || got.Data["run.sh"] != script {
		t.Errorf("data after the edit = %q, want other=b and run.sh=%q", got.Data, script)
	}
}
