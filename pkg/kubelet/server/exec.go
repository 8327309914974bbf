package server

// This file serves /exec and /attach, the kubelet's end of `kubectl exec`
// and `kubectl attach` (and `kubectl run -it`, `kubectl cp`). The
// apiserver hands the client's upgrade request on unchanged:
//
//	POST|GET /exec/<namespace>/<pod>/<container>?command=sh&command=-c&command=…&stdin=true&stdout=true&tty=true
//	POST|GET /attach/<namespace>/<pod>/<container>?stdin=true&stdout=true&stderr=true
//
// The server checks what it can answer plainly first — the streams asked
// for, the container, whether its runtime can exec — then upgrades the
// connection (pkg/streaming speaks WebSocket and SPDY), runs the command
// through the runtime's Execer (or joins the container's streams through
// its Attacher), and ends the session with a Status: Success, or the exit
// code that kubectl then exits with. Upstream: the kubelet's server.go
// (getExec, getAttach) and pkg/kubelet/cri/streaming/remotecommand
// (exec.go, attach.go).

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"kplane/pkg/api"
	"kplane/pkg/kubelet/runtime"
	"kplane/pkg/streaming"
)

// serveExec handles /exec/{namespace}/{pod}/{container}?command=…
func (s *Server) serveExec(w http.ResponseWriter, r *http.Request) {
	command := r.URL.Query()["command"]
	if len(command) == 0 {
		http.Error(w, "you must specify at least one command for the container", http.StatusBadRequest)
		return
	}
	s.serveRemoteCommand(w, r, "exec", func(ctx context.Context, run runtime.Container, streams runtime.Streams) api.Status {
		code, err := run.(runtime.Execer).Exec(ctx, command, streams)
		switch {
		case err != nil:
			return streaming.InternalErrorStatus(fmt.Errorf("error executing command in container: %w", err))
		case code != 0:
			return streaming.ExitCodeStatus(command, code)
		}
		return streaming.SuccessStatus()
	})
}

// serveAttach handles /attach/{namespace}/{pod}/{container}.
func (s *Server) serveAttach(w http.ResponseWriter, r *http.Request) {
	s.serveRemoteCommand(w, r, "attach", func(ctx context.Context, run runtime.Container, streams runtime.Streams) api.Status {
		if err := run.(runtime.Attacher).Attach(ctx, streams); err != nil {
			return streaming.InternalErrorStatus(fmt.Errorf("error attaching to container: %w", err))
		}
		return streaming.SuccessStatus()
	})
}

// sessionFunc runs one exec or attach with the session's streams and says
// how it ended. serveRemoteCommand has checked that run supports it.
type sessionFunc func(ctx context.Context, run runtime.Container, streams runtime.Streams) api.Status

// serveRemoteCommand is what exec and attach share: checks, upgrade, run,
// Status.
func (s *Server) serveRemoteCommand(w http.ResponseWriter, r *http.Request, verb string, do sessionFunc) {
	namespace, pod, container := r.PathValue("namespace"), r.PathValue("pod"), r.PathValue("container")
	opts, err := streaming.ParseRemoteCommandOptions(r.URL.Query())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	run, code, err := s.runningContainer(namespace, pod, container)
	if err != nil {
		http.Error(w, err.Error(), code)
		return
	}
	if ok, doing := supports(run, verb); !ok {
		http.Error(w, fmt.Sprintf("kplane's %s runtime cannot %s containers", s.runtimeName(namespace, pod), doing),
			http.StatusNotImplemented)
		return
	}

	session, err := streaming.AcceptRemoteCommand(w, r, opts)
	if err != nil {
		s.log.Info("could not start "+verb+" session", "pod", namespace+"/"+pod, "container", container, "err", err)
		return
	}
	s.log.Info(verb+" session started", "pod", namespace+"/"+pod, "container", container,
		"transport", session.Transport, "protocol", session.Protocol, "tty", opts.TTY, "client", clientName(r))
	ctx, cancel := session.Context(r.Context())
	defer cancel()
	streams := runtime.Streams{Stdin: session.Stdin, Stdout: session.Stdout, Stderr: session.Stderr, TTY: session.TTY,
		Resize: session.Resize}
	status := do(ctx, run, streams)
	if err := session.Finish(status); err != nil && ctx.Err() == nil {
		s.log.Debug(verb+" session ended early", "pod", namespace+"/"+pod, "container", container, "err", err)
	}
	s.log.Info(verb+" session ended", "pod", namespace+"/"+pod, "container", container,
		"status", status.Status, "reason", status.Reason)
}

// runningContainer finds the current run of a container, which must be
// running: a container that has exited (or not started) has nothing to
// exec in, and upstream's kubelet answers `container not found ("web")`
// for it. Lookup errors are answered as for logs.
func (s *Server) runningContainer(namespace, pod, container string) (runtime.Container, int, error) {
	lookup := s.containerLookup()
	if lookup == nil {
		return nil, http.StatusServiceUnavailable, errors.New("the kubelet is not ready to serve streams")
	}
	run, err := lookup(namespace, pod, container, false)
	if err != nil {
		return nil, lookupStatusCode(err), err
	}
	select {
	case <-run.Done():
		return nil, http.StatusInternalServerError, fmt.Errorf("container not found (%q)", container)
	default:
	}
	return run, 0, nil
}

// supports reports whether a container run can do verb, and words what
// it would be doing ("exec into", "attach to") for a refusal.
func supports(run runtime.Container, verb string) (ok bool, doing string) {
	switch verb {
	case "exec":
		_, ok = run.(runtime.Execer)
		return ok, "exec into"
	case "attach":
		_, ok = run.(runtime.Attacher)
		return ok, "attach to"
	}
	return false, verb
}

// runtimeName names the runtime a pod's containers run in, for messages.
func (s *Server) runtimeName(namespace, pod string) string {
	if lookup := s.podLookup(); lookup != nil {
		if _, rt, err := lookup(namespace, pod); err == nil && rt != nil {
			return rt.Name()
		}
	}
	return "container"
}

// clientName is the common name of the caller's certificate: the apiserver.
func clientName(r *http.Request) string {
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		return r.TLS.PeerCertificates[0].Subject.CommonName
	}
	return ""
}
