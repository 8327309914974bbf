package ctl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/spf13/cobra"

	"kplane/pkg/restmapper"
)

// explainOptions are the flags of `ctl explain`.
type explainOptions struct {
	f          *factory
	recursive  bool
	apiVersion string
	output     string
}

// newExplainCommand is `ctl explain`.
func newExplainCommand(f *factory) *cobra.Command {
	o := &explainOptions{f: f, output: "plaintext"}
	cmd := &cobra.Command{
		Use:   "explain TYPE[.FIELD...] [--recursive]",
		Short: "Get documentation for a resource",
		Long: `explain describes the fields of a kind, or of one field (spec.replicas,
spec.template.spec.containers), as kubectl explain does: the field's type
and description, then its own fields.

Like kubectl, it reads the OpenAPI v3 schemas the apiserver publishes: the
index at /openapi/v3, then the document of the resource's group-version
(/openapi/v3/apis/apps/v1), whose paths name the resource's kind and whose
components.schemas describe it. kplane's apiserver builds those schemas
from the Go types in pkg/api (package pkg/api/openapi): field names from
their json tags, -required- for the fields without omitempty, and
descriptions from the types' doc comments. A custom resource's schema is
its CRD's openAPIV3Schema, published in a document of its own
group-version once the CRD is established. The layout is kubectl's
plaintext template, so both print the same text.`,
		Example: `  ctl explain pods
  ctl explain deploy.spec.replicas
  ctl explain deployment.spec.template.spec.containers
  ctl explain deploy.spec --recursive
  ctl explain deployments --api-version=apps/v1`,
		ValidArgsFunction: completeResourceTypes(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.Root().Name(), args)
		},
	}
	flags := cmd.Flags()
	flags.BoolVar(&o.recursive, "recursive", false, "list the fields of the fields, all the way down, without descriptions")
	flags.StringVar(&o.apiVersion, "api-version", "", "the group/version to explain the resource in (e.g. apps/v1); default: the one the server prefers")
	flags.StringVarP(&o.output, "output", "o", o.output, "the format: plaintext")
	return cmd
}

// groupVersionResource names the resource to explain, and how kubectl's
// messages print it: "apps/v1, Resource=deployments", "/v1, Resource=pods".
type groupVersionResource struct {
	Group, Version, Resource string
}

func (r groupVersionResource) String() string {
	return r.Group + "/" + r.Version + ", Resource=" + r.Resource
}

// run is `ctl explain`.
func (o *explainOptions) run(ctx context.Context, rootName string, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("You must specify the type of resource to explain. Use \"%s api-resources\" for a complete list of supported resources.", rootName)
	}
	if len(args) > 1 {
		return fmt.Errorf("We accept only this format: explain RESOURCE")
	}
	m, err := o.f.Mapper(ctx)
	if err != nil {
		return err
	}
	gvr, fieldPath, err := parseExplainArgument(m, args[0], o.apiVersion != "")
	var noMatch *restmapper.NoResourceMatchError
	if errors.As(err, &noMatch) {
		// kubectl's CheckErr prints an unknown resource type bare, without
		// the "error: " of other errors, when the error reaches it
		// unwrapped, as it does from explain.
		fmt.Fprintln(o.f.errOut(), noMatch.Error())
		return ExitError{Code: 1}
	}
	if err != nil {
		return err
	}
	if o.apiVersion != "" {
		group, version, err := parseGroupVersion(o.apiVersion)
		if err != nil {
			return err
		}
		gvr.Group, gvr.Version = group, version
	}
	doc, err := o.fetchOpenAPIDocument(ctx, gvr)
	if err != nil {
		return err
	}
	if o.output != "plaintext" {
		return fmt.Errorf("unrecognized format: %s", o.output)
	}
	return explainResource(o.f.out(), doc, gvr, fieldPath, o.recursive)
}

// parseExplainArgument splits "deploy.spec.replicas" into the resource
// and the field path, as kubectl does: the name before the first dot is
// looked up, and when the argument starts with the resource's
// group-qualified name ("deployments.apps.spec") the group is not a field.
// With --api-version every dot separates a field.
func parseExplainArgument(m *restmapper.Mapper, arg string, withAPIVersion bool) (groupVersionResource, []string, error) {
	arg = strings.TrimSuffix(arg, ".")
	parts := strings.Split(arg, ".")
	r, err := m.ResourceFor(parts[0])
	if err != nil {
		return groupVersionResource{}, nil, err
	}
	gvr := groupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Name}
	if !withAPIVersion && strings.HasPrefix(arg, r.GroupResource()) {
		suffix := arg[len(r.GroupResource()):]
		if !strings.HasPrefix(suffix, ".") {
			return gvr, nil, nil
		}
		return gvr, strings.Split(suffix[1:], "."), nil
	}
	return gvr, parts[1:], nil
}

// parseGroupVersion reads --api-version: "apps/v1", or "v1" for the core
// group.
func parseGroupVersion(apiVersion string) (group, version string, err error) {
	switch strings.Count(apiVersion, "/") {
	case 0:
		return "", apiVersion, nil
	case 1:
		group, version, _ = strings.Cut(apiVersion, "/")
		return group, version, nil
	}
	return "", "", fmt.Errorf("unexpected GroupVersion string: %s", apiVersion)
}

// fetchOpenAPIDocument reads the OpenAPI v3 index and then the document of
// gvr's group-version, as untyped JSON (kubectl's template reads it so).
func (o *explainOptions) fetchOpenAPIDocument(ctx context.Context, gvr groupVersionResource) (map[string]any, error) {
	c, err := o.f.Client()
	if err != nil {
		return nil, err
	}
	_, body, err := c.Do(ctx, http.MethodGet, "/openapi/v3", nil, nil)
	if err != nil {
		return nil, fmt.Errorf("failed to fetch list of groupVersions: %w", err)
	}
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(body, &index); err != nil {
		return nil, fmt.Errorf("failed to fetch list of groupVersions: %w", err)
	}
	groupVersionPath := "api/" + gvr.Version
	if gvr.Group != "" {
		groupVersionPath = "apis/" + gvr.Group + "/" + gvr.Version
	}
	entry, ok := index.Paths[groupVersionPath]
	if !ok {
		return nil, fmt.Errorf("couldn't find resource for %q", gvr.String())
	}
	_, body, err = c.Do(ctx, http.MethodGet, entry.ServerRelativeURL, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("failed to fetch openapi schema for %s: %w", groupVersionPath, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("failed to parse openapi schema for %s: %w", groupVersionPath, err)
	}
	return doc, nil
}
