package ctl

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/spf13/cobra"
)

// newAPIVersionsCommand is `ctl api-versions`.
func newAPIVersionsCommand(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "api-versions",
		Short: "Print the API versions the server serves, as group/version",
		Long: `api-versions lists every group/version the apiserver serves, one per line
and sorted: v1 for the core group, then apps/v1, batch/v1… Each line is what
an object's apiVersion field may say. It reads the legacy discovery
documents (/api and /apis), which list every version of a group, not only
the preferred one.`,
		Example: "  ctl api-versions",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError(cmd.CommandPath(), "unexpected arguments: %v", args)
			}
			versions, err := serverGroupVersions(cmd.Context(), f)
			if err != nil {
				return err
			}
			for _, v := range versions {
				fmt.Fprintln(f.out(), v)
			}
			return nil
		},
	}
}

// serverGroupVersions returns the sorted group/versions of /api and /apis.
func serverGroupVersions(ctx context.Context, f *factory) ([]string, error) {
	c, err := f.Client()
	if err != nil {
		return nil, err
	}
	accept := map[string]string{"Accept": "application/json"}
	_, body, err := c.Do(ctx, "GET", "/api", nil, accept)
	if err != nil {
		return nil, err
	}
	var core struct {
		Versions []string `json:"versions"`
	}
	if err := json.Unmarshal(body, &core); err != nil {
		return nil, fmt.Errorf("decode /api: %w", err)
	}
	_, body, err = c.Do(ctx, "GET", "/apis", nil, accept)
	if err != nil {
		return nil, err
	}
	var groups struct {
		Groups []struct {
			Versions []struct {
				GroupVersion string `json:"groupVersion"`
			} `json:"versions"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(body, &groups); err != nil {
		return nil, fmt.Errorf("decode /apis: %w", err)
	}
	out := core.Versions
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			out = append(out, v.GroupVersion)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
