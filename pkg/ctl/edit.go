package ctl

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/patch"
	"kplane/pkg/client"
	"kplane/pkg/ctl/printers"
)

// editOptions are the flags of `ctl edit`.
type editOptions struct {
	f   *factory
	sel selection

	output       string
	outputPatch  bool
	fieldManager string
}

// editHeader opens every file edit writes, as kubectl's does.
const editHeader = `# Please edit the object below. Lines beginning with a '#' will be ignored,
# and an empty file will abort the edit. If an error occurs while saving this file will be
# reopened with the relevant failures.
#
`

// newEditCommand is `ctl edit`.
func newEditCommand(f *factory) *cobra.Command {
	o := &editOptions{f: f}
	o.sel.listWithoutNames = true
	cmd := &cobra.Command{
		Use:   "edit (RESOURCE/NAME | -f FILENAME)",
		Short: "Edit a resource on the server",
		Long: `edit opens an object's YAML in an editor — $KUBE_EDITOR, else $EDITOR, else
vi — and, when the editor exits, sends what changed: a strategic merge
patch computed from the object as read and the object as edited (a JSON
merge patch for kinds ctl has no Go type for), as kubectl does. Only the
fields you changed travel, so a controller writing other fields meanwhile
is no conflict.

Saving the file unchanged cancels the edit ("Edit cancelled, no changes
made."), and so does saving it empty. If the server rejects the change
(an invalid value) or the YAML does not parse, the file is reopened with
the errors as comments at its top; closing it again without changes gives
up, and the file is kept in the temporary directory for you. apiVersion,
kind and name cannot be changed.

Several objects (TYPE without a name, or several names) are edited as one
v1 List.`,
		Example: `  ctl edit deploy/ng-dep
  KUBE_EDITOR="code --wait" ctl edit svc web
  ctl edit deploy/ng-dep -o json`,
		ValidArgsFunction: completeResourceTypeAndName(f, nil, true),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args)
		},
	}
	flags := cmd.Flags()
	flags.StringVarP(&o.output, "output", "o", "yaml", "the format to edit in: yaml or json")
	flags.BoolVar(&o.outputPatch, "output-patch", false, "print the patch sent for each object")
	flags.StringVar(&o.fieldManager, "field-manager", "kubectl-edit", "name of the manager recorded for the fields this command writes")
	o.sel.addFlags(flags, selectionFlags{usage: "to use to edit the resource"})
	return cmd
}

// run is `ctl edit`.
func (o *editOptions) run(ctx context.Context, commandPath string, args []string) error {
	if o.output != "yaml" && o.output != "json" {
		return fmt.Errorf("the flag 'output' must be one of yaml|json")
	}
	if o.sel.empty(args) {
		return fmt.Errorf("You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")
	}
	found, err := o.sel.visit(ctx, o.f, args, commandPath)
	if err != nil {
		return err
	}
	if len(found.errs) > 0 {
		return joinErrors(found.errs)
	}
	if len(found.infos) == 0 {
		return nil
	}
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	session := &editSession{o: o, c: c, infos: found.infos}
	return session.loop(ctx)
}

// editSession is one run of the edit loop over a set of objects.
type editSession struct {
	o     *editOptions
	c     *client.Client
	infos []resourceInfo
	// file is the temporary file, kept when the edit fails.
	file string
}

// editResults is what one attempt to save came to, as kubectl's
// editResults: the reasons to reopen the file (objects the server found
// invalid), and the failures that end the edit.
type editResults struct {
	// reasons are the comment lines that head the reopened file.
	reasons []string
	// retryable counts objects that failed for another reason (a
	// conflict, a bad request): the edit ends, the file is kept.
	retryable int
	// notFound counts objects deleted meanwhile.
	notFound int
}

// addError records one object's failure and returns the line kubectl
// prints for it at once.
func (r *editResults) addError(err error, info resourceInfo) string {
	switch {
	case apierrors.IsInvalid(err):
		r.reasons = append(r.reasons, invalidReason(info, err)...)
		return fmt.Sprintf("error: %s %q is invalid", info.resource.GroupResource(), info.name)
	case apierrors.IsNotFound(err):
		r.notFound++
		return fmt.Sprintf("error: %s %q could not be found on the server", info.resource.GroupResource(), info.name)
	}
	r.retryable++
	return fmt.Sprintf("error: %s %q could not be patched: %v", info.resource.GroupResource(), info.name, err)
}

// loop opens the editor until the change is saved, cancelled or given up
// on, as kubectl's EditOptions.Run does.
func (s *editSession) loop(ctx context.Context) error {
	original, err := s.render()
	if err != nil {
		return err
	}
	content := original
	var reasons []string // the "# …" lines of the last failed attempt
	var previous []byte  // what the user saved in the last failed attempt
	for {
		doc := []byte(editHeader + strings.Join(reasons, ""))
		doc = append(doc, content...)
		edited, err := s.launch(doc)
		if err != nil {
			return err
		}
		stripped := stripComments(edited)
		if reasons != nil && bytes.Equal(stripped, stripComments(previous)) {
			// Closed again without a change after an error: give up,
			// keeping the file.
			return s.preserved(fmt.Errorf("Edit cancelled, no valid changes were saved."))
		}
		if reasons == nil && bytes.Equal(stripped, stripComments(original)) {
			os.Remove(s.file)
			fmt.Fprintln(s.o.f.errOut(), "Edit cancelled, no changes made.")
			return nil
		}
		if len(bytes.TrimSpace(stripped)) == 0 {
			os.Remove(s.file)
			fmt.Fprintln(s.o.f.errOut(), "Edit cancelled, saved file was empty.")
			return nil
		}

		var results editResults
		// The YAML parser drops comments itself; stripping '#' lines
		// first would also drop them from block scalars (a script's
		// "#!/bin/sh"). Stripping is only a fallback for a file the
		// parser rejects, as kubectl's ManualStrip keeps "#!".
		items, err := s.parse(edited)
		if err != nil {
			if fallback, fallbackErr := s.parse(manualStrip(edited)); fallbackErr == nil {
				items, err = fallback, nil
			}
		}
		if err != nil {
			// kubectl reports a file that does not parse as an Invalid
			// error of the first object, with no field.
			invalid := apierrors.NewInvalid("", "", s.infos[0].name, apierrors.FieldErrorList{
				apierrors.Invalid("<nil>", "The edited file failed validation", err.Error())})
			fmt.Fprintln(s.o.f.errOut(), results.addError(invalid, s.infos[0]))
		} else {
			if err := s.checkIdentity(items); err != nil {
				return s.preserved(err)
			}
			if err := s.save(ctx, items, &results); err != nil {
				return s.preserved(err)
			}
		}
		switch {
		case results.retryable > 0:
			fmt.Fprintf(s.o.f.errOut(), "You can run `kubectl replace -f %s` to try this update again.\n", s.file)
			return ExitError{Code: 1}
		case results.notFound > 0:
			fmt.Fprintf(s.o.f.errOut(), "The edits you made on deleted resources have been saved to %q\n", s.file)
			return ExitError{Code: 1}
		case len(results.reasons) == 0:
			os.Remove(s.file)
			return nil
		}
		reasons, content, previous = results.reasons, stripHeader(edited), edited
	}
}

// preserved says where the user's changes are kept, and returns err.
func (s *editSession) preserved(err error) error {
	if _, statErr := os.Stat(s.file); statErr == nil {
		fmt.Fprintf(s.o.f.errOut(), "A copy of your changes has been stored to %q\n", s.file)
	}
	return err
}

// render writes the objects as they will be edited: one object, or a v1
// List of several, in YAML or JSON.
func (s *editSession) render() ([]byte, error) {
	var doc any
	if len(s.infos) == 1 {
		doc = s.infos[0].object
	} else {
		objects := make([]map[string]any, len(s.infos))
		for i, info := range s.infos {
			objects[i] = info.object
		}
		doc = printers.NewList(objects)
	}
	var buf bytes.Buffer
	var err error
	if s.o.output == "json" {
		err = printers.PrintJSON(&buf, doc)
	} else {
		err = printers.PrintYAML(&buf, doc)
	}
	return buf.Bytes(), err
}

// launch writes doc to the temporary file, runs the editor on it and reads
// the file back.
func (s *editSession) launch(doc []byte) ([]byte, error) {
	if s.file == "" {
		f, err := os.CreateTemp("", "ctl-edit-*."+s.o.output)
		if err != nil {
			return nil, fmt.Errorf("create the file to edit: %w", err)
		}
		s.file = f.Name()
		f.Close()
	}
	if err := os.WriteFile(s.file, doc, 0o600); err != nil {
		return nil, fmt.Errorf("write %s: %w", s.file, err)
	}
	if err := s.runEditor(); err != nil {
		return nil, err
	}
	edited, err := os.ReadFile(s.file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.file, err)
	}
	return edited, nil
}

// editorCommand is the editor to run, as kubectl picks it: $KUBE_EDITOR,
// else $EDITOR, else vi. An editor with arguments is split on spaces; one
// with quotes or backslashes is handed to the shell. shell reports the
// latter, where the path is appended inside the shell's command string.
func editorCommand() (args []string, shell bool) {
	editor := os.Getenv("KUBE_EDITOR")
	if editor == "" {
		editor = os.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	if !strings.Contains(editor, " ") {
		return []string{editor}, false
	}
	if !strings.ContainsAny(editor, "\"'\\") {
		return strings.Split(editor, " "), false
	}
	sh := os.Getenv("SHELL")
	if sh == "" {
		sh = "/bin/bash"
	}
	return []string{sh, "-c", editor}, true
}

// runEditor runs the editor on the file, attached to the command's
// streams (the terminal, when run from one).
func (s *editSession) runEditor() error {
	args, shell := editorCommand()
	path, err := filepath.Abs(s.file)
	if err != nil {
		path = s.file
	}
	full := append([]string{}, args...)
	if shell {
		full[len(full)-1] = fmt.Sprintf("%s %q", full[len(full)-1], path)
	} else {
		full = append(full, path)
	}
	cmd := exec.Command(full[0], full[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.o.f.in(), s.o.f.out(), s.o.f.errOut()
	if err := cmd.Run(); err != nil {
		var execErr *exec.Error
		if errors.As(err, &execErr) && errors.Is(execErr.Err, exec.ErrNotFound) {
			return fmt.Errorf("unable to launch the editor %q", strings.Join(args, " "))
		}
		return fmt.Errorf("there was a problem with the editor %q", strings.Join(args, " "))
	}
	return nil
}

// stripComments drops the lines that start with '#', as kubectl's
// cmdutil.StripComments does.
func stripComments(file []byte) []byte {
	var out bytes.Buffer
	scanner := bufio.NewScanner(bytes.NewReader(file))
	scanner.Buffer(make([]byte, 64*1024), len(file)+1)
	for scanner.Scan() {
		line := scanner.Bytes()
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			continue
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// manualStrip drops the lines that start with '#' but not "#!", as
// kubectl's cmdutil.ManualStrip does.
func manualStrip(file []byte) []byte {
	lines := bytes.SplitAfter(file, []byte("\n"))
	var out []byte
	for _, line := range lines {
		trimmed := bytes.TrimSpace(line)
		if bytes.HasPrefix(trimmed, []byte("#")) && !bytes.HasPrefix(trimmed, []byte("#!")) {
			continue
		}
		out = append(out, line...)
	}
	return out
}

// stripHeader drops the comment lines at the top of the edited file (the
// instructions and the reasons of the last failure) before it is reopened
// with new ones; comments further down are the user's and block scalars
// cannot start the file, so nothing else is touched.
func stripHeader(file []byte) []byte {
	for len(file) > 0 {
		line := file
		next := len(file)
		if i := bytes.IndexByte(file, '\n'); i >= 0 {
			line, next = file[:i], i+1
		}
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			break
		}
		file = file[next:]
	}
	return file
}

// parse reads the edited document back into objects: the object, or the
// items of the List.
func (s *editSession) parse(data []byte) ([]map[string]any, error) {
	jsonData, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "error converting YAML to JSON: "))
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(jsonData))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil || doc == nil {
		return nil, fmt.Errorf("the edited document is not an object")
	}
	doc = normalizeJSONNumbers(doc).(map[string]any)
	if len(s.infos) == 1 {
		return []map[string]any{doc}, nil
	}
	rawItems, _ := doc["items"].([]any)
	items := make([]map[string]any, 0, len(rawItems))
	for _, raw := range rawItems {
		item, ok := raw.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("a List item is not an object")
		}
		items = append(items, item)
	}
	return items, nil
}

// checkIdentity refuses edits that change which objects these are: their
// number, or any apiVersion, kind or name (kubectl's preconditions on the
// patch).
func (s *editSession) checkIdentity(items []map[string]any) error {
	if len(items) != len(s.infos) {
		return fmt.Errorf("At least one of apiVersion, kind and name was changed")
	}
	for i, item := range items {
		original := s.infos[i].object
		for _, field := range []string{"apiVersion", "kind"} {
			if item[field] != original[field] {
				return fmt.Errorf("At least one of apiVersion, kind and name was changed")
			}
		}
		if nameOf(item) != nameOf(original) {
			return fmt.Errorf("At least one of apiVersion, kind and name was changed")
		}
	}
	return nil
}

// save patches every changed object, printing "edited" for each saved
// one and recording the failures in results.
func (s *editSession) save(ctx context.Context, items []map[string]any, results *editResults) error {
	for i, item := range items {
		info := s.infos[i]
		patch, pt, err := editPatch(info, item)
		if err != nil {
			return err
		}
		if patch == nil {
			fmt.Fprintf(s.o.f.out(), "%s skipped\n", info.objectName())
			continue
		}
		if s.o.outputPatch {
			fmt.Fprintf(s.o.f.out(), "Patch: %s\n", patch)
		}
		result, err := info.dynamic(s.c).Patch(ctx, info.name, pt, patch, client.PatchOptions{FieldManager: s.o.fieldManager})
		if err != nil {
			fmt.Fprintln(s.o.f.errOut(), results.addError(err, info))
			continue
		}
		// A later round (if another object failed) starts from here.
		s.infos[i].object = result
		fmt.Fprintf(s.o.f.out(), "%s edited\n", info.objectName())
	}
	return nil
}

// editPatch is the patch from the object read to the object edited: a
// strategic merge patch for kinds ctl knows the Go type of, a JSON merge
// patch otherwise. nil means nothing changed.
func editPatch(info resourceInfo, edited map[string]any) ([]byte, client.PatchType, error) {
	if reflect.DeepEqual(info.object, edited) {
		return nil, "", nil
	}
	originalJSON, err := json.Marshal(info.object)
	if err != nil {
		return nil, "", fmt.Errorf("encode %s: %w", info.objectName(), err)
	}
	editedJSON, err := json.Marshal(edited)
	if err != nil {
		return nil, "", fmt.Errorf("encode the edited %s: %w", info.objectName(), err)
	}
	if typ := schemaFor(info.resource.Group, info.resource.Kind); typ != nil {
		// A three-way patch with current = original is the two-way patch
		// kubectl computes: additions, changes and deletions from the
		// object read to the object edited.
		body, err := patch.CreateThreeWayMergePatch(originalJSON, editedJSON, originalJSON, typ)
		if err != nil {
			return nil, "", fmt.Errorf("compute the patch of %s: %w", info.objectName(), err)
		}
		if string(body) == "{}" {
			return nil, "", nil
		}
		return body, client.StrategicMergePatchType, nil
	}
	body, err := jsonpatch.CreateMergePatch(originalJSON, editedJSON)
	if err != nil {
		return nil, "", fmt.Errorf("compute the patch of %s: %w", info.objectName(), err)
	}
	if string(body) == "{}" {
		return nil, "", nil
	}
	return body, client.MergePatchType, nil
}

// invalidReason is the comment lines for an object the server found
// invalid: its name, then one "* field: message" per cause.
func invalidReason(info resourceInfo, err error) []string {
	lines := []string{fmt.Sprintf("# %s %q was not valid:\n", info.resource.GroupResource(), info.name)}
	var status *apierrors.StatusError
	if errors.As(err, &status) && status.ErrStatus.Details != nil {
		for _, c := range status.ErrStatus.Details.Causes {
			lines = append(lines, fmt.Sprintf("# * %s: %s\n", c.Field, c.Message))
		}
	}
	return append(lines, "#\n")
}
