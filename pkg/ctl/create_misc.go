package ctl

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
)

// newCreateServiceAccountCommand is `ctl create serviceaccount NAME`.
func newCreateServiceAccountCommand(f *factory) *cobra.Command {
	var w writeFlags
	cmd := &cobra.Command{
		Use:     "serviceaccount NAME [--dry-run=server|client|none]",
		Aliases: []string{"sa"},
		Short:   "Create a service account",
		Long: `serviceaccount creates a ServiceAccount, the identity a pod's processes
use towards the apiserver: a pod names it in spec.serviceAccountName (else
it runs as "default"), and RoleBindings grant it permissions.`,
		Example: "  ctl create serviceaccount builder",
		Args:    exactlyOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			return generated(cmd.Context(), f, &w, map[string]any{
				"apiVersion": "v1", "kind": "ServiceAccount",
				"metadata": map[string]any{"name": args[0], "creationTimestamp": nil},
			}, true)
		},
	}
	w.add(cmd.Flags(), "kubectl-create")
	return cmd
}

// newCreateQuotaCommand is `ctl create quota NAME --hard=…`.
func newCreateQuotaCommand(f *factory) *cobra.Command {
	var w writeFlags
	var hard, scopes string
	cmd := &cobra.Command{
		Use:     "quota NAME [--hard=key1=value1,key2=value2] [--scopes=Scope1,Scope2] [--dry-run=server|client|none]",
		Aliases: []string{"resourcequota"},
		Short:   "Create a resource quota",
		Long: `quota creates a ResourceQuota: upper bounds on what the namespace may hold
in total (pods=10, requests.cpu=4, services=5…), checked by the apiserver's
admission at every create. --scopes narrows it to some pods (BestEffort,
NotBestEffort, Terminating, NotTerminating).`,
		Example: "  ctl create quota small --hard=pods=5,requests.cpu=2,requests.memory=2Gi",
		Args:    exactlyOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			spec := map[string]any{}
			if hard != "" {
				limits := map[string]any{}
				for _, pair := range strings.Split(hard, ",") {
					name, value, ok := strings.Cut(pair, "=")
					if !ok || name == "" || value == "" {
						return fmt.Errorf("Invalid argument syntax %s, expected <resource>=<value>", pair)
					}
					q, err := api.ParseQuantity(value)
					if err != nil {
						return fmt.Errorf("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
					}
					limits[name] = q.String()
				}
				spec["hard"] = limits
			}
			if scopes != "" {
				spec["scopes"] = stringsToAny(strings.Split(scopes, ","))
			}
			return generatedAs(cmd.Context(), f, &w, map[string]any{
				"apiVersion": "v1", "kind": "ResourceQuota",
				"metadata": map[string]any{"name": args[0], "creationTimestamp": nil},
				"spec":     spec, "status": map[string]any{},
			}, "failed to create quota", "created")
		},
	}
	cmd.Flags().StringVar(&hard, "hard", "", "the limits, resource=quantity[,resource=quantity…]")
	cmd.Flags().StringVar(&scopes, "scopes", "", "the pods the quota counts, Scope[,Scope…]")
	w.add(cmd.Flags(), "kubectl-create")
	return cmd
}
