package ctl

// `ctl auth can-i` and `ctl auth whoami`: questions about the user of the
// kubeconfig, answered by the apiserver without doing anything.
//
//   - can-i VERB RESOURCE creates a SelfSubjectAccessReview and prints
//     yes (exit 0) or no (exit 1), as kubectl does;
//   - can-i --list creates a SelfSubjectRulesReview and prints the rules
//     as kubectl's table (auth_rules.go);
//   - whoami creates a SelfSubjectReview and prints the user the request
//     was authenticated as.
//
// --as and --as-group ask the same questions about another user through
// impersonation (the Impersonate-User and Impersonate-Group headers), which
// the caller must be allowed to do. Upstream:
// staging/src/k8s.io/kubectl/pkg/cmd/auth/{cani,whoami}.go.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// authOptions are the flags the auth subcommands share.
type authOptions struct {
	f *factory
	// as and asGroups impersonate another user (kubectl's global --as and
	// --as-group; ctl takes them on the auth verbs).
	as       string
	asGroups []string
}

// addFlags registers --as and --as-group.
func (o *authOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.as, "as", "", "ask as this user (impersonation: the caller needs the impersonate verb on users)")
	cmd.Flags().StringArrayVar(&o.asGroups, "as-group", nil, "ask as a member of this group (needs --as)")
}

// create posts a review to path and decodes the answer into out.
func (o *authOptions) create(ctx context.Context, c *client.Client, path string, review, out any) error {
	if len(o.asGroups) > 0 && o.as == "" {
		return fmt.Errorf("requesting groups or user-extra for  without impersonating a user")
	}
	// The client sends one value per header, and upstream reads each
	// Impersonate-Group header as one group, so ctl takes one group.
	if len(o.asGroups) > 1 {
		return fmt.Errorf("ctl takes one --as-group (kubectl takes several)")
	}
	body, err := json.Marshal(review)
	if err != nil {
		return fmt.Errorf("encode review: %w", err)
	}
	headers := map[string]string{}
	if o.as != "" {
		headers["Impersonate-User"] = o.as
	}
	if len(o.asGroups) == 1 {
		headers["Impersonate-Group"] = o.asGroups[0]
	}
	_, answer, err := c.Do(ctx, http.MethodPost, path, body, headers)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return fmt.Errorf("decode the server's answer to %s: %w", path, err)
	}
	return nil
}

// newAuthCommand is `ctl auth`.
func newAuthCommand(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Inspect authorization",
		Long: `Inspect authorization: whether you may do something (can-i), what you may
do in a namespace (can-i --list), and who the apiserver thinks you are (whoami).`,
	}
	cmd.AddCommand(newCanICommand(f), newWhoAmICommand(f))
	return cmd
}

// canIOptions are the flags of `ctl auth can-i`.
type canIOptions struct {
	authOptions
	allNamespaces bool
	quiet         bool
	subresource   string
	list          bool
	noHeaders     bool
}

// Verbs kubectl knows; another verb is asked all the same, with a warning.
var (
	knownResourceVerbs    = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", "use", "bind", "impersonate", "*", "approve", "sign", "escalate", "attest"}
	knownNonResourceVerbs = []string{"get", "put", "post", "head", "options", "delete", "patch", "*"}
	// nonStandardResources can be named in a review though discovery does
	// not list them: the users and groups of the impersonate verb.
	nonStandardResources = []string{"users", "groups"}
)

// newCanICommand is `ctl auth can-i`.
func newCanICommand(f *factory) *cobra.Command {
	o := &canIOptions{authOptions: authOptions{f: f}}
	cmd := &cobra.Command{
		Use:   "can-i VERB [TYPE | TYPE/NAME | NONRESOURCEURL]",
		Short: "Check whether an action is allowed",
		Long: `Check whether an action is allowed: prints yes (exit code 0) or no (exit code 1).

VERB is a Kubernetes API verb (get, list, watch, create, update, patch, delete…).
TYPE is a resource type (pods, deployments.apps); NAME an object's name.
NONRESOURCEURL is a partial URL that starts with "/".
--list prints everything you may do in the namespace instead.`,
		Example: `  # May I create pods in the current namespace?
  ctl auth can-i create pods

  # May alice list deployments in kube-system? (asks as alice: impersonation)
  ctl auth can-i list deployments.apps -n kube-system --as alice

  # May I read pod logs?
  ctl auth can-i get pods --subresource=log

  # May I read /healthz?
  ctl auth can-i get /healthz

  # Everything I may do in the namespace foo
  ctl auth can-i --list -n foo`,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, args) },
	}
	o.addFlags(cmd)
	cmd.Flags().BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "check the action in all namespaces")
	cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "print nothing; the exit code says it")
	cmd.Flags().StringVar(&o.subresource, "subresource", "", "a subresource such as log (pods/log) or scale (deployments/scale)")
	cmd.Flags().BoolVar(&o.list, "list", false, "print every allowed action in the namespace")
	cmd.Flags().BoolVar(&o.noHeaders, "no-headers", false, "with --list: print the rules without the header line")
	return cmd
}

// run checks the arguments as kubectl's Complete and Validate do, then
// asks.
func (o *canIOptions) run(cmd *cobra.Command, args []string) error {
	ctx := cmd.Context()
	if o.list {
		if len(args) != 0 {
			return fmt.Errorf("list option must be specified with no arguments")
		}
		if o.quiet || o.allNamespaces || o.subresource != "" {
			return fmt.Errorf("list option can't be specified with neither quiet, all-namespaces nor subresource options")
		}
		return o.runList(ctx)
	}
	if o.noHeaders {
		return fmt.Errorf("--no-headers cannot be set without --list specified")
	}
	if len(args) != 2 {
		return usageError(cmd.CommandPath(), "you must specify two arguments: verb resource or verb resource/resourceName.")
	}
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	namespace := ""
	if !o.allNamespaces {
		if namespace, _, err = o.f.Namespace(); err != nil {
			return err
		}
	}
	verb := args[0]
	spec := api.SelfSubjectAccessReviewSpec{}
	if strings.HasPrefix(args[1], "/") {
		if o.subresource != "" {
			return fmt.Errorf("--subresource can not be used with NonResourceURL")
		}
		if !slices.Contains(knownNonResourceVerbs, verb) {
			o.warn("verb '%s' is not a known verb", verb)
		}
		spec.NonResourceAttributes = &api.NonResourceAttributes{Verb: verb, Path: args[1]}
	} else {
		resourceArg, name, _ := strings.Cut(args[1], "/")
		group, resource, namespaced := o.resourceFor(ctx, resourceArg)
		if namespaced != nil && !*namespaced && !o.allNamespaces {
			if group == "" {
				o.warn("resource '%s' is not namespace scoped", resource)
			} else {
				o.warn("resource '%s' is not namespace scoped in group '%s'", resource, group)
			}
		}
		if !slices.Contains(knownResourceVerbs, verb) {
			o.warn("verb '%s' is not a known verb", verb)
		}
		spec.ResourceAttributes = &api.ResourceAttributes{Namespace: namespace, Verb: verb, Group: group,
			Resource: resource, Subresource: o.subresource, Name: name}
	}
	review := &api.SelfSubjectAccessReview{TypeMeta: api.TypeMeta{Kind: "SelfSubjectAccessReview", APIVersion: "authorization.k8s.io/v1"}, Spec: spec}
	var answer api.SelfSubjectAccessReview
	if err := o.create(ctx, c, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", review, &answer); err != nil {
		return err
	}
	if !o.quiet {
		o.f.out().Write([]byte(canIAnswer(answer.Status)))
	}
	if !answer.Status.Allowed {
		return ExitError{Code: 1}
	}
	return nil
}

// canIAnswer is kubectl's one line: "yes", or "no" followed by the
// authorizer's reason and evaluation error when there are any.
func canIAnswer(status api.SubjectAccessReviewStatus) string {
	if status.Allowed {
		return "yes\n"
	}
	line := "no"
	if status.Reason != "" {
		line += " - " + status.Reason
	}
	if status.EvaluationError != "" {
		line += " - " + status.EvaluationError
	}
	return line + "\n"
}

// resourceFor maps the user's resource argument onto a group and plural
// through discovery, as kubectl's resourceFor: "deploy" is deployments in
// apps. A name discovery does not know is asked about as typed, with a
// warning (users and groups, which only impersonation uses, without one).
// namespaced is nil when discovery did not say.
func (o *canIOptions) resourceFor(ctx context.Context, arg string) (group, resource string, namespaced *bool) {
	if arg == "*" {
		return "", arg, nil
	}
	mapper, err := o.f.Mapper(ctx)
	if err == nil {
		if r, err := mapper.ResourceFor(arg); err == nil {
			return r.Group, r.Name, &r.Namespaced
		}
	}
	resource, group, _ = strings.Cut(strings.ToLower(arg), ".")
	if !slices.Contains(nonStandardResources, strings.ToLower(arg)) {
		if group == "" {
			o.warn("the server doesn't have a resource type '%s'", resource)
		} else {
			o.warn("the server doesn't have a resource type '%s' in group '%s'", resource, group)
		}
	}
	return "", arg, nil
}

// warn prints a warning on stderr, as kubectl's warning printer does.
func (o *canIOptions) warn(format string, args ...any) {
	fmt.Fprintf(o.f.errOut(), "Warning: "+format+"\n", args...)
}

// runList is `can-i --list`: the SelfSubjectRulesReview's rules as a table.
func (o *canIOptions) runList(ctx context.Context) error {
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	namespace, _, err := o.f.Namespace()
	if err != nil {
		return err
	}
	review := &api.SelfSubjectRulesReview{TypeMeta: api.TypeMeta{Kind: "SelfSubjectRulesReview", APIVersion: "authorization.k8s.io/v1"},
		Spec: api.SelfSubjectRulesReviewSpec{Namespace: namespace}}
	var answer api.SelfSubjectRulesReview
	if err := o.create(ctx, c, "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", review, &answer); err != nil {
		return err
	}
	if answer.Status.Incomplete {
		// kubectl prints this one without a newline of its own.
		o.warn("the list may be incomplete: %v", answer.Status.EvaluationError)
	}
	return printRules(o.f.out(), answer.Status, !o.noHeaders)
}
