package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kplane/pkg/ctl"
	"kplane/test/framework"
)

// crontabSpecExplained is what `kubectl explain crontab.spec` prints for
// crontabCRDYAML's schema with kubectl 1.29 and later, which read the
// group-version's /openapi/v3 document: the header, the field with its
// type, the schema's description, and each property with its own
// (cronSpec marked required). kubectl 1.27 and 1.28 print one blank line
// fewer after FIELD.
const crontabSpecExplained = "GROUP:      stable.example.com\n" +
	"KIND:       CronTab\n" +
	"VERSION:    v1\n" +
	"\n" +
	"FIELD: spec <Object>\n" +
	"\n" +
	"\n" +
	"DESCRIPTION:\n" +
	"    Spec is what the user asks for.\n" +
	"    \n" +
	"FIELDS:\n" +
	"  cronSpec\t<string> -required-\n" +
	"    CronSpec is the schedule, in cron format.\n" +
	"\n" +
	"  image\t<string>\n" +
	"    Image is the container image to run.\n" +
	"\n" +
	"  replicas\t<integer>\n" +
	"    Replicas is how many copies run at once.\n" +
	"\n" +
	"\n"

// crontabSpecExplainedV2 is what kubectl 1.28 prints for `explain
// crontab.spec --output=plaintext-openapiv2`, its older layout, which it
// renders from /openapi/v2 (read as protobuf).
const crontabSpecExplainedV2 = "KIND:     CronTab\n" +
	"VERSION:  stable.example.com/v1\n" +
	"\n" +
	"RESOURCE: spec <Object>\n" +
	"\n" +
	"DESCRIPTION:\n" +
	"     Spec is what the user asks for.\n" +
	"\n" +
	"FIELDS:\n" +
	"   cronSpec\t<string> -required-\n" +
	"     CronSpec is the schedule, in cron format.\n" +
	"\n" +
	"   image\t<string>\n" +
	"     Image is the container image to run.\n" +
	"\n" +
	"   replicas\t<integer>\n" +
	"     Replicas is how many copies run at once.\n" +
	"\n"

// explainCustomKind checks that the CronTab's schema is published in both
// OpenAPI documents: `kubectl explain` of the kind, of .spec and
// --recursive print the schema's descriptions with the current kubectl
// and kubectl 1.28 (both from /openapi/v3; 1.28 also in its older layout
// from /openapi/v2's protobuf), and `ctl explain` prints what the current
// kubectl prints.
func explainCustomKind(t *testing.T, a *framework.APIServer) {
	t.Helper()
	for _, k := range crdKubectls(t) {
		home := filepath.Join(a.Home, "explain-"+k.name)
		explain := func(args ...string) string {
			t.Helper()
			r := framework.RunKubectl(t, k.path, a.KubeconfigPath(), home, "", append([]string{"explain"}, args...)...)
			if r.Err != nil {
				t.Errorf("kubectl %s explain %s: %v\n%s", k.name, strings.Join(args, " "), r.Err, r.Stderr)
			}
			return r.Stdout
		}
		want := crontabSpecExplained
		if k.minor == 28 {
			want = strings.Replace(want, "<Object>\n\n\n", "<Object>\n\n", 1)
		}
		if got := explain("crontab.spec"); got != want {
			t.Errorf("kubectl %s explain crontab.spec:\n%s\nwant:\n%s", k.name, got, want)
		}
		if k.minor == 28 {
			if got := explain("crontab.spec", "--output=plaintext-openapiv2"); got != crontabSpecExplainedV2 {
				t.Errorf("kubectl 1.28 explain crontab.spec --output=plaintext-openapiv2:\n%s\nwant:\n%s", got, crontabSpecExplainedV2)
			}
		}
		for _, want := range []string{"KIND:       CronTab\n", "DESCRIPTION:\n    CronTab runs an image on a cron schedule.\n",
			"  metadata\t<ObjectMeta>\n    Standard object's metadata.", "  spec\t<Object>\n    Spec is what the user asks for.\n"} {
			if got := explain("crontab"); !strings.Contains(got, want) {
				t.Errorf("kubectl %s explain crontab lacks %q:\n%s", k.name, want, got)
			}
		}
		if got, want := explain("ct", "--recursive"), "  spec\t<Object>\n    cronSpec\t<string> -required-\n    image\t<string>\n    replicas\t<integer>\n  status\t<Object>\n"; !strings.Contains(got, want) {
			t.Errorf("kubectl %s explain ct --recursive lacks %q:\n%s", k.name, want, got)
		}
	}

	for _, args := range [][]string{{"crontab"}, {"crontab.spec"}, {"ct.spec.image"}, {"crontabs", "--recursive"}, {"crontab.spec.nope"}} {
		what := "explain " + strings.Join(args, " ")
		var stdout, stderr bytes.Buffer
		code := ctl.Main(context.Background(), append([]string{"--kubeconfig", a.KubeconfigPath(), "explain"}, args...), ctl.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr})
		r := a.Kubectl(t, "", append([]string{"explain"}, args...)...)
		got := ctlvResult{stdout: stdout.String(), stderr: stderr.String(), code: code}
		ctlvSame(t, what, got, ctlvResult{stdout: r.Stdout, stderr: r.Stderr, code: ctlvExitCode(r.Err)})
	}
}

// applyEditPatchCustomKind checks what publishing the schema must not
// break: kubectl decides from OpenAPI which patch to send, and a custom
// resource takes no strategic merge patch. Client-side apply of a changed
// file and kubectl edit send a JSON merge patch; kubectl patch's default
// strategic patch is refused with upstream's 415 message.
func applyEditPatchCustomKind(t *testing.T, a *framework.APIServer) {
	t.Helper()
	editor := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nsed -i 's/image: my-cron-image/image: edited-image/' \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, k := range crdKubectls(t) {
		home := filepath.Join(a.Home, "apply-"+k.name)
		name := "twice-" + strings.ReplaceAll(k.name, ".", "-")
		kubectl := func(stdin string, args ...string) framework.KubectlResult {
			t.Helper()
			return framework.RunKubectl(t, k.path, a.KubeconfigPath(), home, stdin, args...)
		}
		if r := kubectl(crontabYAML(name, "0 3 * * *", 1), "apply", "-f", "-"); r.Stdout != "crontab.stable.example.com/"+name+" created\n" {
			t.Errorf("kubectl %s apply: %v %s%s", k.name, r.Err, r.Stdout, r.Stderr)
		}
		if r := kubectl(crontabYAML(name, "0 4 * * *", 2), "apply", "-f", "-"); r.Stdout != "crontab.stable.example.com/"+name+" configured\n" {
			t.Errorf("kubectl %s apply of the changed file: %v %s%s", k.name, r.Err, r.Stdout, r.Stderr)
		}

		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		edit := exec.CommandContext(ctx, k.path, "--kubeconfig", a.KubeconfigPath(), "--cache-dir", filepath.Join(home, "cache"), "edit", "crontab", name)
		edit.Env = append(os.Environ(), "HOME="+home, "KUBECONFIG=", "EDITOR="+editor, "KUBE_EDITOR=")
		out, err := edit.CombinedOutput()
		cancel()
		if err != nil || string(out) != "crontab.stable.example.com/"+name+" edited\n" {
			t.Errorf("kubectl %s edit: %v %s", k.name, err, out)
		}
		if r := kubectl("", "get", "crontab", name, "-o", "jsonpath={.spec.cronSpec}/{.spec.replicas}/{.spec.image}"); r.Stdout != "0 4 * * */2/edited-image" {
			t.Errorf("kubectl %s: after apply twice and edit, spec is %q %s, want 0 4 * * */2/edited-image", k.name, r.Stdout, r.Stderr)
		}

		wantErr := "error: application/strategic-merge-patch+json is not supported by stable.example.com/v1, Kind=CronTab: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml\n"
		if r := kubectl("", "patch", "crontab", name, "-p", `{"spec":{"replicas":5}}`); r.Err == nil || r.Stderr != wantErr {
			t.Errorf("kubectl %s patch (strategic): %v %q, want %q", k.name, r.Err, r.Stderr, wantErr)
		}
		kubectl("", "delete", "crontab", name)
	}
}

// crdKubectl is one kubectl binary the CRD tests run.
type crdKubectl struct {
	name  string // "current", "1.28"
	minor int    // 0 for the current one
	path  string
}

// crdKubectls are the current kubectl and, when installed beside it,
// kubectl 1.28, the last minor that reads /openapi/v2.
func crdKubectls(t *testing.T) []crdKubectl {
	t.Helper()
	kubectls := []crdKubectl{{name: "current", path: framework.RequireKubectl(t)}}
	for _, k := range framework.InstalledKubectlMinors(t) {
		if k.Minor == 28 {
			kubectls = append(kubectls, crdKubectl{name: fmt.Sprintf("1.%d", k.Minor), minor: k.Minor, path: k.Path})
		}
	}
	if len(kubectls) == 1 {
		t.Log("kubectl 1.28 is not installed beside kubectl: the /openapi/v2 path is not checked")
	}
	return kubectls
}
