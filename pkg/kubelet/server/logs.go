package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/kubelet/runtime"
)

// TimestampedLogs is implemented by a container run that knows when each
// line was written (the process runtime does). Its lines start with an RFC
// 3339 timestamp and a space. The server uses it for ?timestamps=true and
// for sinceSeconds / sinceTime; for a run without it those parameters are
// ignored, since inventing times would be worse than leaving them out.
type TimestampedLogs interface {
	LogsWithTimestamps(follow bool) io.ReadCloser
}

// logOptions are the query parameters of /containerLogs, upstream's
// PodLogOptions as the apiserver forwards them.
type logOptions struct {
	follow     bool
	previous   bool
	timestamps bool
	tailLines  *int64
	limitBytes *int64
	since      *time.Time
}

// parseLogOptions reads the query; a malformed value is the caller's error.
func parseLogOptions(r *http.Request, now time.Time) (logOptions, error) {
	q := r.URL.Query()
	var o logOptions
	var err error
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"follow", &o.follow}, {"previous", &o.previous}, {"timestamps", &o.timestamps}} {
		if v := q.Get(b.name); v != "" {
			if *b.dst, err = strconv.ParseBool(v); err != nil {
				return o, fmt.Errorf("invalid %s %q: want true or false", b.name, v)
			}
		}
	}
	for _, n := range []struct {
		name string
		dst  **int64
		min  int64
	}{{"tailLines", &o.tailLines, 0}, {"limitBytes", &o.limitBytes, 1}, {"sinceSeconds", nil, 1}} {
		v := q.Get(n.name)
		if v == "" {
			continue
		}
		i, err := strconv.ParseInt(v, 10, 64)
		if err != nil || i < n.min {
			return o, fmt.Errorf("invalid %s %q: want an integer of at least %d", n.name, v, n.min)
		}
		if n.dst != nil {
			*n.dst = &i
		} else {
			since := now.Add(-time.Duration(i) * time.Second)
			o.since = &since
		}
	}
	if v := q.Get("sinceTime"); v != "" {
		if o.since != nil {
			return o, errors.New("at most one of sinceTime or sinceSeconds may be specified")
		}
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return o, fmt.Errorf("invalid sinceTime %q: %w", v, err)
		}
		o.since = &t
	}
	return o, nil
}

// serveContainerLogs answers GET /containerLogs/<namespace>/<pod>/<container>.
func (s *Server) serveContainerLogs(w http.ResponseWriter, r *http.Request) {
	namespace, pod, container := r.PathValue("namespace"), r.PathValue("pod"), r.PathValue("container")
	// The wall clock, not a kubelet's Clock: sinceSeconds is compared with
	// the timestamps the process runtime writes in wall time.
	opts, err := parseLogOptions(r, time.Now())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	lookup := s.containerLookup()
	if lookup == nil {
		http.Error(w, "the kubelet is not ready to serve logs", http.StatusServiceUnavailable)
		return
	}
	run, err := lookup(namespace, pod, container, opts.previous)
	if err != nil {
		http.Error(w, err.Error(), lookupStatusCode(err))
		return
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		s.log.Debug("serving container logs", "pod", namespace+"/"+pod, "container", container,
			"follow", opts.follow, "client", r.TLS.PeerCertificates[0].Subject.CommonName)
	}

	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	out := &flushWriter{w: w, rc: http.NewResponseController(w), flush: opts.follow}
	if err := streamLogs(r.Context(), out, run, opts); err != nil && !errors.Is(err, errLimitReached) && r.Context().Err() == nil {
		s.log.Debug("container log stream ended early", "pod", namespace+"/"+pod, "container", container, "err", err)
	}
}

// streamLogs writes run's logs to w as opts ask: the last tailLines lines
// (all without it), lines since a time, at most limitBytes, with or without
// timestamps, and with follow whatever comes next until the run exits or
// ctx ends.
func streamLogs(ctx context.Context, w io.Writer, run runtime.Container, opts logOptions) error {
	if opts.limitBytes != nil {
		w = &limitWriter{w: w, remaining: *opts.limitBytes}
	}
	open := run.Logs
	timestamped := false
	if tl, ok := run.(TimestampedLogs); ok && (opts.timestamps || opts.since != nil) {
		open, timestamped = tl.LogsWithTimestamps, true
	}
	lines := lineFilter{timestamped: timestamped, keepTimestamps: opts.timestamps, since: opts.since}

	var skip int64 // bytes of the follow stream already written from the tail
	if opts.tailLines != nil {
		rc := open(false)
		tail, consumed, err := lastLines(rc, int(*opts.tailLines))
		rc.Close()
		if err != nil {
			return err
		}
		for _, line := range tail {
			if err := lines.write(w, line); err != nil {
				return err
			}
		}
		if !opts.follow {
			return nil
		}
		skip = consumed
	}

	rc := open(opts.follow)
	defer rc.Close()
	// A client that goes away must not leave a follower blocked for good.
	stop := context.AfterFunc(ctx, func() { rc.Close() })
	defer stop()
	if skip > 0 {
		// The log only grows, so the follow stream starts with the bytes
		// the tail was taken from.
		if _, err := io.CopyN(io.Discard, rc, skip); err != nil {
			return err
		}
	}
	if !timestamped && opts.since == nil {
		_, err := io.Copy(w, rc)
		return err
	}
	br := bufio.NewReader(rc)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			if werr := lines.write(w, line); werr != nil {
				return werr
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// lastLines reads r to the end and returns its last n lines (the final one
// may lack a newline) and how many bytes it read.
func lastLines(r io.Reader, n int) (lines []string, consumed int64, err error) {
	if n == 0 {
		consumed, err = io.Copy(io.Discard, r)
		return nil, consumed, err
	}
	ring := make([]string, 0, min(n, 1024))
	next := 0
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		consumed += int64(len(line))
		if line != "" {
			if len(ring) < n {
				ring = append(ring, line)
			} else {
				ring[next] = line
				next = (next + 1) % n
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, consumed, err
		}
	}
	return append(ring[next:], ring[:next]...), consumed, nil
}

// lineFilter writes timestamped lines, dropping those before since and,
// unless asked to keep them, the timestamps.
type lineFilter struct {
	timestamped    bool
	keepTimestamps bool
	since          *time.Time
}

func (f lineFilter) write(w io.Writer, line string) error {
	if f.timestamped {
		ts, text, ok := strings.Cut(line, " ")
		if ok && f.since != nil {
			if t, err := time.Parse(time.RFC3339Nano, ts); err == nil && t.Before(*f.since) {
				return nil
			}
		}
		if ok && !f.keepTimestamps {
			line = text
		}
	}
	_, err := io.WriteString(w, line)
	return err
}

// errLimitReached ends a stream that has written limitBytes.
var errLimitReached = errors.New("limitBytes reached")

// limitWriter passes on at most remaining bytes.
type limitWriter struct {
	w         io.Writer
	remaining int64
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.remaining <= 0 {
		return 0, errLimitReached
	}
	short := false
	if int64(len(p)) > l.remaining {
		p, short = p[:l.remaining], true
	}
	n, err := l.w.Write(p)
	l.remaining -= int64(n)
	if err == nil && short {
		err = errLimitReached
	}
	return n, err
}

// flushWriter flushes after every write when following, so each line
// reaches `kubectl logs -f` as soon as the container prints it.
type flushWriter struct {
	w     io.Writer
	rc    *http.ResponseController
	flush bool
}

func (f *flushWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err == nil && f.flush {
		err = f.rc.Flush()
	}
	return n, err
}
