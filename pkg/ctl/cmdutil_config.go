package ctl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"kplane/pkg/client"
	"kplane/pkg/kubeconfig"
	"kplane/pkg/restmapper"
)

// factory is what the kubectl-like verbs share, after kubectl's
// cmdutil.Factory: the global flags (--kubeconfig, --context, -n,
// --request-timeout) and, built on first use and kept for the rest of the
// command, the API client and the discovery mapper. The cluster verbs (up,
// down, status) do not use it.
type factory struct {
	streams IOStreams

	kubeconfigFlag string
	contextFlag    string
	namespaceFlag  string
	requestTimeout string

	config *client.Config
	client *client.Client
	mapper *restmapper.Mapper
}

func newFactory(streams IOStreams) *factory { return &factory{streams: streams} }

// addFlags registers the global flags on the root command, so that every
// verb takes them, before or after its name, as kubectl's do.
func (f *factory) addFlags(flags *pflag.FlagSet) {
	flags.StringVar(&f.kubeconfigFlag, "kubeconfig", "", "path to the kubeconfig file (default: $KUBECONFIG, else ./.kplane/kubeconfig if it exists, else ~/.kube/config)")
	flags.StringVar(&f.contextFlag, "context", "", "the kubeconfig context to use (default: its current-context)")
	flags.StringVarP(&f.namespaceFlag, "namespace", "n", "", "the namespace of this request (default: the context's namespace, else \"default\")")
	flags.StringVar(&f.requestTimeout, "request-timeout", "0", "how long to wait for one server answer before giving up: a duration (1s, 2m) or a number of seconds; 0 waits forever")
}

// localKubeconfig is the admin kubeconfig `ctl up` writes in its default
// data dir, relative to the working directory.
var localKubeconfig = filepath.Join(".kplane", "kubeconfig")

// kubeconfigPath finds the kubeconfig to use: --kubeconfig; else the first
// existing file of $KUBECONFIG (kubectl merges them all; ctl reads one);
// else ./.kplane/kubeconfig, the cluster `ctl up` started here; else
// ~/.kube/config. It returns "" when none exists.
func (f *factory) kubeconfigPath() string {
	if f.kubeconfigFlag != "" {
		return f.kubeconfigFlag
	}
	if env := os.Getenv("KUBECONFIG"); env != "" {
		for _, p := range filepath.SplitList(env) {
			if fileExists(p) {
				return p
			}
		}
	}
	if fileExists(localKubeconfig) {
		return localKubeconfig
	}
	if home, err := os.UserHomeDir(); err == nil {
		if p := filepath.Join(home, ".kube", "config"); fileExists(p) {
			return p
		}
	}
	return ""
}

func fileExists(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}

// errNoKubeconfig is returned when no kubeconfig can be found.
var errNoKubeconfig = errors.New("no kubeconfig found: start a cluster with `ctl up` (it writes .kplane/kubeconfig), or pass --kubeconfig or set KUBECONFIG")

// clientConfig reads the kubeconfig once.
func (f *factory) clientConfig() (*client.Config, error) {
	if f.config != nil {
		return f.config, nil
	}
	path := f.kubeconfigPath()
	if path == "" {
		return nil, errNoKubeconfig
	}
	cfg, err := client.ConfigFromKubeconfig(path, f.contextFlag)
	if err != nil {
		return nil, err
	}
	timeout, err := parseRequestTimeout(f.requestTimeout)
	if err != nil {
		return nil, err
	}
	cfg.Timeout = timeout
	cfg.UserAgent = "ctl " + client.DefaultUserAgent()
	cfg.Logger = slog.New(slog.DiscardHandler)
	// One quick retry rides out a blip; a stopped cluster is reported at
	// once rather than after the client's default back-off of seconds.
	cfg.MaxRetries = 1
	errOut := f.streams.ErrOut
	cfg.WarningHandler = func(text string) { fmt.Fprintf(errOut, "Warning: %s\n", text) }
	f.config = cfg
	return cfg, nil
}

// parseRequestTimeout reads --request-timeout as kubectl does: a bare
// number is seconds.
func parseRequestTimeout(s string) (time.Duration, error) {
	if s == "" || s == "0" {
		return 0, nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)")
	}
	return d, nil
}

// Client returns the API client, built on first use.
func (f *factory) Client() (*client.Client, error) {
	if f.client != nil {
		return f.client, nil
	}
	cfg, err := f.clientConfig()
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg)
	if err != nil {
		return nil, err
	}
	f.client = c
	return c, nil
}

// Mapper returns the discovery mapper, read from the server on first use.
func (f *factory) Mapper(ctx context.Context) (*restmapper.Mapper, error) {
	if f.mapper != nil {
		return f.mapper, nil
	}
	c, err := f.Client()
	if err != nil {
		return nil, err
	}
	m, err := restmapper.Discover(ctx, c)
	if err != nil {
		return nil, err
	}
	f.mapper = m
	return m, nil
}

// Namespace returns the namespace of this command and whether the user
// chose it with -n: otherwise it is the context's namespace, else "default".
func (f *factory) Namespace() (string, bool, error) {
	if f.namespaceFlag != "" {
		return f.namespaceFlag, true, nil
	}
	cfg, err := f.clientConfig()
	if err != nil {
		return "", false, err
	}
	if cfg.Namespace != "" {
		return cfg.Namespace, false, nil
	}
	return kubeconfig.DefaultNamespace, false, nil
}

// close releases the client's connections.
func (f *factory) close() {
	if f.client != nil {
		f.client.Close()
	}
}

// out and errOut are the command's streams; stdin is its input.
func (f *factory) out() io.Writer    { return f.streams.Out }
func (f *factory) errOut() io.Writer { return f.streams.ErrOut }
func (f *factory) in() io.Reader     { return f.streams.In }
