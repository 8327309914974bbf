package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"kplane/test/framework"
)

const (
	// docsRetryFor bounds how long a read-only command is retried until its
	// output has the documented shape: long enough for a rolling update or
	// a namespace's 5 s deletion grace on a loaded machine.
	docsRetryFor = 30 * time.Second
	// docsWaitFor bounds a wait-for annotation.
	docsWaitFor = 60 * time.Second
	// docsCommandTimeout bounds one run of one command (a `kubectl rollout
	// status` that never finishes, a command waiting on stdin).
	docsCommandTimeout = 90 * time.Second
)

// TestDocs runs the documentation. Every ```console block of README.md and
// of docs/ (recursively) is executed against a real cluster and its output
// compared with what the document shows, so the documentation cannot drift
// from the code. docs/writing-docs.md says the same for writers:
//
//   - A ```console block is a terminal session. A line starting with `$ ` is
//     a command (a trailing `\` continues it on the next line; a
//     here-document's lines belong to it); the lines after it, up to the
//     next `$ `, are the output the reader should see. Blocks tagged
//     otherwise (```sh, ```text, ```yaml, ```go, plain ```) are not run.
//   - Each document runs in a fresh cluster of its own (framework.StartCluster:
//     the built binaries, `ctl up` with two worker nodes), documents in
//     parallel, the blocks of one document in order, each command with
//     `bash -c` and its output (stdout and stderr together) captured.
//     TestDocsInSequence runs the README and the walkthroughs again, one
//     after another on one cluster.
//     Commands do not share shell state: a variable set by one is gone in
//     the next; use $(...) inside one command instead.
//   - The working directory looks like the repository root after `make up`:
//     examples/ (a copy), every other top-level entry of the repository (a
//     symlink), bin/ (the binaries this test built) and .kplane/ (the test
//     cluster's data dir: kubeconfig, kubeconfigs/, logs/, pki/). KUBECONFIG
//     is .kplane/kubeconfig and bin/ is first on PATH, so `ctl` is the built
//     ctl and `kubectl` the real one, as for a reader who followed the README.
//   - The comparison is by shape: the same number of lines, and on each
//     line the same tokens once whitespace runs are collapsed and the
//     volatile parts are replaced by placeholders (ages and durations,
//     generated name suffixes and pod-template-hashes, IPs, random ports,
//     timestamps, UIDs and leader identities, resourceVersions; the list is
//     in docs_compare_test.go). An expected line `...` matches any number of
//     lines; a `...` token matches any run of tokens within a line.
//   - Waiting: a command that only reads (kubectl/ctl get, describe,
//     rollout status, …, possibly piped into grep, head, wc …) is run again,
//     every half second for up to docsRetryFor, until its output matches;
//     so "the pods are Running now" needs no annotation. A command that
//     changes something runs once.
//   - Annotations, in HTML comments on the lines just before a block:
//     `<!-- docs-test: setup CMD -->` runs CMD first, unseen (it must exit
//     0); `<!-- docs-test: wait-for CMD -->` runs CMD until it exits 0 (up
//     to docsWaitFor); `<!-- docs-test: skip REASON -->` does not run the
//     block and logs why.
//
// A failure names the file and line of the command, the command, the output
// expected and the output printed, and stops that document (later blocks
// build on the state of earlier ones).
func TestDocs(t *testing.T) {
	root := framework.RepoRoot(t)
	for _, rel := range docFiles(t, root) {
		blocks, err := readDoc(root, rel)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if len(blocks) == 0 {
			continue
		}
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			framework.RequireKubectl(t)
			requireControllerManager(t)
			configure, err := pageClusterOptions(root, rel) // docs_cluster_test.go
			if err != nil {
				t.Fatal(err)
			}
			c := framework.StartCluster(t, configure)
			sh := newDocShell(t, root, c)
			for _, b := range blocks {
				runDocBlock(t, sh, b)
			}
		})
	}
}

// TestDocsInSequence follows the README and then every walkthrough, in the
// order the README lists them under "More walkthroughs", on one cluster, as
// a reader who reads on does: TestDocs shows each page works on a fresh
// cluster, this test that each page also works on the cluster the pages
// before it leave behind — which holds only if every walkthrough cleans up
// after itself and waits for what it deleted to be gone. The commands and
// their comparison are TestDocs'; a page that fails ends the sequence,
// since the pages after it would start from a state no reader has.
func TestDocsInSequence(t *testing.T) {
	t.Parallel()
	root := framework.RepoRoot(t)
	pages := append([]string{"README.md"}, readmeWalkthroughs(t, root)...)
	framework.RequireKubectl(t)
	requireControllerManager(t)
	c := framework.StartCluster(t, nil)
	sh := newDocShell(t, root, c)
	for i, rel := range pages {
		blocks, err := readDoc(root, rel)
		if err != nil {
			t.Fatal(err)
		}
		if flags, err := pageClusterFlags(root, rel); err != nil || len(flags) > 0 {
			t.Fatalf("%s asks for a cluster of its own (docs-cluster: %v, err %v); a walkthrough runs on the shared default cluster", rel, flags, err)
		}
		start := time.Now()
		ok := t.Run(rel, func(t *testing.T) {
			for _, b := range blocks {
				runDocBlock(t, sh, b)
			}
		})
		t.Logf("%s: %v", rel, time.Since(start).Round(time.Second))
		if !ok {
			t.Fatalf("%s failed; not run, as they would start from the state it left: %s", rel, strings.Join(pages[i+1:], ", "))
		}
	}
}

// readDoc reads and parses one document, rel being its path relative to
// the repository root.
func readDoc(root, rel string) ([]docBlock, error) {
	content, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return nil, err
	}
	return parseDoc(rel, string(content))
}

// walkthroughLinkRE finds a link to a walkthrough page in the README.
var walkthroughLinkRE = regexp.MustCompile(`\]\((docs/walkthrough-[a-z0-9-]+\.md)\)`)

// readmeWalkthroughs returns the walkthrough pages in the order the
// README's "More walkthroughs" section lists them, and fails the test if
// that list and the docs/walkthrough-*.md files differ: a page missing
// from the list would be missing from the reader's path, and from
// TestDocsInSequence.
func readmeWalkthroughs(t *testing.T, root string) []string {
	t.Helper()
	content, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	section, ok := markdownSection(string(content), "More walkthroughs")
	if !ok {
		t.Fatalf("README.md has no \"More walkthroughs\" section: it gives the order walkthroughs are read in")
	}
	var listed []string
	seen := map[string]bool{}
	for _, m := range walkthroughLinkRE.FindAllStringSubmatch(section, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			listed = append(listed, m[1])
		}
	}
	files, err := filepath.Glob(filepath.Join(root, "docs", "walkthrough-*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		rel := "docs/" + filepath.Base(f)
		if !seen[rel] {
			t.Errorf("%s is not listed under \"More walkthroughs\" in README.md", rel)
		}
		delete(seen, rel)
	}
	for rel := range seen {
		t.Errorf("README.md lists %s under \"More walkthroughs\", but there is no such file", rel)
	}
	if t.Failed() {
		t.FailNow()
	}
	return listed
}

// markdownSection returns the text under the heading whose title is
// title, up to the next heading of the same or a higher level.
func markdownSection(content, title string) (string, bool) {
	lines := strings.Split(content, "\n")
	for i, line := range lines {
		level := len(line) - len(strings.TrimLeft(line, "#"))
		if level == 0 || strings.TrimSpace(line[level:]) != title {
			continue
		}
		end := len(lines)
		for j := i + 1; j < len(lines); j++ {
			l := len(lines[j]) - len(strings.TrimLeft(lines[j], "#"))
			if l > 0 && l <= level && strings.HasPrefix(lines[j][l:], " ") {
				end = j
				break
			}
		}
		return strings.Join(lines[i+1:end], "\n"), true
	}
	return "", false
}

// docFiles lists README.md and every Markdown file under docs/, relative to
// the repository root, sorted.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("list docs/: %v", err)
	}
	sort.Strings(files[1:])
	return files
}

// docShell runs a document's commands the way a reader's shell would, in a
// directory that looks like the repository root after `make up`.
type docShell struct {
	dir string
	env []string
}

// newDocShell prepares the working directory and environment for one
// document against cluster c.
func newDocShell(t *testing.T, root string, c *framework.LocalCluster) *docShell {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch e.Name() {
		case ".kplane", "bin", "examples":
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	// examples/ is copied, not linked: `kubectl apply -f examples` walks a
	// directory, and a walk does not descend into a symlink given as its root.
	if err := os.CopyFS(filepath.Join(dir, "examples"), os.DirFS(filepath.Join(root, "examples"))); err != nil {
		t.Fatalf("copy examples/: %v", err)
	}
	bin := framework.BuildBinaries(t)
	for link, target := range map[string]string{".kplane": c.Dir, "bin": bin} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "KUBECONFIG", "PATH", "HOME", "PWD", "OLDPWD", "CDPATH", "BASH_ENV", "ENV":
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"KUBECONFIG="+filepath.Join(dir, ".kplane", "kubeconfig"),
		"PATH="+filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+c.Home, // kubectl's discovery cache, private to this cluster
		"PWD="+dir,
		"NO_COLOR=1",
	)
	// A page that builds Go (docs/write-a-controller.md builds the example
	// controller) uses the test's own build and module caches: under the
	// cluster's HOME they would start empty.
	env = append(env, goCaches(t)...)
	return &docShell{dir: dir, env: env}
}

// goCaches returns GOCACHE and GOMODCACHE as the go command of this test
// run sees them, as environment entries.
func goCaches(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		t.Fatalf("go env GOCACHE GOMODCACHE printed %q", out)
	}
	return []string{"GOCACHE=" + lines[0], "GOMODCACHE=" + lines[1]}
}

// run runs one command with bash and returns what it printed (stdout and
// stderr interleaved, as on a terminal) and its exit code.
func (s *docShell) run(text string) (string, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), docsCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", text)
	cmd.Dir, cmd.Env = s.dir, s.env
	cmd.Stdin = strings.NewReader("")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// The command runs in a process group of its own, so a timeout ends
	// everything it started (a pipeline, a background job), by group id.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0, nil
	case ctx.Err() != nil:
		return out.String(), -1, fmt.Errorf("timed out after %v", docsCommandTimeout)
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode(), nil
	default:
		return out.String(), -1, err
	}
}

// runDocBlock runs one block: its annotations, then each command, comparing
// its output with the document's.
func runDocBlock(t *testing.T, sh *docShell, b docBlock) {
	t.Helper()
	if b.skip != "" {
		t.Logf("%s:%d: block not run: %s", b.file, b.line, b.skip)
		return
	}
	for _, setup := range b.setup {
		if out, code, err := sh.run(setup); err != nil || code != 0 {
			t.Fatalf("%s:%d: docs-test setup %q failed (exit %d, %v):\n%s", b.file, b.line, setup, code, err, out)
		}
	}
	for _, wait := range b.waitFor {
		var out string
		var code int
		var err error
		for deadline := time.Now().Add(docsWaitFor); ; time.Sleep(500 * time.Millisecond) {
			out, code, err = sh.run(wait)
			if err == nil && code == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s:%d: docs-test wait-for %q did not succeed in %v; last (exit %d, %v):\n%s", b.file, b.line, wait, docsWaitFor, code, err, out)
			}
		}
	}
	for _, c := range b.commands {
		runDocCommand(t, sh, b.file, c)
	}
}

// runDocCommand runs one command (again and again while its output does not
// match, if it only reads) and fails the test with the file, line, command,
// expected and actual output when it never matches.
func runDocCommand(t *testing.T, sh *docShell, file string, c docCommand) {
	t.Helper()
	retry := readOnlyCommand(c.text)
	deadline := time.Now().Add(docsRetryFor)
	for attempt := 1; ; attempt++ {
		out, code, err := sh.run(c.text)
		actual := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if out == "" {
			actual = nil
		}
		ok, matched := outputMatches(c.expected, actual)
		if ok && err == nil {
			return
		}
		if !retry || time.Now().After(deadline) {
			what := "ran once: it changes the cluster"
			if retry {
				what = fmt.Sprintf("retried for %v, %d runs", docsRetryFor, attempt)
			}
			if err != nil {
				what += "; " + err.Error()
			}
			t.Fatalf("%s:%d: the output does not have the documented shape (%s)\n$ %s\n"+
				"--- expected (the document):\n%s\n--- actual (exit code %d):\n%s\n--- first expected line not matched: %s",
				file, c.line, what, c.text, indentLines(c.expected), code, indentLines(actual), describeLine(c.expected, matched))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// indentLines prints lines for a failure message, or "(nothing)".
func indentLines(lines []string) string {
	if len(lines) == 0 {
		return "    (nothing)"
	}
	return "    " + strings.Join(lines, "\n    ")
}

// describeLine names expected line i for a failure message.
func describeLine(expected []string, i int) string {
	if i >= len(expected) {
		return "(all matched; the actual output has more lines)"
	}
	return fmt.Sprintf("line %d %q, normalised %q", i+1, expected[i], normaliseLine(expected[i]))
}

var (
	// shellSeparatorRE splits a command line into the simple commands of
	// its pipelines and lists (including those in $(...)).
	shellSeparatorRE = regexp.MustCompile(`\|\||&&|[|;()\n]|\$\(|` + "`")
	// readOnlyVerbs are the kubectl (and ctl) verbs that only read.
	readOnlyVerbs = map[string]bool{
		"get": true, "describe": true, "events": true, "logs": true, "explain": true,
		"api-resources": true, "api-versions": true, "top": true, "version": true,
		"cluster-info": true, "status": true, "wait": true, "queues": true, "why": true,
		"proxy-rules": true,
	}
	// kubectlVerbs are the other verbs, so that flag values before the verb
	// (-n kube-system) are not taken for it.
	kubectlVerbs = map[string]bool{
		"apply": true, "create": true, "delete": true, "scale": true, "rollout": true,
		"label": true, "annotate": true, "patch": true, "edit": true, "set": true,
		"expose": true, "run": true, "cordon": true, "uncordon": true, "drain": true,
		"taint": true, "exec": true, "replace": true, "autoscale": true, "config": true,
		"up": true, "down": true, "attach": true, "port-forward": true, "proxy": true,
		"debug": true, "cp": true, "fault": true, "cloud": true, "auth": true,
	}
	// readOnlyTools are the text filters a reader pipes output into.
	readOnlyTools = map[string]bool{
		"grep": true, "head": true, "tail": true, "wc": true, "cut": true, "sort": true,
		"uniq": true, "awk": true, "tr": true, "cat": true, "echo": true, "column": true,
		"jq": true, "curl": true, "ls": true, "true": true,
	}
)

// readOnlyCommand reports whether a command only reads, so that running it
// again is harmless: every simple command in it is a read-only kubectl or
// ctl verb (`rollout status|history` and `config view|get-contexts|
// current-context` included, watches excluded) or a text filter.
func readOnlyCommand(text string) bool {
	// A backslash at the end of a line continues the command.
	text = strings.ReplaceAll(text, "\\\n", " ")
	for _, part := range shellSeparatorRE.Split(unquoted(text), -1) {
		f := strings.Fields(part)
		// Leading environment assignments (FOO=bar cmd) do not change what runs.
		for len(f) > 0 && strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "-") {
			f = f[1:]
		}
		if len(f) == 0 {
			continue
		}
		switch name := filepath.Base(f[0]); name {
		case "kubectl", "ctl":
			if !readOnlyKubectl(f[1:]) {
				return false
			}
		case "sed":
			for _, a := range f[1:] {
				if strings.HasPrefix(a, "-i") {
					return false
				}
			}
		default:
			if !readOnlyTools[name] {
				return false
			}
		}
	}
	return true
}

// unquoted blanks out what is inside single quotes (a grep pattern's `|`,
// a JSONPath), so that only the shell's own separators split a command.
// Double quotes are left alone: a $(...) inside them still runs.
func unquoted(text string) string {
	b := []byte(text)
	in := false
	for i, c := range b {
		switch {
		case c == '\'':
			in = !in
		case in:
			b[i] = '_'
		}
	}
	return string(b)
}

// readOnlyKubectl reports whether kubectl (or ctl) args only read: the
// verb (the first argument that is one) is a read-only verb, and the
// command neither watches nor follows.
func readOnlyKubectl(args []string) bool {
	verb, sub := "", ""
	for _, a := range args {
		switch {
		case a == "-w" || a == "--watch" || a == "--watch-only" || strings.HasPrefix(a, "--watch="):
			return false
		case (a == "-f" || a == "--follow" || a == "--follow=true") && verb == "logs":
			return false
		case strings.HasPrefix(a, "-"):
		case verb == "" && (readOnlyVerbs[a] || kubectlVerbs[a]):
			verb = a
		case verb != "" && sub == "":
			sub = a
		}
	}
	switch verb {
	case "rollout":
		return sub == "status" || sub == "history"
	case "config":
		return sub == "view" || sub == "get-contexts" || sub == "current-context"
	case "cloud": // ctl cloud's lists read; `ctl cloud instance …` changes a machine
		return sub == "routes" || sub == "load-balancers" || sub == "instances"
	case "auth": // can-i and whoami ask; `kubectl auth reconcile` writes
		return sub == "can-i" || sub == "whoami"
	}
	return readOnlyVerbs[verb]
}
