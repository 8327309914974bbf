package ctl

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// whoAmIOptions are the flags of `ctl auth whoami`.
type whoAmIOptions struct {
	authOptions
	output string
}

// newWhoAmICommand is `ctl auth whoami`: a SelfSubjectReview, whose answer
// is the user the apiserver authenticated the request as — after
// impersonation, with the groups and extra the authenticators added.
func newWhoAmICommand(f *factory) *cobra.Command {
	o := &whoAmIOptions{authOptions: authOptions{f: f}}
	cmd := &cobra.Command{
		Use:   "whoami",
		Short: "Experimental: Check self subject attributes",
		Long: `Print the user the apiserver authenticates you as: name, UID, groups and extra
attributes, from a SelfSubjectReview (authentication.k8s.io/v1).`,
		Example: `  # Who am I?
  ctl auth whoami

  # The same, as JSON
  ctl auth whoami -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	o.addFlags(cmd)
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "output format: json or yaml (default: a table)")
	return cmd
}

// run creates the review and prints it.
func (o *whoAmIOptions) run(cmd *cobra.Command) error {
	format, err := parseOutput(o.output, "json", "yaml")
	if err != nil {
		return err
	}
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	review := &api.SelfSubjectReview{TypeMeta: api.TypeMeta{Kind: "SelfSubjectReview", APIVersion: "authentication.k8s.io/v1"}}
	var answer map[string]any
	if err := o.create(cmd.Context(), c, "/apis/authentication.k8s.io/v1/selfsubjectreviews", review, &answer); err != nil {
		if apierrors.CodeOf(err) == http.StatusNotFound {
			// kubectl's words when the API is switched off.
			return fmt.Errorf("the selfsubjectreviews API is not enabled in the cluster: %w", err)
		}
		return err
	}
	if !format.isTable() {
		return format.printDocument(o.f.out(), answer)
	}
	raw, err := json.Marshal(answer)
	if err != nil {
		return fmt.Errorf("encode SelfSubjectReview: %w", err)
	}
	var typed api.SelfSubjectReview
	if err := json.Unmarshal(raw, &typed); err != nil {
		return fmt.Errorf("decode SelfSubjectReview: %w", err)
	}
	return printUserInfo(o.f.out(), typed.Status.UserInfo)
}

// printUserInfo prints kubectl whoami's table: username, UID, groups, then
// one row per extra key in key order; empty attributes are left out.
func printUserInfo(out io.Writer, user api.UserInfo) error {
	w := tabwriter.NewWriter(out, 6, 4, 3, ' ', 0)
	fmt.Fprintln(w, "ATTRIBUTE\tVALUE")
	if user.Username != "" {
		fmt.Fprintf(w, "Username\t%s\n", user.Username)
	}
	if user.UID != "" {
		fmt.Fprintf(w, "UID\t%s\n", user.UID)
	}
	if len(user.Groups) > 0 {
		fmt.Fprintf(w, "Groups\t[%s]\n", strings.Join(user.Groups, " "))
	}
	keys := make([]string, 0, len(user.Extra))
	for k := range user.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "Extra: %s\t[%s]\n", k, strings.Join(user.Extra[k], " "))
	}
	return w.Flush()
}
