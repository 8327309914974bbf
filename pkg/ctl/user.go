package ctl

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"kplane/pkg/cluster"
	"kplane/pkg/kubeconfig"
	"kplane/pkg/pki"
)

// newUserCommand is `ctl user`: identities for people, for lessons on
// authorization.
func newUserCommand(streams IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "user",
		Short: "Add users with client certificates (user add NAME --group G)",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newUserAddCommand(streams))
	return cmd
}

// newUserAddCommand is `ctl user add NAME [--group G]...`.
func newUserAddCommand(streams IOStreams) *cobra.Command {
	dataDir := cluster.DefaultOptions().DataDir
	var groups []string
	cmd := &cobra.Command{
		Use:   "add NAME [--group GROUP]...",
		Short: "Issue a client certificate for a new user and write a kubeconfig for it",
		Long: `add makes a user the way an administrator of a real cluster does with
` + "`kubeadm kubeconfig user --client-name NAME`" + `: it signs a client
certificate with the cluster CA (DATA_DIR/pki/ca.key) whose subject is
CN=NAME and one O=GROUP per --group, and writes it, with the server's
address and CA, into DATA_DIR/users/NAME.kubeconfig. The apiserver reads
the user name and groups back out of the certificate; Kubernetes keeps no
list of users.

The new user can do nothing until a RoleBinding or ClusterRoleBinding
names it (or one of its groups). A certificate cannot be revoked: it stays
valid for a year, so take rights away by deleting bindings. Running add
again issues a new certificate and replaces the kubeconfig.`,
		Example: `  ctl user add alice --group dev
  kubectl --kubeconfig .kplane/users/alice.kubeconfig auth whoami`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return runUserAdd(streams.Out, dataDir, args[0], groups)
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", dataDir, "the cluster's data directory")
	cmd.Flags().StringArrayVar(&groups, "group", nil, "a group the user is in (the certificate's O); repeat for several")
	return cmd
}

// runUserAdd issues name's certificate and writes its kubeconfig.
func runUserAdd(out io.Writer, dataDir, name string, groups []string) error {
	if err := validUserName(name); err != nil {
		return err
	}
	for _, g := range groups {
		if g == "" {
			return fmt.Errorf("--group: a group name cannot be empty")
		}
	}
	path, err := writeUserKubeconfig(dataDir, name, groups)
	if err != nil {
		return err
	}
	subject := "CN=" + name
	for _, g := range groups {
		subject += ", O=" + g
	}
	fmt.Fprintf(out, "User %q added: a client certificate (%s) signed by the cluster CA.\n", name, subject)
	fmt.Fprintf(out, "Kubeconfig written to %s\n\n", path)
	fmt.Fprintf(out, "Use it with:\n  kubectl --kubeconfig %s auth whoami\nor:\n  export KUBECONFIG=%s\n\n", path, path)
	fmt.Fprintf(out, "%s can do nothing until a binding names it, for example:\n"+
		"  kubectl create rolebinding %s-view --clusterrole=view --user=%s --namespace=default\n", name, bindingName(name), name)
	return nil
}

// writeUserKubeconfig writes DATA_DIR/users/NAME.kubeconfig for a new
// certificate of name in groups, and returns its path. The server and CA
// come from the admin kubeconfig the apiserver wrote.
func writeUserKubeconfig(dataDir, name string, groups []string) (string, error) {
	admin, err := kubeconfig.Load(filepath.Join(dataDir, "kubeconfig"))
	if err != nil {
		return "", fmt.Errorf("read the cluster's admin kubeconfig (is there a cluster in %s? run `ctl up` first): %w", dataDir, err)
	}
	resolved, err := admin.Resolve("")
	if err != nil {
		return "", fmt.Errorf("admin kubeconfig: %w", err)
	}
	cert, err := pki.IssueUserCertificate(filepath.Join(dataDir, "pki"), name, groups)
	if err != nil {
		return "", err
	}
	cfg := kubeconfig.New(kubeconfig.AdminClusterName, resolved.Server, resolved.CAPEM, name, "")
	cfg.Users[0].User = kubeconfig.AuthInfo{
		ClientCertificateData: kubeconfig.Base64Bytes(cert.CertPEM),
		ClientKeyData:         kubeconfig.Base64Bytes(cert.KeyPEM),
	}
	path := filepath.Join(dataDir, "users", name+".kubeconfig")
	if err := cfg.WriteFile(path); err != nil {
		return "", fmt.Errorf("user %s: %w", name, err)
	}
	return path, nil
}

// validUserName refuses names that cannot be a certificate's CN and a
// file name at once.
func validUserName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("user name cannot be empty")
	case strings.ContainsAny(name, "/\\") || name == "." || name == "..":
		return fmt.Errorf("user name %q cannot contain a slash or be . or .. (it names the kubeconfig file)", name)
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("user name %q cannot start or end with white space", name)
	}
	return nil
}

// bindingName is a RoleBinding name made from a user name, which may hold
// characters object names may not (system:serviceaccount:…, alice@corp).
func bindingName(user string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		if r >= 'A' && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return '-'
	}, user)
}
