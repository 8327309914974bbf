package ctl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/bootstraptoken"
	"kplane/pkg/client"
	"kplane/pkg/humanize"
	"kplane/pkg/kubeconfig"
)

// newTokenCommand is `ctl token`, kubeadm token's create, list and delete:
// bootstrap tokens for joining nodes (docs/join-nodes.md).
func newTokenCommand(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Create, list and delete the bootstrap tokens nodes join with",
		Long: `A bootstrap token "<id>.<secret>" lets a new node discover the cluster and ask
for its kubelet's client certificate (ctl join). It is a Secret
kube-system/bootstrap-token-<id> of type bootstrap.kubernetes.io/token;
the tokencleaner controller deletes it when it expires.`,
	}
	cmd.AddCommand(newTokenCreateCommand(f), newTokenListCommand(f), newTokenDeleteCommand(f))
	return cmd
}

// tokenCreateOptions are `ctl token create`'s flags, kubeadm's defaults.
type tokenCreateOptions struct {
	ttl              time.Duration
	description      string
	usages           []string
	groups           []string
	printJoinCommand bool
}

func newTokenCreateCommand(f *factory) *cobra.Command {
	o := tokenCreateOptions{}
	cmd := &cobra.Command{
		Use:   "create [TOKEN]",
		Short: "Create a bootstrap token and print it (or the join command)",
		Long: `create makes a bootstrap token, a random one unless TOKEN ("<6 of [a-z0-9]>.<16 of
[a-z0-9]>") is given, and prints it. With --print-join-command it prints the
whole ctl join command instead, with the server and the pin of the cluster
CA's public key (--discovery-token-ca-cert-hash).

If kube-public/cluster-info does not exist yet, create publishes it (the
server and CA of your kubeconfig), as kubeadm init does; the bootstrapsigner
controller then signs it with every signing token.`,
		Example: `  ctl token create
  ctl token create --ttl 2h --print-join-command`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runTokenCreate(cmd.Context(), f, o, args) },
	}
	fl := cmd.Flags()
	fl.DurationVar(&o.ttl, "ttl", bootstraptoken.DefaultTTL, "how long the token is valid; 0 means it never expires")
	fl.StringVar(&o.description, "description", "", "a human-readable note on what the token is for")
	fl.StringSliceVar(&o.usages, "usages", []string{"signing", "authentication"}, "how the token may be used: signing (cluster-info) and/or authentication")
	fl.StringSliceVar(&o.groups, "groups", []string{bootstraptoken.DefaultNodeGroup}, "extra groups the token authenticates with; each must start with system:bootstrappers:")
	fl.BoolVar(&o.printJoinCommand, "print-join-command", false, "print the full ctl join command instead of the token")
	return cmd
}

func runTokenCreate(ctx context.Context, f *factory, o tokenCreateOptions, args []string) error {
	for _, u := range o.usages {
		if u != "signing" && u != "authentication" {
			return fmt.Errorf("--usages: %q is not a bootstrap token usage (signing, authentication)", u)
		}
	}
	for _, g := range o.groups {
		if err := bootstraptoken.ValidateGroup(g); err != nil {
			return fmt.Errorf("--groups: %w", err)
		}
	}
	if o.ttl < 0 {
		return errors.New("--ttl must not be negative")
	}
	var token bootstraptoken.Token
	var err error
	if len(args) == 1 {
		if token, err = bootstraptoken.Parse(args[0]); err != nil {
			return err
		}
	} else if token, err = bootstraptoken.Generate(); err != nil {
		return err
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	server, caPEM, err := f.clusterCA()
	if err != nil {
		return err
	}
	if err := ensureClusterInfo(ctx, c, server, caPEM); err != nil {
		return err
	}
	secret := bootstraptoken.NewSecret(token, bootstraptoken.Options{TTL: o.ttl, Description: o.description,
		Usages: o.usages, Groups: o.groups}, time.Now())
	if _, err := c.Secrets(bootstraptoken.SecretNamespace).Create(ctx, secret, client.CreateOptions{}); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("a bootstrap token with id %q already exists", token.ID)
		}
		return fmt.Errorf("create bootstrap token: %w", err)
	}
	if !o.printJoinCommand {
		fmt.Fprintln(f.out(), token.String())
		return nil
	}
	hashes, err := bootstraptoken.CAHashes(caPEM)
	if err != nil {
		return fmt.Errorf("the kubeconfig's certificate authority: %w", err)
	}
	line := "ctl join " + server + " --token " + token.String()
	for _, h := range hashes {
		line += " --discovery-token-ca-cert-hash " + h
	}
	fmt.Fprintln(f.out(), line)
	return nil
}

// clusterCA is the server and CA of the kubeconfig in use: what
// cluster-info publishes and the join command pins.
func (f *factory) clusterCA() (server string, caPEM []byte, err error) {
	path := f.kubeconfigPath()
	if path == "" {
		return "", nil, errNoKubeconfig
	}
	cfg, err := kubeconfig.Load(path)
	if err != nil {
		return "", nil, err
	}
	resolved, err := cfg.Resolve(f.contextFlag)
	if err != nil {
		return "", nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	if len(resolved.CAPEM) == 0 {
		return "", nil, fmt.Errorf("kubeconfig %s names no certificate authority: a joining node could not pin it", path)
	}
	if _, err := url.Parse(resolved.Server); err != nil {
		return "", nil, fmt.Errorf("kubeconfig %s: server: %w", path, err)
	}
	return resolved.Server, resolved.CAPEM, nil
}

// ensureClusterInfo publishes kube-public/cluster-info when it is missing.
func ensureClusterInfo(ctx context.Context, c *client.Client, server string, caPEM []byte) error {
	cm, err := bootstraptoken.NewClusterInfo(server, caPEM)
	if err != nil {
		return err
	}
	_, err = c.ConfigMaps(bootstraptoken.ClusterInfoNamespace).Create(ctx, cm, client.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("publish %s/%s: %w", bootstraptoken.ClusterInfoNamespace, bootstraptoken.ClusterInfoName, err)
	}
	return nil
}

func newTokenListCommand(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the bootstrap tokens",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := f.Client()
			if err != nil {
				return err
			}
			secrets, err := c.Secrets(bootstraptoken.SecretNamespace).List(cmd.Context(),
				client.ListOptions{FieldSelector: "type=" + string(bootstraptoken.SecretType)})
			if err != nil {
				return fmt.Errorf("list bootstrap tokens: %w", err)
			}
			printTokens(f.out(), secrets.Items, time.Now())
			return nil
		},
	}
}

// printTokens prints kubeadm token list's table: TOKEN TTL EXPIRES USAGES
// DESCRIPTION EXTRA GROUPS, one line per well-formed token Secret.
func printTokens(out io.Writer, secrets []*api.Secret, now time.Time) {
	w := tabwriter.NewWriter(out, 10, 4, 3, ' ', 0)
	fmt.Fprintln(w, "TOKEN\tTTL\tEXPIRES\tUSAGES\tDESCRIPTION\tEXTRA GROUPS")
	for _, s := range secrets {
		token, err := bootstraptoken.Parse(string(s.Data[bootstraptoken.KeyTokenID]) + "." + string(s.Data[bootstraptoken.KeyTokenSecret]))
		if err != nil || s.Name != bootstraptoken.SecretName(token.ID) {
			continue // kubeadm skips Secrets that are not well-formed tokens
		}
		ttl, expires := "<forever>", "<never>"
		if t, ok := bootstraptoken.Expiration(s); ok {
			expires = t.UTC().Format(time.RFC3339)
			ttl = "<invalid>"
			if t.After(now) {
				ttl = humanize.Duration(t.Sub(now))
			}
		}
		var usages []string
		for _, u := range []string{"authentication", "signing"} {
			if string(s.Data["usage-bootstrap-"+u]) == "true" {
				usages = append(usages, u)
			}
		}
		slices.Sort(usages)
		description := string(s.Data[bootstraptoken.KeyDescription])
		if description == "" {
			description = "<none>"
		}
		groups := string(s.Data[bootstraptoken.KeyExtraGroups])
		if groups == "" {
			groups = "<none>"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", token, ttl, expires, orNoneList(usages), description, groups)
	}
	w.Flush()
}

func newTokenDeleteCommand(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "delete TOKEN_ID|TOKEN ...",
		Short: "Delete bootstrap tokens by id or whole token",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := f.Client()
			if err != nil {
				return err
			}
			for _, arg := range args {
				id, err := tokenIDOf(arg)
				if err != nil {
					return err
				}
				err = c.Secrets(bootstraptoken.SecretNamespace).Delete(cmd.Context(), bootstraptoken.SecretName(id), client.DeleteOptions{})
				if apierrors.IsNotFound(err) {
					return fmt.Errorf("bootstrap token %q not found", id)
				}
				if err != nil {
					return fmt.Errorf("delete bootstrap token %q: %w", id, err)
				}
				fmt.Fprintf(f.out(), "bootstrap token %q deleted\n", id)
			}
			return nil
		},
	}
}

// tokenIDOf is the id `ctl token delete` deletes for arg, an id or a
// whole token. Its error does not repeat arg: that may be a whole token,
// secret included, and errors end up in terminals and logs.
func tokenIDOf(arg string) (string, error) {
	if t, err := bootstraptoken.Parse(arg); err == nil {
		return t.ID, nil
	}
	if !bootstraptoken.ValidID(arg) {
		return "", errors.New("an argument is neither a token id nor a token: want [a-z0-9]{6} or [a-z0-9]{6}.[a-z0-9]{16}")
	}
	return arg, nil
}
