// Package ctl is kplane's command-line tool: the cluster verbs (`ctl up`,
// `ctl down`, `ctl status`) and, as they are added, kubectl's verbs.
//
// Layout, after kubectl's own (cmd/kubectl/main.go is one call into
// k8s.io/kubectl/pkg/cmd): cmd/ctl/main.go only calls Main, and each verb
// is one file here, <verb>.go, with a newXxxCommand(streams) constructor
// that NewCommand registers. Keeping the verbs in a package rather than in
// cmd/ctl lets tests run them in-process with buffers for stdin, stdout and
// stderr, and lets verbs share helpers (printers, resource lookup) as plain
// Go code. A new verb is a new file plus one line in NewCommand.
package ctl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// IOStreams are where a command reads and writes, as in kubectl's
// genericiooptions.IOStreams: the terminal in main, buffers in tests.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// ExitError ends the program with Code after the command has already said
// what there was to say (`ctl status` on a stopped cluster exits 1).
type ExitError struct{ Code int }

func (e ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// NewCommand builds the `ctl` command tree.
func NewCommand(streams IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "ctl",
		Short: "Run a local kplane cluster and drive it",
		Long: `ctl starts, stops and inspects a local kplane cluster: an apiserver on an
embedded etcd, a scheduler, a controller-manager and simulated nodes, each a
process of its own.

  ctl up            start the cluster in ./.kplane (Ctrl-C stops it; -d detaches)
  ctl status        say what runs
  ctl down          stop a detached cluster

The cluster's admin kubeconfig is .kplane/kubeconfig, for the real kubectl:

  kubectl --kubeconfig .kplane/kubeconfig get nodes`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)

	// The cluster verbs.
	root.AddCommand(newUpCommand(streams))
	root.AddCommand(newDownCommand(streams))
	root.AddCommand(newStatusCommand(streams))
	return root
}

// Main runs ctl with args (without the program name) and returns the exit
// code. Errors are printed the way kubectl prints them: "error: …".
func Main(ctx context.Context, args []string, streams IOStreams) int {
	root := NewCommand(streams)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	var exit ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.Code
	default:
		fmt.Fprintf(streams.ErrOut, "error: %v\n", err)
		return 1
	}
}

// isTerminal reports whether w is a terminal, where colour makes sense.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
