package ctl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/bootstraptoken"
	"kplane/pkg/join"
)

// KubeletKubeconfigFileName is the file `ctl join` writes in its data dir:
// the kubelet's kubeconfig with the node's client certificate (kubeadm's
// /etc/kubernetes/kubelet.conf).
const KubeletKubeconfigFileName = "kubelet.kubeconfig"

// joinOptions are `ctl join`'s flags, kubeadm join's names and defaults.
type joinOptions struct {
	token               string
	caCertHashes        []string
	unsafeSkipCAVerify  bool
	nodeName            string
	dataDir             string
	printOnly           bool
	kubeletBinary       string
	discoveryTimeout    time.Duration
	tlsBootstrapTimeout time.Duration
}

// newJoinCommand is `ctl join`: kubeadm join's token discovery and the
// kubelet's TLS bootstrap, then the kubelet (docs/join-nodes.md).
func newJoinCommand(streams IOStreams) *cobra.Command {
	o := joinOptions{}
	cmd := &cobra.Command{
		Use:   "join [https://]HOST:PORT --token ID.SECRET --discovery-token-ca-cert-hash sha256:HEX --node-name NAME [-- KUBELET_FLAGS...]",
		Short: "Join this machine to a cluster as a node, as kubeadm join does",
		Long: `join makes this machine a node of the cluster at HOST:PORT:

 1. Discovery: it reads kube-public/cluster-info without trusting the server
    yet, checks the signature the bootstrapsigner made with the token, and
    checks the CA in it against --discovery-token-ca-cert-hash. Then it reads
    it again over TLS checked against that CA.
 2. TLS bootstrap: authenticated by the token, it asks for a client
    certificate for system:node:NAME with a new key (a
    CertificateSigningRequest the csrapproving controller approves and the
    csrsigning controller issues) and writes DATA_DIR/kubelet.kubeconfig.
 3. It runs the kubelet (exec, so it keeps this process's id) with
    --kubeconfig DATA_DIR/kubelet.kubeconfig --node-name NAME and any flags
    after "--". With --print-only it stops after step 2.

` + "`ctl token create --print-join-command`" + ` on the control plane prints the command.`,
		Example: `  ctl join https://10.0.0.1:6443 --token abcdef.0123456789abcdef \
    --discovery-token-ca-cert-hash sha256:1234...cdef --node-name worker-1 -- --runtime simulated`,
		RunE: func(cmd *cobra.Command, args []string) error {
			positional, kubeletArgs := args, []string(nil)
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				positional, kubeletArgs = args[:dash], args[dash:]
			}
			if len(positional) != 1 {
				return errors.New("give the apiserver's address: ctl join [https://]HOST:PORT --token … (see ctl join --help)")
			}
			return runJoin(cmd.Context(), streams, o, positional[0], kubeletArgs)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.token, "token", "", "the bootstrap token, <id>.<secret> (required)")
	fl.StringSliceVar(&o.caCertHashes, "discovery-token-ca-cert-hash", nil, "pin of the cluster CA's public key, sha256:<hex of its SubjectPublicKeyInfo> (repeatable)")
	fl.BoolVar(&o.unsafeSkipCAVerify, "discovery-token-unsafe-skip-ca-verification", false, "trust whatever CA the token-signed cluster-info names, without a pin")
	fl.StringVar(&o.nodeName, "node-name", "", "the node's name (default: the host name, lower-cased)")
	fl.StringVar(&o.dataDir, "data-dir", ".kplane-node", "directory for the kubelet's kubeconfig")
	fl.BoolVar(&o.printOnly, "print-only", false, "write the kubeconfig and stop, without starting the kubelet")
	fl.StringVar(&o.kubeletBinary, "kubelet-binary", "", "the kubelet to run (default: kubelet next to this ctl)")
	fl.DurationVar(&o.discoveryTimeout, "discovery-timeout", 5*time.Minute, "how long to wait for a signed cluster-info")
	fl.DurationVar(&o.tlsBootstrapTimeout, "tls-bootstrap-timeout", 5*time.Minute, "how long to wait for the client certificate to be issued")
	return cmd
}

func runJoin(ctx context.Context, streams IOStreams, o joinOptions, address string, kubeletArgs []string) error {
	server, err := joinServerURL(address)
	if err != nil {
		return err
	}
	if o.token == "" {
		return errors.New("--token is required")
	}
	token, err := bootstraptoken.Parse(o.token)
	if err != nil {
		return fmt.Errorf("--token: %w", err)
	}
	nodeName := o.nodeName
	if nodeName == "" {
		host, err := os.Hostname()
		if err != nil {
			return fmt.Errorf("no --node-name and no host name: %w", err)
		}
		nodeName = strings.ToLower(host)
	}
	kubeconfigPath := filepath.Join(o.dataDir, KubeletKubeconfigFileName)
	if _, err := os.Stat(kubeconfigPath); err == nil {
		return fmt.Errorf("%s already exists: this node has joined before (run the kubelet with it, or remove it to join again)", kubeconfigPath)
	}
	kubelet := o.kubeletBinary
	if !o.printOnly && kubelet == "" {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("find the kubelet next to ctl: %w (give --kubelet-binary)", err)
		}
		kubelet = filepath.Join(filepath.Dir(self), "kubelet")
	}
	if !o.printOnly {
		if _, err := os.Stat(kubelet); err != nil {
			return fmt.Errorf("kubelet binary: %w (build it with make build, or give --kubelet-binary)", err)
		}
	}

	discoveryCtx, cancel := context.WithTimeout(ctx, o.discoveryTimeout)
	caPEM, err := join.Discovery{Server: server, Token: token, CAPins: o.caCertHashes,
		UnsafeSkipCAVerification: o.unsafeSkipCAVerify}.Discover(discoveryCtx)
	cancel()
	if err != nil {
		return fmt.Errorf("discovery: %w", err)
	}
	fmt.Fprintf(streams.Out, "[discovery] cluster-info from %s is signed by token %s and its CA matches the pin\n", server, token.ID)

	bootstrapCtx, cancel := context.WithTimeout(ctx, o.tlsBootstrapTimeout)
	creds, err := join.TLSBootstrap{Server: server, CAPEM: caPEM, Token: token, NodeName: nodeName}.Request(bootstrapCtx)
	cancel()
	if err != nil {
		return fmt.Errorf("TLS bootstrap: %w", err)
	}
	fmt.Fprintf(streams.Out, "[tls-bootstrap] certificate signing request %s was approved and issued for system:node:%s\n", creds.CSRName, nodeName)

	if err := join.KubeletKubeconfig(server, caPEM, nodeName, creds).WriteFile(kubeconfigPath); err != nil {
		return err
	}
	fmt.Fprintf(streams.Out, "[kubeconfig] wrote %s\n", kubeconfigPath)
	if o.printOnly {
		return nil
	}
	argv := append([]string{kubelet, "--kubeconfig", kubeconfigPath, "--node-name", nodeName}, kubeletArgs...)
	fmt.Fprintf(streams.Out, "[kubelet] starting %s\n", strings.Join(argv, " "))
	// exec, not a child: the kubelet takes this process's id, so whoever
	// started ctl join supervises (and stops) the kubelet itself.
	if err := syscall.Exec(kubelet, argv, os.Environ()); err != nil {
		return fmt.Errorf("exec %s: %w", kubelet, err)
	}
	return nil
}

// joinServerURL accepts kubeadm's HOST:PORT or a full https URL.
func joinServerURL(address string) (string, error) {
	if strings.HasPrefix(address, "http://") {
		return "", fmt.Errorf("%s: the apiserver is reached over https only", address)
	}
	address = strings.TrimSuffix(strings.TrimPrefix(address, "https://"), "/")
	if address == "" || strings.ContainsAny(address, "/?#") {
		return "", fmt.Errorf("apiserver address %q: want HOST:PORT or https://HOST:PORT", address)
	}
	return "https://" + address, nil
}
