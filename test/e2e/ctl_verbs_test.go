package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kplane/test/framework"
)

// TestCtlVerbs drives one `ctl up` cluster with the ctl binary and with the
// real kubectl, and checks that ctl prints what kubectl prints: tables
// compared column by column (time-dependent cells aside), YAML, JSON,
// names, JSONPath, messages, errors and exit codes compared exactly. It
// also checks issue 6's "done when": `ctl apply -f examples/` twice
// (all unchanged the second time), `ctl delete -f examples/`, `ctl get po
// nope`, a malformed file, and `ctl get po -w` showing a pod created after
// the watch started.
func TestCtlVerbs(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	c := framework.StartCluster(t, nil)
	bin := filepath.Join(framework.BuildBinaries(t), "ctl")
	examples := filepath.Join(framework.RepoRoot(t), "examples")
	run := func(stdin string, args ...string) ctlvResult {
		t.Helper()
		return ctlvRun(t, bin, c, stdin, args...)
	}
	kubectl := func(args ...string) ctlvResult {
		t.Helper()
		r := c.Kubectl(t, "", args...)
		return ctlvResult{stdout: r.Stdout, stderr: r.Stderr, code: ctlvExitCode(r.Err)}
	}
	// both runs one read (or dry run) with ctl and kubectl side by side:
	// neither changes what the other sees.
	both := func(args ...string) (got, want ctlvResult) {
		t.Helper()
		done := make(chan struct{})
		go func() {
			defer close(done)
			want = kubectl(args...)
		}()
		got = run("", args...)
		<-done
		return got, want
	}

	t.Run("apply the examples twice, as kubectl would", func(t *testing.T) {
		// A client dry run prints what the real apply will print.
		want := kubectl("apply", "-f", examples, "--dry-run=client")
		got := run("", "apply", "-f", examples, "--dry-run=client")
		ctlvSame(t, "apply --dry-run=client", got, want)

		first := run("", "apply", "-f", examples)
		if first.code != 0 || first.stdout != strings.ReplaceAll(want.stdout, " (dry run)", "") {
			t.Fatalf("first apply:\n%s\nwant:\n%s", first, strings.ReplaceAll(want.stdout, " (dry run)", ""))
		}
		second := run("", "apply", "-f", examples)
		if second.code != 0 || second.stdout != strings.ReplaceAll(want.stdout, "created (dry run)", "unchanged") {
			t.Errorf("second apply should leave every object unchanged:\n%s", second)
		}
		// kubectl agrees that ctl's last-applied annotations are its own:
		// it finds nothing to change either, except in the StatefulSet
		// whose volumeClaimTemplates (an atomic list the server fills
		// with defaults) kubectl always sends again — there kubectl
		// says "configured", ctl sees the patch change nothing.
		k := kubectl("apply", "-f", examples)
		for _, line := range strings.Split(strings.TrimSpace(k.stdout), "\n") {
			if !strings.HasSuffix(line, " unchanged") && line != "statefulset.apps/ng-headless configured" {
				t.Errorf("kubectl apply after ctl apply: %q", line)
			}
		}
		// The same with a server dry run, where ctl reports the StatefulSet
		// unchanged for the same reason.
		k = kubectl("apply", "-f", examples, "--dry-run=server")
		k.stdout = strings.Replace(k.stdout, "statefulset.apps/ng-headless configured", "statefulset.apps/ng-headless unchanged", 1)
		ctlvSame(t, "apply --dry-run=server", run("", "apply", "-f", examples, "--dry-run=server"), k)
	})

	t.Run("-R reads subdirectories", func(t *testing.T) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "sub", "deeper"), 0o700)
		os.WriteFile(filepath.Join(dir, "top.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r-top\n"), 0o600)
		os.WriteFile(filepath.Join(dir, "sub", "a.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r-sub\n"), 0o600)
		os.WriteFile(filepath.Join(dir, "sub", "deeper", "b.json"), []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"r-deeper"}}`), 0o600)
		for _, args := range [][]string{
			{"apply", "-f", dir, "--dry-run=client"},
			{"apply", "-R", "-f", dir, "--dry-run=client"},
			{"create", "--recursive", "-f", dir, "--dry-run=client", "-o", "name"},
			{"get", "-R", "-f", dir, "--ignore-not-found"},
		} {
			got, want := both(args...)
			ctlvSame(t, strings.Join(args, " "), got, want)
		}
	})

	t.Run("reads print as kubectl prints them", func(t *testing.T) {
		for _, args := range [][]string{
			{"get", "all"},
			{"get", "po"},
			{"get", "po", "-o", "wide"},
			{"get", "po,svc", "-A", "--show-labels"},
			{"get", "deploy,rs,sts,ds,job,svc,pv", "-o", "wide"},
			{"get", "svc", "-L", "app"},
			{"get", "svc/nginx", "deploy/ng-dep", "pv/pv001"},
			{"get", "no"},
			{"get", "no", "-o", "wide"},
			{"get", "ns"},
			{"get", "pv"},
			{"get", "lease", "-n", "kube-node-lease"},
			{"get", "sa", "-A"},
			{"get", "deployments.apps,sts.apps"},
			{"api-resources"},
			{"api-resources", "-o", "wide"},
			{"api-resources", "--namespaced=false"},
			{"config", "get-contexts"},
			{"get", "cm"},
			{"get", "clusterroles"},
		} {
			ctlvEventuallySameTable(t, strings.Join(args, " "), func() (ctlvResult, ctlvResult) { return both(args...) })
		}
		for _, args := range [][]string{
			{"get", "svc", "nginx", "-o", "yaml"},
			{"get", "svc", "-o", "json"},
			{"get", "pv", "-o", "yaml"},
			{"get", "deploy,svc,pv", "-o", "name"},
			{"get", "svc", "-o", "jsonpath={range .items[*]}{.metadata.name}{\"\\t\"}{.spec.clusterIP}{\"\\n\"}{end}"},
			{"get", "ds", "-o", "jsonpath={.items[*].spec.template.spec.containers[0].image}"},
			{"get", "svc", "--no-headers", "-o", "name"},
			{"api-resources", "-o", "name"},
			{"config", "current-context"},
			{"config", "view"},
			{"config", "view", "--minify", "-o", "json"},
			{"get", "po", "-n", "nowhere"},
			{"get", "svc", "-A", "-o", "custom-columns=NAME:.metadata.name,NS:metadata.namespace,PORTS:.spec.ports[*].port,SEL:.spec.selector,X:.nope"},
			{"get", "svc", "--no-headers", "-o", "custom-columns=NAME:{.metadata.name}"},
			{"get", "svc", "-A", "--sort-by=.spec.clusterIP", "-o", "custom-columns=NAME:.metadata.name,IP:.spec.clusterIP"},
			{"get", "svc", "-A", "--sort-by=.metadata.name", "-o", "name"},
			{"get", "pv,svc", "--sort-by={.metadata.name}"},
			{"get", "svc", "--sort-by=.nope"},
			{"get", "svc", "-o", "custom-columns=NAME"},
			{"get", "svc", "-o", "go-template={{range .items}}{{.metadata.name}} {{.nope}} {{exists . \"spec\" \"ports\"}}{{\"\\n\"}}{{end}}"},
			{"get", "svc", "nginx", "-o", "go-template={{.spec.ports"},
			{"get", "svc", "-o", "jsonpath-as-json={.items[*].metadata.name}"},
			{"get", "svc", "-o", "go-template"},
		} {
			got, want := both(args...)
			ctlvSame(t, strings.Join(args, " "), got, want)
		}
	})

	t.Run("errors are worded the same", func(t *testing.T) {
		got := run("", "get", "po", "nope")
		if got.code != 1 || got.stdout != "" || got.stderr != "Error from server (NotFound): pods \"nope\" not found\n" {
			t.Errorf("ctl get po nope:\n%s", got)
		}
		dir := t.TempDir()
		bad := filepath.Join(dir, "bad.yaml")
		os.WriteFile(bad, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  a: b\n  c: d: e\n"), 0o600)
		got = run("", "apply", "-f", bad)
		if got.code != 1 || !strings.Contains(got.stderr, bad) || !strings.Contains(got.stderr, "line 7") {
			t.Errorf("a malformed file must be named with the line:\n%s", got)
		}
		noKind := filepath.Join(dir, "nokind.yaml")
		os.WriteFile(noKind, []byte("apiVersion: v1\nmetadata:\n  name: x\n"), 0o600)
		for _, args := range [][]string{
			{"get", "po", "nope"},
			{"get", "svc", "nginx", "nope"},
			{"get", "foo"},
			{"get", "deploy/nope", "svc/nope2"},
			{"apply", "-f", bad},
			{"create", "-f", bad},
			{"apply", "-f", noKind},
			{"delete", "-f", noKind},
			{"apply", "-f", filepath.Join(dir, "missing.yaml")},
			{"create", "-f", examples},
			{"delete", "cm", "nope"},
			{"delete", "cm"},
			{"create", "namespace", "default"},
			{"config", "use-context", "nope"},
			{"get", "ns", "-o", "jsonpath={.items[99]}"},
		} {
			k := kubectl(args...)
			k.stderr = strings.ReplaceAll(k.stderr, "'kubectl ", "'ctl ")
			// kubectl follows a JSONPath error with a dump of the template
			// and the object; ctl prints only the message.
			if before, _, found := strings.Cut(k.stderr, ". Printing more information for debugging"); found {
				k.stderr = before + "\n"
			}
			ctlvSame(t, strings.Join(args, " "), run("", args...), k)
		}
	})

	t.Run("create and delete, with their messages", func(t *testing.T) {
		for _, args := range [][]string{
			{"create", "namespace", "lessons", "--dry-run=client", "-o", "yaml"},
			{"create", "configmap", "settings", "--from-literal=mode=lesson", "--dry-run=client", "-o", "yaml"},
			{"create", "deployment", "web", "--image=nginx:1.27", "--replicas=3", "--port=80", "--dry-run=client", "-o", "yaml"},
			{"create", "deployment", "web", "--image=nginx", "--dry-run=server"},
			{"delete", "-f", examples, "--dry-run=server"},
			{"delete", "deploy/ng-dep", "svc/nginx", "--dry-run=client"},
		} {
			got, want := both(args...)
			ctlvSame(t, strings.Join(args, " "), got, want)
		}
		got := run("", "create", "configmap", "settings", "--from-literal=mode=lesson")
		if got.code != 0 || got.stdout != "configmap/settings created\n" {
			t.Errorf("create configmap:\n%s", got)
		}
		ctlvSame(t, "delete cm settings nope", run("", "delete", "cm", "settings", "nope"),
			ctlvResult{stdout: "configmap \"settings\" deleted\n", stderr: "Error from server (NotFound): configmaps \"nope\" not found\n", code: 1})
	})

	t.Run("get -w shows a pod created after the watch started", func(t *testing.T) {
		if r := run("", "create", "namespace", "watched"); r.code != 0 {
			t.Fatal(r)
		}
		pod := func(name string) string {
			return fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: watched\nspec:\n  containers:\n  - name: c\n    image: nginx\n", name)
		}
		if r := run(pod("first"), "apply", "-f", "-"); r.code != 0 {
			t.Fatal(r)
		}
		var out framework.SyncBuffer
		cmd := exec.Command(bin, "--kubeconfig", c.KubeconfigPath(), "get", "po", "-w", "-n", "watched")
		cmd.Env = append(os.Environ(), "KUBECONFIG=", "HOME="+c.Home)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			cmd.Process.Kill()
			cmd.Wait()
		}()
		// The initial list is printed once the list is done; the watch
		// starts from its resourceVersion, so nothing after it is missed.
		framework.Eventually(t, 20*time.Second, func() (bool, string) {
			return strings.Contains(out.String(), "first"), out.String()
		})
		if r := run(pod("second"), "apply", "-f", "-"); r.code != 0 {
			t.Fatal(r)
		}
		framework.Eventually(t, 20*time.Second, func() (bool, string) {
			return regexp.MustCompile(`(?m)^second\s+\d/1\s+\S+\s+\d+\s+\S+$`).MatchString(out.String()), out.String()
		})
		if lines := strings.Split(out.String(), "\n"); !regexp.MustCompile(`^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$`).MatchString(lines[0]) ||
			strings.Count(out.String(), "NAME") != 1 {
			t.Errorf("the watch prints one header, then rows:\n%s", out.String())
		}
	})

	t.Run("delete -f examples/ removes them", func(t *testing.T) {
		got := run("", "delete", "-f", examples, "--timeout=60s")
		want := kubectl("apply", "-f", examples, "--dry-run=client").stdout
		var wantLines []string
		for _, line := range strings.Split(strings.TrimSpace(want), "\n") {
			name := strings.TrimSuffix(line, " created (dry run)")
			kind, obj, _ := strings.Cut(name, "/")
			wantLines = append(wantLines, fmt.Sprintf("%s %q deleted", kind, obj))
		}
		if got.code != 0 || got.stdout != strings.Join(wantLines, "\n")+"\n" {
			t.Errorf("delete -f examples/:\n%s\nwant:\n%s", got, strings.Join(wantLines, "\n"))
		}
		// Every object is gone: both tools say NotFound for each.
		after := run("", "get", "-f", examples)
		if after.code != 1 || after.stdout != "" || strings.Count(after.stderr, "Error from server (NotFound)") != len(wantLines) {
			t.Errorf("get -f examples/ after delete:\n%s", after)
		}
		ctlvSame(t, "get -f examples/", after, kubectl("get", "-f", examples))
	})
}

// ctlvResult is what one run of ctl or kubectl printed.
type ctlvResult struct {
	stdout, stderr string
	code           int
}

func (r ctlvResult) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// ctlvRun runs the ctl binary against the cluster.
func ctlvRun(t *testing.T, bin string, c *framework.LocalCluster, stdin string, args ...string) ctlvResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig", c.KubeconfigPath()}, args...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG=", "HOME="+c.Home)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return ctlvResult{stdout: stdout.String(), stderr: stderr.String(), code: ctlvExitCode(err)}
}

// ctlvExitCode is the exit code a Run error carries (0 for none).
func ctlvExitCode(err error) int {
	if err == nil {
		return 0
	}
	if exit, ok := err.(*exec.ExitError); ok {
		return exit.ExitCode()
	}
	return -1
}

// ctlvSame requires the same output and exit code.
// Tables may differ in their time columns: the two commands run a second
// apart, so an AGE can read 18s in one and 19s in the other.
func ctlvSame(t *testing.T, what string, got, want ctlvResult) {
	t.Helper()
	if got == want {
		return
	}
	sameTables := got.code == want.code && got.stderr == want.stderr &&
		strings.HasPrefix(want.stdout, "NAME") && ctlvCompareTables(got.stdout, want.stdout) == ""
	if !sameTables {
		t.Errorf("ctl %s differs from kubectl:\nctl: %s\nkubectl: %s", what, got, want)
	}
}

// ctlvTimeColumns hold cells that depend on when the command ran.
var ctlvTimeColumns = map[string]bool{"AGE": true, "DURATION": true, "LAST SEEN": true, "LAST SCHEDULE": true}

// ctlvEventuallySameTable runs both commands until their tables agree cell
// by cell (objects change while controllers work: a pod's STATUS, a
// deployment's READY), and fails with the last difference after a while.
func ctlvEventuallySameTable(t *testing.T, what string, both func() (ctlvResult, ctlvResult)) {
	t.Helper()
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		got, want := both()
		if got.code != want.code || got.stderr != want.stderr {
			return false, fmt.Sprintf("ctl %s:\nctl: %s\nkubectl: %s", what, got, want)
		}
		if diff := ctlvCompareTables(got.stdout, want.stdout); diff != "" {
			return false, fmt.Sprintf("ctl %s: %s\nctl:\n%s\nkubectl:\n%s", what, diff, got.stdout, want.stdout)
		}
		return true, ""
	})
}

// ctlvCompareTables compares two kubectl-style outputs: the same tables
// (blank-line separated), the same headers at the same positions, and the
// same cells, except in the time columns. It returns "" when they agree.
func ctlvCompareTables(got, want string) string {
	gotBlocks, wantBlocks := strings.Split(got, "\n\n"), strings.Split(want, "\n\n")
	if len(gotBlocks) != len(wantBlocks) {
		return fmt.Sprintf("%d tables, want %d", len(gotBlocks), len(wantBlocks))
	}
	for b := range wantBlocks {
		gotLines := strings.Split(strings.TrimRight(gotBlocks[b], "\n"), "\n")
		wantLines := strings.Split(strings.TrimRight(wantBlocks[b], "\n"), "\n")
		if len(gotLines) != len(wantLines) {
			return fmt.Sprintf("table %d has %d lines, want %d", b, len(gotLines), len(wantLines))
		}
		columns := ctlvColumns(wantLines[0])
		gotColumns := ctlvColumns(gotLines[0])
		if fmt.Sprint(gotColumns) != fmt.Sprint(columns) {
			return fmt.Sprintf("header %q, want %q", gotLines[0], wantLines[0])
		}
		for i := 1; i < len(wantLines); i++ {
			g, w := ctlvCells(gotLines[i], gotColumns), ctlvCells(wantLines[i], columns)
			for j, col := range columns {
				if !ctlvTimeColumns[col.name] && g[j] != w[j] {
					return fmt.Sprintf("row %d column %s = %q, want %q", i, col.name, g[j], w[j])
				}
			}
		}
	}
	return ""
}

// ctlvColumn is a header name and where its column starts.
type ctlvColumn struct {
	name  string
	start int
}

// ctlvColumns finds the columns of a header line: names are separated by
// at least two spaces (names such as "NODE SELECTOR" contain one).
func ctlvColumns(header string) []ctlvColumn {
	var cols []ctlvColumn
	for _, loc := range regexp.MustCompile(`\S+( \S+)*`).FindAllStringIndex(header, -1) {
		cols = append(cols, ctlvColumn{name: header[loc[0]:loc[1]], start: loc[0]})
	}
	return cols
}

// ctlvCells cuts a row at the header's column starts.
func ctlvCells(line string, cols []ctlvColumn) []string {
	cells := make([]string, len(cols))
	for i, col := range cols {
		if col.start >= len(line) {
			continue
		}
		end := len(line)
		if i+1 < len(cols) && cols[i+1].start < end {
			end = cols[i+1].start
		}
		cells[i] = strings.TrimSpace(line[col.start:end])
	}
	return cells
}
