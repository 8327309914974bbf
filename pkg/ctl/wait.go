package ctl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/ctl/jsonpath"
)

// waitOptions are the flags of `ctl wait`.
type waitOptions struct {
	f   *factory
	sel selection

	forCondition string
	timeout      time.Duration
	output       string
}

// newWaitCommand is `ctl wait`.
func newWaitCommand(f *factory) *cobra.Command {
	o := &waitOptions{f: f}
	cmd := &cobra.Command{
		Use:   "wait ([-f FILENAME] | TYPE/NAME | TYPE [(-l label | --all)]) [--for=create|--for=delete|--for=condition=NAME[=VALUE]|--for=jsonpath='{EXPR}'[=VALUE]]",
		Short: "Wait until objects reach a condition",
		Long: `wait blocks until every object named reaches what --for asks, then prints
one "condition met" line per object. It reads each object and then watches
it, so it returns as soon as the controllers have done their work:

  --for=condition=Available       status.conditions has type Available with
                                  status True (or =False, =Unknown; compared
                                  without case); a condition observed for an
                                  older generation does not count
  --for=jsonpath='{.status.phase}'=Running
                                  the expression reaches that value (no value:
                                  it reaches anything at all)
  --for=delete                    the object is gone (already gone is fine)
  --for=create                    the object exists

--timeout (30s) bounds the whole wait; 0 checks once, a negative value waits
a week.`,
		Example: `  ctl wait --for=condition=Available deployment/web --timeout=60s
  ctl wait --for=condition=Ready pod -l app=web
  ctl wait --for=jsonpath='{.status.phase}'=Succeeded pod/job-pod
  ctl delete pod/busybox --wait=false && ctl wait --for=delete pod/busybox`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&o.forCondition, "for", "", "what to wait for: create, delete, condition=NAME[=VALUE] (VALUE defaults to True) or jsonpath='{EXPR}'[=VALUE]")
	flags.DurationVar(&o.timeout, "timeout", 30*time.Second, "how long to wait before giving up; 0 checks once, negative waits a week")
	flags.StringVarP(&o.output, "output", "o", "", "print the objects instead of a message: name, yaml, json or jsonpath=TEMPLATE")
	o.sel.addFlags(flags, selectionFlags{usage: "identifying the resource", selector: true, fieldSelector: true, all: true, allNamespaces: true})
	return cmd
}

// waitCondition is a parsed --for: check says whether one version of an
// object meets it; forDelete and forCreate are the two conditions about
// existence rather than content.
type waitCondition struct {
	forDelete, forCreate bool
	check                func(obj map[string]any) (bool, error)
}

// parseWaitCondition reads --for as kubectl 1.32 does.
func parseWaitCondition(value string) (waitCondition, error) {
	lower := strings.ToLower(value)
	switch {
	case lower == "delete":
		return waitCondition{forDelete: true}, nil
	case lower == "create":
		return waitCondition{forCreate: true, check: func(map[string]any) (bool, error) { return true, nil }}, nil
	case strings.HasPrefix(value, "condition="):
		name, status, found := strings.Cut(strings.TrimPrefix(value, "condition="), "=")
		if !found {
			status = "true"
		}
		return waitCondition{check: func(obj map[string]any) (bool, error) { return conditionMet(obj, name, status), nil }}, nil
	case strings.HasPrefix(value, "jsonpath="):
		return parseJSONPathCondition(strings.TrimPrefix(value, "jsonpath="))
	}
	return waitCondition{}, fmt.Errorf("unrecognized condition: %q", value)
}

// conditionMet reports whether obj's status.conditions has a condition of
// type name (any case) with the status wanted (any case). A condition
// whose observedGeneration is older than the object's generation describes
// an older spec and is not met yet.
func conditionMet(obj map[string]any, name, status string) bool {
	st, _ := obj["status"].(map[string]any)
	conditions, _ := st["conditions"].([]any)
	for _, raw := range conditions {
		c, _ := raw.(map[string]any)
		typ, _ := c["type"].(string)
		got, hasStatus := c["status"].(string)
		if !strings.EqualFold(typ, name) || !hasStatus {
			continue
		}
		if generation, ok := nestedInteger(obj, "metadata", "generation"); ok {
			observed, ok := nestedInteger(c, "observedGeneration")
			if !ok {
				observed, ok = nestedInteger(obj, "status", "observedGeneration")
			}
			if ok && observed < generation {
				return false
			}
		}
		return strings.EqualFold(got, status)
	}
	return false
}

// parseJSONPathCondition reads --for=jsonpath=EXPR[=VALUE]. A single "="
// separates the value; "==" belongs to the expression (a filter).
func parseJSONPathCondition(input string) (waitCondition, error) {
	parts := splitOnSingleEquals(input)
	if len(parts) > 2 {
		return waitCondition{}, fmt.Errorf("jsonpath wait format must be --for=jsonpath='{.status.readyReplicas}'=3 or --for=jsonpath='{.status.readyReplicas}'")
	}
	expr, err := jsonpath.Relaxed(parts[0])
	if err != nil {
		return waitCondition{}, err
	}
	if expr == "" {
		return waitCondition{}, fmt.Errorf("jsonpath expression cannot be empty")
	}
	want, anyValue := "", len(parts) == 1
	if !anyValue {
		want = strings.Trim(parts[1], `'"`)
		if want == "" {
			return waitCondition{}, fmt.Errorf("jsonpath wait has to have a value after equal sign, like --for=jsonpath='{.status.readyReplicas}'=3")
		}
	}
	t, err := jsonpath.Parse(expr)
	if err != nil {
		return waitCondition{}, err
	}
	return waitCondition{check: func(obj map[string]any) (bool, error) {
		results, err := t.Results(obj)
		if err != nil {
			// A missing field is "not yet", as kubectl's AllowMissingKeys.
			return false, nil
		}
		var values []any
		for _, r := range results {
			values = append(values, r...)
		}
		switch {
		case len(values) == 0:
			return false, nil
		case anyValue:
			return true, nil
		case len(values) > 1:
			return false, fmt.Errorf("given jsonpath expression matches more than one value")
		}
		switch values[0].(type) {
		case map[string]any, []any:
			return false, fmt.Errorf("jsonpath leads to a nested object or list which is not supported")
		}
		return fmt.Sprint(values[0]) == want, nil
	}}, nil
}

// splitOnSingleEquals splits s at each "=" that is not part of "==".
func splitOnSingleEquals(s string) []string {
	var parts []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '=' {
			if i+1 < len(s) && s[i+1] == '=' {
				b.WriteString("==")
				i++
				continue
			}
			parts = append(parts, b.String())
			b.Reset()
			continue
		}
		b.WriteByte(s[i])
	}
	return append(parts, b.String())
}

// run is `ctl wait`.
func (o *waitOptions) run(ctx context.Context, commandPath string, args []string) error {
	out, err := parseOutput(o.output, "name", "yaml", "json")
	if err != nil {
		return err
	}
	cond, err := parseWaitCondition(o.forCondition)
	if err != nil {
		return err
	}
	if o.sel.empty(args) {
		return errNoResources
	}
	timeout := o.timeout
	if timeout < 0 {
		timeout = 7 * 24 * time.Hour
	}
	found, err := o.sel.visit(ctx, o.f, args, commandPath)
	if err != nil {
		return err
	}
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var errs []error
	for _, info := range found.infos {
		// As kubectl, every object is waited for within the one --timeout:
		// once it has passed, each object left times out at once.
		obj, err := o.waitFor(ctx, c, info, cond, timeout)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := printResult(o.f.out(), out, obj, "condition met", ""); err != nil {
			return err
		}
	}
	for _, err := range found.errs {
		// An object already gone is what --for=delete waits for.
		if !(cond.forDelete && apierrors.IsNotFound(err)) {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 && len(found.infos) == 0 && !cond.forDelete {
		return fmt.Errorf("no matching resources found")
	}
	return joinErrors(errs)
}

// waitFor waits until one object meets cond and returns the version that
// did (for --for=delete, the version read before).
func (o *waitOptions) waitFor(ctx context.Context, c *client.Client, info resourceInfo, cond waitCondition, timeout time.Duration) (map[string]any, error) {
	pluralName := info.resource.Name + "/" + info.name
	if timeout == 0 {
		// Check once, on the version read.
		if cond.forDelete {
			return info.object, fmt.Errorf("condition not met for %s", pluralName)
		}
		met, err := cond.check(info.object)
		if err != nil {
			return nil, err
		}
		if !met {
			return nil, fmt.Errorf("condition not met for %s", pluralName)
		}
		return info.object, nil
	}
	result := info.object
	check := func(obj map[string]any) (bool, error) {
		if cond.forDelete {
			return false, nil
		}
		met, err := cond.check(obj)
		if met {
			result = obj
		}
		return met || err != nil, err
	}
	gone := func(bool) (bool, error) {
		if cond.forDelete {
			return true, nil
		}
		return true, apierrors.NewNotFound(apierrors.Resource{Group: info.resource.Group, Resource: info.resource.Name}, info.name)
	}
	err := watchUntil(ctx, info.dynamic(c), info.name, check, gone)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("timed out waiting for the condition on %s", pluralName)
	}
	return result, err
}
