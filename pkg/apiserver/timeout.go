package apiserver

// This file bounds how long a request may take (--request-timeout, 1 m),
// as upstream's request-deadline and timeout filters do
// (staging/src/k8s.io/apiserver/pkg/endpoints/filters/request_deadline.go
// and pkg/server/filters/timeout.go). A request that is not long-running
// gets a context deadline, which every store call below honours; if the
// handler has not answered by then, the client gets 504 with reason
// Timeout at once, and whatever the handler writes later is discarded.
//
// A client may ask for less with ?timeout=30s (kubectl --request-timeout
// sends it); it cannot ask for more than the server's limit.
//
// The handler runs in its own goroutine so that the answer can be sent
// while it still works. Both write through a timeoutWriter, which lets
// exactly one of them answer: the handler, if it writes first, or the
// timeout, after which the handler's writes fail with
// http.ErrHandlerTimeout. The handler writes into its own header map,
// copied to the real one when it answers, so the two never touch the same
// map. A handler that switches protocols (an upgrade passed through the
// aggregator) hijacks the connection through the timeoutWriter; from then
// on the connection is the handler's, and the timeout leaves it alone.
// Only long-running requests (watches, exec, port-forward, …) are left
// out of all this, as upstream.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/authorization/authorizer"
)

// timeoutRequests enforces --request-timeout on every request that is
// not long-running.
func (s *Server) timeoutRequests(next http.Handler) http.Handler {
	if s.opts.RequestTimeout <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isLongRunning(r, authorizer.RequestInfoFrom(r.Context())) {
			next.ServeHTTP(w, r)
			return
		}
		timeout, err := requestTimeout(r, s.opts.RequestTimeout)
		if err != nil {
			response.WriteError(w, apierrors.NewBadRequest(err.Error()))
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		serveWithDeadline(ctx, w, r.WithContext(ctx), next)
	})
}

// requestTimeout is how long r may take: the client's ?timeout= when it
// asks for less than the server's limit, the limit otherwise.
func requestTimeout(r *http.Request, limit time.Duration) (time.Duration, error) {
	value := r.URL.Query().Get("timeout")
	if value == "" {
		return limit, nil
	}
	asked, err := time.ParseDuration(value)
	if err != nil {
		// Upstream's wording (request_deadline.go).
		return 0, fmt.Errorf("invalid timeout specified in the request URL")
	}
	if asked > 0 && asked < limit {
		return asked, nil
	}
	return limit, nil
}

// serveWithDeadline runs next in its own goroutine and answers 504 if
// ctx's deadline passes first. A handler panic is re-raised here, on the
// request's goroutine, for recoverPanics to answer.
func serveWithDeadline(ctx context.Context, w http.ResponseWriter, r *http.Request, next http.Handler) {
	tw := &timeoutWriter{w: w, handlerHeader: w.Header().Clone()}
	done := make(chan struct{})
	panicked := make(chan any, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				panicked <- p
			}
			close(done)
		}()
		next.ServeHTTP(tw, r)
	}()
	select {
	case <-done:
		select {
		case p := <-panicked:
			panic(p)
		default:
		}
	case <-ctx.Done():
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// The client went away: nobody to answer. Wait for the
			// handler, which sees the cancelled context too.
			<-done
			return
		}
		go func() {
			// The handler goes on after the 504; a panic it hits then has
			// nobody to answer, so it is logged.
			<-done
			select {
			case p := <-panicked:
				slog.Error("panic serving a request that had timed out", "method", r.Method, "path", r.URL.Path, "panic", p)
			default:
			}
		}()
		tw.timeout()
	}
}

// timeoutWriter is the ResponseWriter the handler of a bounded request
// writes to. mu orders the handler's writes and the timeout's answer:
// whichever comes first wins.
type timeoutWriter struct {
	w  http.ResponseWriter
	mu sync.Mutex
	// handlerHeader is the handler's header map, copied to w's when the
	// handler answers.
	handlerHeader http.Header
	// wroteHeader: the handler has started its answer.
	wroteHeader bool
	// timedOut: the 504 has been sent; the handler's writes are dropped.
	timedOut bool
	// hijacked: the handler took the connection over (Hijack); the
	// timeout then has nothing to answer.
	hijacked bool
}

// Header returns the handler's own header map.
func (tw *timeoutWriter) Header() http.Header { return tw.handlerHeader }

// WriteHeader sends the handler's status, unless the request timed out.
func (tw *timeoutWriter) WriteHeader(code int) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	tw.writeHeaderLocked(code)
}

func (tw *timeoutWriter) writeHeaderLocked(code int) {
	if tw.timedOut || tw.wroteHeader {
		return
	}
	tw.wroteHeader = true
	dst := tw.w.Header()
	for k, v := range tw.handlerHeader {
		dst[k] = v
	}
	tw.w.WriteHeader(code)
}

// Write sends body bytes, or fails with http.ErrHandlerTimeout once the
// request timed out.
func (tw *timeoutWriter) Write(p []byte) (int, error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut {
		return 0, http.ErrHandlerTimeout
	}
	tw.writeHeaderLocked(http.StatusOK)
	return tw.w.Write(p)
}

// Flush passes a flush on, unless the request timed out.
func (tw *timeoutWriter) Flush() {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut {
		return
	}
	if f, ok := tw.w.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack hands the connection to the handler (an upgrade passed through),
// unless the request already timed out, as upstream's timeout writer
// does. It goes through http.ResponseController, so writers that wrap the
// connection's (auditing) are unwrapped.
func (tw *timeoutWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut {
		return nil, nil, http.ErrHandlerTimeout
	}
	conn, rw, err := http.NewResponseController(tw.w).Hijack()
	if err == nil {
		tw.hijacked = true
	}
	return conn, rw, err
}

// Unwrap gives http.ResponseController the writer underneath.
func (tw *timeoutWriter) Unwrap() http.ResponseWriter { return tw.w }

// timeout answers 504 if the handler has not started its answer. If the
// handler hijacked the connection, it is the handler's: nothing to do. If
// it has started its answer, the client already has a status line and
// part of a body: the only honest thing left is to cut the connection, as
// upstream does.
func (tw *timeoutWriter) timeout() {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.hijacked {
		return
	}
	tw.timedOut = true
	if tw.wroteHeader {
		panic(http.ErrAbortHandler)
	}
	// Upstream's handlers answer a request whose deadline passed with
	// errors.NewTimeoutError(fmt.Sprintf("request did not complete within
	// requested timeout - %s", ctx.Err()), 0) (endpoints/handlers/
	// finisher/finisher.go); NewTimeoutError puts "Timeout: " in front.
	response.WriteError(tw.w, apierrors.NewTimeoutError(
		fmt.Sprintf("request did not complete within requested timeout - %v", context.DeadlineExceeded), 0))
}
