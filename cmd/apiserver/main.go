// Command apiserver runs kplane's Kubernetes-compatible API server on an
// embedded (or external) etcd. See pkg/apiserver.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"kplane/pkg/apiserver"
	"kplane/pkg/debug"
	"kplane/pkg/serviceaccount"
)

func main() {
	opts := apiserver.DefaultOptions()
	var verbosity int
	var verbose bool
	var debugFlags debug.Flags
	cmd := &cobra.Command{
		Use:   "apiserver",
		Short: "Serve the Kubernetes API over HTTPS, storing objects in etcd",
		Long: `apiserver serves the Kubernetes REST API (the paths, verbs, watch, discovery and
Table output kubectl expects) over HTTPS with bearer-token authentication. Objects
are stored as JSON under /registry/ in an embedded etcd inside --data-dir, or in an
external etcd given with --etcd-servers. Once ready it writes an admin kubeconfig
to <data-dir>/kubeconfig:

  kubectl --kubeconfig <data-dir>/kubeconfig get namespaces`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if verbosity < 0 {
				return fmt.Errorf("--v must not be negative, got %d", verbosity)
			}
			level := slog.LevelInfo
			if verbosity >= 4 || verbose {
				level = slog.LevelDebug
			}
			opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
			// One clock for the component and its journal.
			opts.Clock, opts.Journal = debugFlags.Setup(opts.VirtualClock)
			opts.DebugEndpointFile, opts.DebugComponent = debugFlags.EndpointFile, debugFlags.Component
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			s, err := apiserver.Start(ctx, opts)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "apiserver serving on %s\nkubeconfig: %s\n", s.URL(), s.KubeconfigPath())
			<-s.Done()
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.DataDir, "data-dir", opts.DataDir, "directory for etcd data, certificates, tokens and the admin kubeconfig")
	f.StringVar(&opts.BindAddress, "bind-address", opts.BindAddress, "IP address to serve HTTPS on")
	f.IntVar(&opts.SecurePort, "secure-port", opts.SecurePort, "HTTPS port; 0 picks a free port")
	f.StringVar(&opts.AdvertiseAddress, "advertise-address", "",
		"IP address this apiserver lists in the kubernetes Service's endpoints; default --bind-address (127.0.0.1 when that is 0.0.0.0)")
	f.StringVar(&opts.EndpointReconcilerType, "endpoint-reconciler-type", opts.EndpointReconcilerType,
		"who keeps the kubernetes Service's endpoints: 'lease' (every live apiserver, through a key with a TTL in etcd) or 'none'")
	f.DurationVar(&opts.EndpointReconcilerTTL, "endpoint-reconciler-ttl", 0, "how long an apiserver stays in the kubernetes endpoints without renewing; default 15s")
	f.DurationVar(&opts.EndpointReconcilerInterval, "endpoint-reconciler-interval", 0, "how often an apiserver renews its endpoints lease; default 10s")
	_ = f.MarkHidden("endpoint-reconciler-ttl")
	_ = f.MarkHidden("endpoint-reconciler-interval")
	f.StringArrayVar(&opts.TLSSANs, "tls-san", nil,
		"an extra host name or IP address for the serving certificate (repeatable): give every apiserver behind one load balancer the same list, each apiserver's address and the balancer's")
	f.StringVar(&opts.KubeconfigServer, "kubeconfig-server", "",
		"server URL to write into <data-dir>/kubeconfig, such as a load balancer's https://127.0.0.1:6443; default this apiserver's own URL")
	f.StringSliceVar(&opts.KubeletNetworks, "kubelet-networks", nil,
		"CIDRs beyond loopback whose kubelets (by node InternalIP) the apiserver may dial for logs, exec and the node proxy, never /0 (kplane-only; default none: loopback kubelets only; the apiserver never dials its own address and port)")
	f.StringSliceVar(&opts.EtcdServers, "etcd-servers", nil, "external etcd client URLs (comma-separated); empty runs an embedded etcd in --data-dir")
	f.DurationVar(&opts.CompactionInterval, "etcd-compaction-interval", opts.CompactionInterval, "how often old etcd revisions are compacted; 0 disables")
	f.BoolVar(&opts.VirtualClock, "virtual-clock", opts.VirtualClock,
		"run on the cluster clock kept in ConfigMap kube-system/kplane-clock (created if missing), which 'ctl time advance' moves forward")
	f.StringSliceVar(&opts.AuthorizationModes, "authorization-mode", opts.AuthorizationModes,
		"authorizers asked in order after system:masters' shortcut (comma-separated): AlwaysAllow, Node, RBAC")
	f.StringArrayVar(&opts.ServiceAccountIssuers, "service-account-issuer", nil,
		"issuer of ServiceAccount tokens (repeatable: the first signs new tokens, all are accepted); default "+serviceaccount.DefaultIssuer)
	f.StringVar(&opts.ServiceAccountSigningKeyFile, "service-account-signing-key-file", "",
		"PEM RSA private key that signs ServiceAccount tokens; default <data-dir>/pki/sa.key, created at first start")
	f.StringArrayVar(&opts.ServiceAccountKeyFiles, "service-account-key-file", nil,
		"PEM file of public (or private) RSA keys that verify ServiceAccount tokens (repeatable); default <data-dir>/pki/sa.pub")
	f.DurationVar(&opts.ServiceAccountMaxTokenExpiration, "service-account-max-token-expiration", 0,
		"longest lifetime a TokenRequest gets (longer requests are shortened, with a warning); 0 means no limit")
	f.BoolVar(&opts.ServiceAccountExtendTokenExpiration, "service-account-extend-token-expiration", opts.ServiceAccountExtendTokenExpiration,
		"issue pods' 3607-second token requests as year-long tokens that warn after the hour, as upstream")
	f.StringVar(&opts.ServiceAccountJWKSURI, "service-account-jwks-uri", "",
		"jwks_uri in /.well-known/openid-configuration; default this apiserver's /openid/v1/jwks")
	f.StringSliceVar(&opts.APIAudiences, "api-audiences", nil,
		"audiences of the API (comma-separated): tokens must name one of them; default the service account issuers")
	f.IntVar(&opts.MaxRequestsInFlight, "max-requests-inflight", opts.MaxRequestsInFlight,
		"the most reads (get, list) served at once; beyond it the apiserver answers 429. Watches and other long-running requests do not count. 0 means no limit")
	f.IntVar(&opts.MaxMutatingRequestsInFlight, "max-mutating-requests-inflight", opts.MaxMutatingRequestsInFlight,
		"the most writes (create, update, patch, delete, deletecollection) served at once; beyond it the apiserver answers 429. 0 means no limit")
	f.DurationVar(&opts.RequestTimeout, "request-timeout", opts.RequestTimeout,
		"how long a request that is not long-running may take before the apiserver answers 504; a client's ?timeout= may shorten it. 0 means no limit")
	f.StringVar(&opts.AuditPolicyFile, "audit-policy-file", opts.AuditPolicyFile,
		"an audit.k8s.io/v1 Policy (YAML or JSON) choosing how much of each request the audit log records; auditing is on when this and --audit-log-path are set")
	f.StringVar(&opts.AuditLogPath, "audit-log-path", opts.AuditLogPath,
		"the audit log: one audit.k8s.io/v1 Event a line, appended; '-' writes to standard output")
	f.IntVar(&opts.AuditLogMaxAge, "audit-log-maxage", opts.AuditLogMaxAge, "days to keep rotated audit logs; 0 keeps them all")
	f.IntVar(&opts.AuditLogMaxBackups, "audit-log-maxbackup", opts.AuditLogMaxBackups, "rotated audit logs to keep; 0 keeps them all")
	f.IntVar(&opts.AuditLogMaxSize, "audit-log-maxsize", opts.AuditLogMaxSize, "size in MiB at which the audit log is rotated; 0 means the default, 100 MiB")
	debugFlags.AddFlags(f, "apiserver")
	f.IntVarP(&verbosity, "v", "v", 0, "log verbosity: 4 and above log at debug level, as on every other component")
	f.BoolVar(&verbose, "verbose", false, "log debug messages (the same as --v=4)")
	_ = f.MarkDeprecated("verbose", "use --v=4")
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
