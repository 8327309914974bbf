package ctl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/ctl/printers"
)

// diffOptions are the flags of `ctl diff`.
type diffOptions struct {
	f            *factory
	filenames    []string
	recursive    bool
	fieldManager string
}

// newDiffCommand is `ctl diff`.
func newDiffCommand(f *factory) *cobra.Command {
	o := &diffOptions{f: f}
	cmd := &cobra.Command{
		Use:   "diff -f FILENAME",
		Short: "Show what `apply -f` would change, without changing it",
		Long: `diff shows, as a unified diff, how each object of the files would change if
they were applied. For each object it writes two YAML files: the live object
(in a LIVE-… directory; empty when the object does not exist yet) and the
object as the server would store it after the apply (in MERGED-…), which the
server computes itself in a dry run — so its defaults, admission and
validation show in the diff. Then it runs ` + "`diff -u -N LIVE MERGED`" + `, or the
program in $KUBECTL_EXTERNAL_DIFF. Secret values are masked.

Exit status: 0 when nothing would change, 1 when something would, 2 or more
when the diff could not be made.`,
		Example: `  ctl diff -f examples/nginx-dep.yaml
  KUBECTL_EXTERNAL_DIFF="colordiff -N -u" ctl diff -f examples/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := o.run(cmd.Context())
			var exit ExitError
			if err == nil || errors.As(err, &exit) {
				return err
			}
			// kubectl's CheckDiffErr: a failure to make the diff exits 2
			// (1 means "there are differences").
			printError(f.errOut(), err)
			return ExitError{Code: 2}
		},
	}
	cmd.Flags().StringSliceVarP(&o.filenames, "filename", "f", nil, "files, directories or - (stdin) with the objects to diff")
	cmd.Flags().BoolVarP(&o.recursive, "recursive", "R", false, "process the directories given with -f recursively")
	cmd.Flags().StringVar(&o.fieldManager, "field-manager", "kubectl-client-side-apply", "name of the manager the dry-run apply writes as")
	return cmd
}

// run is `ctl diff`.
func (o *diffOptions) run(ctx context.Context) error {
	if len(o.filenames) == 0 {
		return errNoFilenames
	}
	m, err := o.f.Mapper(ctx)
	if err != nil {
		return err
	}
	objects, readErrs := readFileObjects(o.f, m, o.filenames, o.recursive, true)
	if len(readErrs) > 0 {
		return joinErrors(readErrs)
	}
	liveDir, err := os.MkdirTemp("", "LIVE-")
	if err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	defer os.RemoveAll(liveDir)
	mergedDir, err := os.MkdirTemp("", "MERGED-")
	if err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	defer os.RemoveAll(mergedDir)

	for _, obj := range objects {
		live, merged, err := o.versions(ctx, obj)
		if err != nil {
			return err
		}
		if obj.resource.Version == "v1" && obj.resource.Group == "" && obj.resource.Kind == "Secret" {
			maskSecretData(live, merged)
		}
		name := diffFileName(obj)
		if err := writeDiffFile(filepath.Join(liveDir, name), live); err != nil {
			return err
		}
		if err := writeDiffFile(filepath.Join(mergedDir, name), merged); err != nil {
			return err
		}
	}
	return runDiffProgram(o.f, liveDir, mergedDir)
}

// versions returns the live object (nil when it does not exist) and the
// object as apply would leave it, from a server dry run of the create or of
// apply's patch.
func (o *diffOptions) versions(ctx context.Context, obj fileObject) (map[string]any, map[string]any, error) {
	c, err := o.f.Client()
	if err != nil {
		return nil, nil, err
	}
	dyn := c.Dynamic(obj.resource.Client()).Namespace(obj.namespace)
	live, err := dyn.Get(ctx, obj.name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		merged, err := dyn.Create(ctx, obj.object, client.CreateOptions{DryRun: true, FieldManager: o.fieldManager})
		return nil, merged, err
	}
	if err != nil {
		return nil, nil, err
	}
	// As kubectl's diff, the file without a last-applied annotation of
	// its own: the diff shows the user's changes, not apply's bookkeeping.
	// (kubectl's GetModifiedConfiguration without annotate: annotations
	// present, possibly empty, so the patch keeps the live ones).
	local := deepCopyObject(obj.object)
	if _, err := setLastApplied(local); err != nil {
		return nil, nil, err
	}
	delete(local["metadata"].(map[string]any)["annotations"].(map[string]any), lastAppliedAnnotation)
	modified, err := json.Marshal(local)
	if err != nil {
		return nil, nil, fmt.Errorf("encode %s: %w", obj.name, err)
	}
	body, err := applyPatch(live, modified, schemaFor(obj.resource.Group, obj.resource.Kind))
	if err != nil {
		return nil, nil, err
	}
	if string(body) == "{}" {
		return live, live, nil
	}
	merged, err := dyn.Patch(ctx, obj.name, client.StrategicMergePatchType, body, client.PatchOptions{DryRun: true, FieldManager: o.fieldManager})
	return live, merged, err
}

// diffFileName names an object's file as kubectl does:
// [group.]version.Kind.namespace.name.
func diffFileName(obj fileObject) string {
	name := fmt.Sprintf("%s.%s.%s.%s", obj.resource.Version, obj.resource.Kind, obj.namespace, obj.name)
	if obj.resource.Group != "" {
		name = obj.resource.Group + "." + name
	}
	return name
}

// writeDiffFile writes obj as YAML (an absent object as an empty file),
// without managedFields, which kubectl's diff hides by default.
func writeDiffFile(path string, obj map[string]any) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	defer f.Close()
	if obj == nil {
		return nil
	}
	if meta, ok := obj["metadata"].(map[string]any); ok {
		delete(meta, "managedFields")
	}
	return printers.PrintYAML(f, obj)
}

// Masks of Secret values, kubectl's: equal values look equal, changed ones
// differ by a suffix, and no value is printed.
const (
	secretMask       = "***"
	secretMaskBefore = "*** (before)"
	secretMaskAfter  = "*** (after)"
)

// maskSecretData hides the values of two versions of a Secret.
func maskSecretData(live, merged map[string]any) {
	from, _ := live["data"].(map[string]any)
	to, _ := merged["data"].(map[string]any)
	for k, v := range from {
		if w, ok := to[k]; ok && w != v {
			from[k], to[k] = secretMaskBefore, secretMaskAfter
			continue
		} else if ok {
			to[k] = secretMask
		}
		from[k] = secretMask
	}
	for k := range to {
		if _, ok := from[k]; !ok {
			to[k] = secretMask
		}
	}
}

// externalDiffArg is what an argument of $KUBECTL_EXTERNAL_DIFF may
// contain; others are dropped, as kubectl drops them.
var externalDiffArg = regexp.MustCompile(`^[a-zA-Z0-9-=]+$`)

// runDiffProgram runs `diff -u -N` (or $KUBECTL_EXTERNAL_DIFF) on the two
// directories; its exit status becomes ctl's.
func runDiffProgram(f *factory, from, to string) error {
	program, args := "diff", []string{"-u", "-N"}
	if external := os.Getenv("KUBECTL_EXTERNAL_DIFF"); external != "" {
		words := strings.Split(external, " ")
		program, args = words[0], nil
		for _, w := range words[1:] {
			if externalDiffArg.MatchString(w) {
				args = append(args, w)
			} else {
				fmt.Fprintf(f.errOut(), "Warning: invalid argument is ignored: %s, only Alphanumeric (case-insensitive), dash and equal are allowed\n", w)
			}
		}
	}
	cmd := exec.Command(program, append(args, from, to)...)
	cmd.Stdout, cmd.Stderr = f.out(), f.errOut()
	err := cmd.Run()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return ExitError{Code: exitErr.ExitCode()}
	}
	if err != nil {
		return fmt.Errorf("failed to run %q: %v", program, err)
	}
	return nil
}
