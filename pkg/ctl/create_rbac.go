package ctl

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"kplane/pkg/restmapper"
)

// rbacGroupVersion is the API version of Roles and RoleBindings.
const rbacGroupVersion = "rbac.authorization.k8s.io/v1"

// standardResourceVerbs are the verbs the apiserver's authorizer knows for
// resources; kubectl warns about any other (it may be a custom verb, so it
// is allowed).
var standardResourceVerbs = []string{"*", "get", "delete", "list", "create", "update", "patch", "watch", "proxy", "deletecollection", "use", "bind", "escalate", "impersonate"}

// newCreateRoleCommand is `ctl create role NAME --verb=… --resource=…`.
func newCreateRoleCommand(f *factory) *cobra.Command {
	var w writeFlags
	var verbs, resources, resourceNames []string
	cmd := &cobra.Command{
		Use:   "role NAME --verb=verb --resource=resource.group/subresource [--resource-name=resourcename] [--dry-run=server|client|none]",
		Short: "Create a role with rules for one namespace",
		Long: `role creates a Role: permission to use --verb on --resource (a type as
` + "`ctl get`" + ` takes it, resource.group for other groups, /subresource for
one of its subresources) in the Role's namespace, optionally only on the
objects --resource-name names. A RoleBinding gives the Role to users,
groups or service accounts. One rule is made per API group.`,
		Example: `  ctl create role pod-reader --verb=get,list,watch --resource=pods,pods/log
  ctl create role scaler --verb=patch --resource=deployments.apps/scale`,
		Args: exactlyOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(verbs) == 0 {
				return fmt.Errorf("at least one verb must be specified")
			}
			if len(resources) == 0 {
				return fmt.Errorf("at least one resource must be specified")
			}
			for _, v := range verbs {
				if !slices.Contains(standardResourceVerbs, v) {
					fmt.Fprintf(f.errOut(), "Warning: '%s' is not a standard resource verb\n", v)
				}
			}
			rules, err := roleRules(cmd, f, verbs, resources, resourceNames)
			if err != nil {
				return err
			}
			return generated(cmd.Context(), f, &w, map[string]any{
				"apiVersion": rbacGroupVersion, "kind": "Role",
				"metadata": map[string]any{"name": args[0], "creationTimestamp": nil},
				"rules":    rules,
			}, false)
		},
	}
	cmd.Flags().StringSliceVar(&verbs, "verb", nil, "verbs the rule allows: get, list, watch, create, update, patch, delete… (repeat or separate with commas)")
	cmd.Flags().StringSliceVar(&resources, "resource", nil, "resources the rule covers: pods, deployments.apps, pods/log… (repeat or separate with commas)")
	cmd.Flags().StringArrayVar(&resourceNames, "resource-name", nil, "an object name the rule is limited to; repeat for more")
	w.add(cmd.Flags(), "kubectl-create")
	return cmd
}

// roleRules resolves each --resource against discovery and makes one
// PolicyRule per API group, groups in order, resources in the order given.
func roleRules(cmd *cobra.Command, f *factory, verbs, resources, resourceNames []string) ([]any, error) {
	m, err := f.Mapper(cmd.Context())
	if err != nil {
		return nil, err
	}
	byGroup := map[string][]string{}
	var groups []string
	for _, spec := range resources {
		typ, subresource, hasSub := strings.Cut(spec, "/")
		group, resource := "", typ
		if typ != "*" {
			r, err := m.ResourceFor(typ)
			var noMatch *restmapper.NoResourceMatchError
			if errors.As(err, &noMatch) {
				// kubectl prints the mapper's own error, which its
				// CheckErr words without "error: ".
				fmt.Fprintln(f.errOut(), noMatch.Error())
				return nil, ExitError{Code: 1}
			}
			if err != nil {
				return nil, err
			}
			group, resource = r.Group, r.Name
		}
		if hasSub {
			resource += "/" + subresource
		}
		if _, seen := byGroup[group]; !seen {
			groups = append(groups, group)
		}
		if !slices.Contains(byGroup[group], resource) {
			byGroup[group] = append(byGroup[group], resource)
		}
	}
	slices.Sort(groups)
	var rules []any
	for _, g := range groups {
		rule := map[string]any{
			"apiGroups": []any{g},
			"resources": stringsToAny(byGroup[g]),
			"verbs":     stringsToAny(verbs),
		}
		if len(resourceNames) > 0 {
			rule["resourceNames"] = stringsToAny(resourceNames)
		}
		rules = append(rules, rule)
	}
	return rules, nil
}

// newCreateRoleBindingCommand is `ctl create rolebinding NAME
// --role=…|--clusterrole=… --user=… --group=… --serviceaccount=…`.
func newCreateRoleBindingCommand(f *factory) *cobra.Command {
	var w writeFlags
	var role, clusterRole string
	var users, groups, serviceAccounts []string
	cmd := &cobra.Command{
		Use:   "rolebinding NAME --clusterrole=NAME|--role=NAME [--user=username] [--group=groupname] [--serviceaccount=namespace:serviceaccountname] [--dry-run=server|client|none]",
		Short: "Give a role to users, groups or service accounts in one namespace",
		Long: `rolebinding creates a RoleBinding: the subjects (--user, --group,
--serviceaccount=NAMESPACE:NAME) get, in this namespace, the permissions of
a Role (--role) or of a ClusterRole (--clusterrole, such as view or edit).`,
		Example: `  ctl create rolebinding read-pods --role=pod-reader --user=alice
  ctl create rolebinding ci-view --clusterrole=view --serviceaccount=ci:builder`,
		Args: exactlyOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (role == "") == (clusterRole == "") {
				return fmt.Errorf("exactly one of clusterrole or role must be specified")
			}
			roleRef := map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role}
			if clusterRole != "" {
				roleRef["kind"], roleRef["name"] = "ClusterRole", clusterRole
			}
			var subjects []any
			for _, u := range users {
				subjects = append(subjects, map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": u})
			}
			for _, g := range groups {
				subjects = append(subjects, map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": g})
			}
			for _, sa := range serviceAccounts {
				namespace, name, ok := strings.Cut(sa, ":")
				if !ok || namespace == "" || name == "" || strings.Contains(name, ":") {
					return fmt.Errorf("serviceaccount must be <namespace>:<name>")
				}
				subjects = append(subjects, map[string]any{"kind": "ServiceAccount", "namespace": namespace, "name": name})
			}
			obj := map[string]any{
				"apiVersion": rbacGroupVersion, "kind": "RoleBinding",
				"metadata": map[string]any{"name": args[0], "creationTimestamp": nil},
				"roleRef":  roleRef,
			}
			if len(subjects) > 0 {
				obj["subjects"] = subjects
			}
			return generated(cmd.Context(), f, &w, obj, true)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&role, "role", "", "the Role to give")
	flags.StringVar(&clusterRole, "clusterrole", "", "the ClusterRole to give, within this namespace")
	flags.StringArrayVar(&users, "user", nil, "a user to give it to; repeat for more")
	flags.StringArrayVar(&groups, "group", nil, "a group to give it to; repeat for more")
	flags.StringArrayVar(&serviceAccounts, "serviceaccount", nil, "a service account to give it to, NAMESPACE:NAME; repeat for more")
	w.add(flags, "kubectl-create")
	return cmd
}
