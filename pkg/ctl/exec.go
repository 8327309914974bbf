package ctl

// `ctl exec`: kubectl exec's client side, over the WebSocket protocol
// kubectl uses from 1.30 (v5.channel.k8s.io, pkg/streaming). The request
// goes to the apiserver's pods/exec, which hands it to the pod's kubelet;
// docs/exec.md follows a session end to end.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/gorilla/websocket"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"kplane/pkg/streaming"
)

// execOptions are the flags of `ctl exec`.
type execOptions struct {
	f *factory

	container         string
	stdin, tty, quiet bool
}

// newExecCommand is `ctl exec`.
func newExecCommand(f *factory) *cobra.Command {
	o := &execOptions{f: f}
	cmd := &cobra.Command{
		Use:   "exec (POD | TYPE/NAME) [-c CONTAINER] [-i] [-t] -- COMMAND [args...]",
		Short: "Execute a command in a container",
		Long: `exec runs a command in a container of a running pod and connects its
standard streams to this terminal. The apiserver proxies the request
(pods/NAME/exec) to the kubelet of the pod's node, which runs the command
through its runtime and reports how it ended: ctl exits with the command's
exit code, as kubectl does.

With ` + "`ctl up --runtime process`" + ` the command runs for real, with the
container's environment and in its working directory; what the simulated
runtime answers depends on that runtime. ctl speaks the WebSocket protocol
(v5.channel.k8s.io); see docs/exec.md.`,
		Example: `  ctl exec web-0 -- ls
  ctl exec -it web-0 -- sh
  echo hi | ctl exec -i web-0 -c sidecar -- cat`,
		ValidArgsFunction: completeResourceNames(f, "pods"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args, cmd.ArgsLenAtDash())
		},
	}
	flags := cmd.Flags()
	flags.StringVarP(&o.container, "container", "c", "", "run the command in this container (default: the pod's only one, or its default-container annotation, or its first)")
	flags.BoolVarP(&o.stdin, "stdin", "i", false, "pass stdin to the command")
	flags.BoolVarP(&o.tty, "tty", "t", false, "stdin is a TTY: run the command on a terminal")
	flags.BoolVarP(&o.quiet, "quiet", "q", false, "print only the command's output")
	return cmd
}

// run is `ctl exec`.
func (o *execOptions) run(ctx context.Context, commandPath string, args []string, dash int) error {
	if len(args) == 0 {
		return usageError(commandPath, "expected 'exec (POD | TYPE/NAME) [-c CONTAINER] [flags] -- COMMAND [args...]'.\nPOD or TYPE/NAME is a required argument for the exec command")
	}
	if dash < 0 || dash == len(args) {
		return usageError(commandPath, "you must specify at least one command for the container")
	}
	if dash != 1 {
		return usageError(commandPath, "exec takes one POD or TYPE/NAME before --")
	}
	target, command := args[0], args[dash:]

	c, err := o.f.Client()
	if err != nil {
		return err
	}
	namespace, _, err := o.f.Namespace()
	if err != nil {
		return err
	}
	logs := &logsOptions{f: o.f, container: o.container}
	pod, err := logs.podFor(ctx, c, namespace, target)
	if err != nil {
		return err
	}
	containers, err := logs.containersOf(pod)
	if err != nil {
		return err
	}
	if pod.Status.Phase == "Succeeded" || pod.Status.Phase == "Failed" {
		return fmt.Errorf("cannot exec into a container in a completed pod; current phase is %s", pod.Status.Phase)
	}

	tty := o.tty && o.f.canUseTTY(o.stdin, o.quiet)
	query := url.Values{"command": command, "container": {containers[0]}}
	err = o.f.remoteCommand(ctx, pod.Namespace, pod.Name, "exec", query, o.stdin, tty)
	var exit *streaming.ExitCodeError
	if errors.As(err, &exit) {
		if !o.quiet {
			fmt.Fprintln(o.f.errOut(), exit.Error())
		}
		return ExitError{Code: exit.Code}
	}
	return err
}

// remoteCommand runs one exec or attach session (subresource "exec" or
// "attach") of a pod over WebSocket, with this command's stdin (if stdin),
// stdout and stderr; with tty the terminal is put in raw mode and its size
// follows the window, and stderr is not asked for.
func (f *factory) remoteCommand(ctx context.Context, namespace, pod, subresource string, query url.Values, stdin, tty bool) error {
	cfg, err := f.clientConfig()
	if err != nil {
		return err
	}
	query.Set("stdout", "true")
	if stdin {
		query.Set("stdin", "true")
	}
	if tty {
		query.Set("tty", "true")
	} else {
		query.Set("stderr", "true")
	}
	endpoint := strings.Replace(strings.TrimRight(cfg.Host, "/"), "http", "ws", 1) +
		fmt.Sprintf("/api/v1/namespaces/%s/pods/%s/%s?%s", namespace, pod, subresource, query.Encode())
	tlsConfig, err := cfg.TLSConfig()
	if err != nil {
		return err
	}
	session := &streaming.RemoteCommandClient{
		Dialer: &websocket.Dialer{TLSClientConfig: tlsConfig, Proxy: websocket.DefaultDialer.Proxy},
		Header: http.Header{},
		Stdout: f.out(),
	}
	if cfg.Token != "" {
		session.Header.Set("Authorization", "Bearer "+cfg.Token)
	}
	if stdin {
		session.Stdin = f.in()
	}
	if !tty {
		session.Stderr = f.errOut()
	} else {
		file, _ := f.in().(*os.File)
		restore, sizes, err := rawTerminal(file)
		if err != nil {
			return err
		}
		defer restore()
		session.Resize = sizes
	}
	return session.Stream(ctx, endpoint)
}

// canUseTTY reports whether -t can be honoured: stdin must be passed and
// be a terminal. If not, it says so as kubectl does (unless quiet).
func (f *factory) canUseTTY(stdin, quiet bool) bool {
	file, ok := f.in().(*os.File)
	if stdin && ok && term.IsTerminal(int(file.Fd())) {
		return true
	}
	if !quiet {
		fmt.Fprintln(f.errOut(), "Unable to use a TTY - input is not a terminal or the right kind of file")
	}
	return false
}

// rawTerminal puts the terminal in raw mode, so every key goes to the
// remote command (^C included), and reports its size now and whenever the
// window changes (SIGWINCH). restore undoes both.
func rawTerminal(f *os.File) (restore func(), sizes <-chan streaming.TerminalSize, err error) {
	fd := int(f.Fd())
	state, err := term.MakeRaw(fd)
	if err != nil {
		return nil, nil, fmt.Errorf("set the terminal to raw mode: %w", err)
	}
	out := make(chan streaming.TerminalSize, 1)
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	done := make(chan struct{})
	send := func() {
		if w, h, err := term.GetSize(fd); err == nil {
			size := streaming.TerminalSize{Width: uint16(w), Height: uint16(h)}
			select {
			case out <- size:
			default: // replace the size not yet sent: only the newest matters
				select {
				case <-out:
				default:
				}
				out <- size
			}
		}
	}
	send()
	go func() {
		for {
			select {
			case <-winch:
				send()
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(winch)
		close(done)
		_ = term.Restore(fd, state)
	}, out, nil
}
