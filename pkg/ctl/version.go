package ctl

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"kplane/pkg/ctl/printers"
	"kplane/pkg/version"
)

// versionOutput is what `version -o yaml|json` prints: kubectl's
// version.Version without kustomizeVersion, since ctl embeds no kustomize.
type versionOutput struct {
	ClientVersion *version.Info `json:"clientVersion,omitempty"`
	ServerVersion *version.Info `json:"serverVersion,omitempty"`
}

// newVersionCommand is `ctl version`.
func newVersionCommand(f *factory) *cobra.Command {
	var clientOnly bool
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the client and server versions",
		Long: `version prints ctl's own version and the version the apiserver reports at
/version. kplane reproduces Kubernetes 1.32, so both say v1.32; kubectl
warns when it is more than one minor version away from the server.`,
		Example: `  ctl version
  ctl version --client -o json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("extra arguments: %v", args)
			}
			if output != "" && output != "yaml" && output != "json" {
				return fmt.Errorf("--output must be 'yaml' or 'json'")
			}
			return runVersion(cmd.Context(), f, clientOnly, output)
		},
	}
	cmd.Flags().BoolVar(&clientOnly, "client", false, "print the client's version only; the server is not asked")
	cmd.Flags().StringVarP(&output, "output", "o", "", "yaml or json")
	return cmd
}

// runVersion prints the versions; the client's is printed even when the
// server cannot be reached, as kubectl does.
func runVersion(ctx context.Context, f *factory, clientOnly bool, output string) error {
	clientInfo := version.Get()
	out := versionOutput{ClientVersion: &clientInfo}
	var serverErr error
	if !clientOnly {
		out.ServerVersion, serverErr = serverVersion(ctx, f)
	}
	switch output {
	case "":
		fmt.Fprintf(f.out(), "Client Version: %s\n", clientInfo.GitVersion)
		if out.ServerVersion != nil {
			fmt.Fprintf(f.out(), "Server Version: %s\n", out.ServerVersion.GitVersion)
			if warning := skewWarning(clientInfo, *out.ServerVersion); warning != "" {
				fmt.Fprintln(f.errOut(), warning)
			}
		}
	case "yaml":
		// kubectl ends the document with an empty line.
		if err := printers.PrintYAML(f.out(), out); err != nil {
			return err
		}
		fmt.Fprintln(f.out())
	case "json":
		data, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return fmt.Errorf("encode version: %w", err)
		}
		fmt.Fprintln(f.out(), string(data))
	}
	return serverErr
}

// serverVersion asks the apiserver for /version.
func serverVersion(ctx context.Context, f *factory) (*version.Info, error) {
	c, err := f.Client()
	if err != nil {
		return nil, err
	}
	_, body, err := c.Do(ctx, "GET", "/version", nil, nil)
	if err != nil {
		return nil, err
	}
	info := &version.Info{}
	if err := json.Unmarshal(body, info); err != nil {
		return nil, fmt.Errorf("decode /version: %w", err)
	}
	return info, nil
}

// skewWarning is kubectl's warning when client and server are more than
// one minor version apart (the supported kubectl skew), or "".
func skewWarning(client, server version.Info) string {
	clientMinor, err1 := strconv.Atoi(strings.TrimSuffix(client.Minor, "+"))
	serverMinor, err2 := strconv.Atoi(strings.TrimSuffix(server.Minor, "+"))
	if err1 != nil || err2 != nil || client.Major != server.Major {
		return ""
	}
	if skew := clientMinor - serverMinor; skew > 1 || skew < -1 {
		return fmt.Sprintf("WARNING: version difference between client (%s.%d) and server (%s.%d) exceeds the supported minor version skew of +/-1", client.Major, clientMinor, server.Major, serverMinor)
	}
	return ""
}
