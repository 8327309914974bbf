package runtime

// A container's output is kept the way the kubelet's CRI runtimes keep it in
// /var/log/pods: one file per run, one line per write of a line, each
// prefixed by when it was written, which stream it came from, and whether it
// ends a line ("F", full) or is a piece of a longer one ("P", partial):
//
//	2024-05-01T10:00:00.123456789Z stdout F hello
//	2024-05-01T10:00:00.123501234Z stderr F warning: something
//
// `cat` on the file shows what `kubectl logs --timestamps` shows, plus the
// stream. Readers turn it back into the bytes the process wrote.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// maxLogLineSize is the longest piece of a line written as one log entry;
// a longer line is split into partial entries. 16 KiB is containerd's
// default (max_container_log_line_size).
const maxLogLineSize = 16 * 1024

// logTimeFormat is how entries are stamped: RFC 3339 in UTC with
// nanoseconds, as CRI log files and `kubectl logs --timestamps` show them.
const logTimeFormat = time.RFC3339Nano

// logFile is the log of one container run: a writer fed by the container's
// stdout and stderr pipes, and any number of readers, following ones woken
// by each write.
//
// Invariants: once closed is true nothing more is written and file is
// closed; finished implies closed; changed is closed (and replaced) after
// every write and when the log finishes, so a follower that saw no new data
// waits on it.
type logFile struct {
	path string

	mu       sync.Mutex
	file     *os.File
	changed  chan struct{}
	closed   bool // drained: the file is complete
	finished bool // followers may stop at the end of the file

	// streams counts the goroutines copying a pipe into the file; readEnds
	// are their pipes, closed by finish if a straggler holds a write end.
	streams  sync.WaitGroup
	readEnds []*os.File

	// observe, when set before the first stream starts, also receives
	// every chunk of output as it is read (process_attach.go: the
	// attached clients). It must not keep p.
	observe func(stream string, p []byte)
}

// createLogFile creates (or truncates) the log file of one run.
func createLogFile(path string) (*logFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create log dir: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create log file: %w", err)
	}
	return &logFile{path: path, file: f, changed: make(chan struct{})}, nil
}

// stream returns the write end of a pipe whose lines are copied into the
// log as stream ("stdout" or "stderr"). The caller hands it to the process
// and closes its own copy.
func (l *logFile) stream(name string) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create %s pipe: %w", name, err)
	}
	l.follow(name, r)
	return w, nil
}

// follow copies what r delivers into the log as stream name until r ends,
// then closes r. r is a pipe's read end or a terminal's master side (which
// ends with EIO once the container's processes have all closed the
// terminal).
func (l *logFile) follow(name string, r *os.File) {
	l.mu.Lock()
	l.readEnds = append(l.readEnds, r)
	l.mu.Unlock()
	l.streams.Add(1)
	go func() {
		defer l.streams.Done()
		defer r.Close()
		l.copyLines(name, r)
	}()
}

// copyLines writes each line read from r as one entry; a line longer than
// maxLogLineSize, or unfinished when r ends, is written in partial entries.
// It reads whatever r has rather than whole lines, so that observe (an
// attached client) sees a shell's prompt, which ends no line, at once.
func (l *logFile) copyLines(stream string, r io.Reader) {
	buf := make([]byte, 32*1024)
	var pending []byte // read, not yet written as an entry
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if l.observe != nil {
				l.observe(stream, buf[:n])
			}
			pending = append(pending, buf[:n]...)
			for {
				if i := bytes.IndexByte(pending, '\n'); i >= 0 && i < maxLogLineSize {
					l.write(stream, "F", pending[:i])
					pending = pending[i+1:]
				} else if len(pending) >= maxLogLineSize {
					l.write(stream, "P", pending[:maxLogLineSize])
					pending = pending[maxLogLineSize:]
				} else {
					break
				}
			}
		}
		if err != nil {
			if len(pending) > 0 {
				l.write(stream, "P", pending)
			}
			return
		}
	}
}

// writeLine writes one full line, for messages of the runtime itself (why a
// container could not start).
func (l *logFile) writeLine(stream, line string) {
	l.write(stream, "F", []byte(line))
}

func (l *logFile) write(stream, tag string, content []byte) {
	entry := make([]byte, 0, len(content)+64)
	entry = time.Now().UTC().AppendFormat(entry, logTimeFormat)
	entry = append(entry, ' ')
	entry = append(entry, stream...)
	entry = append(entry, ' ')
	entry = append(entry, tag...)
	entry = append(entry, ' ')
	entry = append(entry, content...)
	entry = append(entry, '\n')

	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	// One write per entry keeps entries of the two streams whole.
	_, _ = l.file.Write(entry)
	close(l.changed)
	l.changed = make(chan struct{})
}

// drain waits until the pipes are drained, at most grace (then it closes
// them, dropping what stragglers still write), and closes the file: the log
// is complete.
func (l *logFile) drain(grace time.Duration) {
	drained := make(chan struct{})
	go func() {
		l.streams.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(grace):
		l.mu.Lock()
		for _, r := range l.readEnds {
			r.Close()
		}
		l.mu.Unlock()
		<-drained
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	_ = l.file.Close()
}

// finish tells followers the log is complete, so they end once they have
// read it. It comes after drain and after the container is Done, so that a
// follower that reaches the end knows the container has exited.
func (l *logFile) finish() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.finished = true
	close(l.changed)
}

// state is what a reader needs before it reads: a channel closed by the next
// write, and whether the log is complete. Taken before a read that hits EOF,
// it cannot miss a write: a write after it closes the channel.
func (l *logFile) state() (changed <-chan struct{}, finished bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.changed, l.finished
}

// reader opens the log for reading. With follow it ends only when the log
// is finished (or the reader is closed); with timestamps each line starts
// with the time its first entry was written.
func (l *logFile) reader(follow, timestamps bool) io.ReadCloser {
	f, err := os.Open(l.path)
	if err != nil {
		return io.NopCloser(&errReader{err: fmt.Errorf("open container log: %w", err)})
	}
	return &logReader{log: l, file: f, follow: follow, timestamps: timestamps,
		atLineStart: true, closed: make(chan struct{})}
}

// logReader turns log entries back into the bytes the container wrote.
type logReader struct {
	log        *logFile
	file       *os.File
	follow     bool
	timestamps bool

	raw         []byte // read from the file, not yet a whole entry
	out         []byte // rendered, not yet returned
	atLineStart bool   // the next rendered byte starts a line

	closeOnce sync.Once
	closed    chan struct{}
}

// Read returns rendered log bytes; following, it blocks until there are
// some, the log finishes, or the reader is closed.
func (r *logReader) Read(p []byte) (int, error) {
	var chunk [32 * 1024]byte
	for len(r.out) == 0 {
		if i := bytes.IndexByte(r.raw, '\n'); i >= 0 {
			r.render(r.raw[:i])
			r.raw = r.raw[i+1:]
			continue
		}
		select {
		case <-r.closed:
			return 0, io.EOF
		default:
		}
		changed, finished := r.log.state()
		n, err := r.file.Read(chunk[:])
		if n > 0 {
			r.raw = append(r.raw, chunk[:n]...)
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			select {
			case <-r.closed:
				return 0, io.EOF
			default:
				return 0, err
			}
		}
		if !r.follow || finished {
			return 0, io.EOF
		}
		select {
		case <-changed:
		case <-r.closed:
			return 0, io.EOF
		}
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	return n, nil
}

// render appends one entry's content to out: a full entry ends its line, a
// partial one is continued by the next entry.
func (r *logReader) render(entry []byte) {
	// <time> <stream> <F|P> <content>; content may be empty or hold spaces.
	parts := bytes.SplitN(entry, []byte{' '}, 4)
	if len(parts) < 3 {
		return
	}
	if r.timestamps && r.atLineStart {
		r.out = append(r.out, parts[0]...)
		r.out = append(r.out, ' ')
	}
	if len(parts) == 4 {
		r.out = append(r.out, parts[3]...)
	}
	r.atLineStart = string(parts[2]) == "F"
	if r.atLineStart {
		r.out = append(r.out, '\n')
	}
}

// Close ends the reader; a Read blocked following the log returns io.EOF.
func (r *logReader) Close() error {
	r.closeOnce.Do(func() {
		close(r.closed)
		r.file.Close()
	})
	return nil
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }
