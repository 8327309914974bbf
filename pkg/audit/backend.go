package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"gopkg.in/natefinch/lumberjack.v2"
)

// Backend receives the Events of audited requests.
type Backend interface {
	// ProcessEvent records ev. It must not keep ev: the caller goes on
	// filling it for the request's next stage.
	ProcessEvent(ev *Event)
}

// LogOptions configure the log backend (the --audit-log-* flags).
type LogOptions struct {
	// Path is the file the Events are appended to, one JSON object a
	// line; "-" writes to standard output.
	Path string
	// MaxAge is how many days rotated files are kept; MaxBackups how many
	// are kept; MaxSize the size in MiB at which the file is rotated.
	// Zero takes the rotation library's defaults, as upstream does: keep
	// every file, rotate at 100 MiB.
	MaxAge, MaxBackups, MaxSize int
}

// LogBackend writes each Event as a JSON line to a file (rotated by size,
// as upstream's log backend with lumberjack) or to standard output. It
// writes as it is called ("blocking" mode, upstream's default for the log
// backend), so that an Event is on disk before the client has its answer.
type LogBackend struct {
	mu  sync.Mutex
	out io.Writer
	// closer closes the file; nil for standard output.
	closer io.Closer
	log    *slog.Logger
}

// NewLogBackend opens the audit log opts names, creating its directory.
func NewLogBackend(opts LogOptions, log *slog.Logger) (*LogBackend, error) {
	if log == nil {
		log = slog.Default()
	}
	if opts.Path == "-" {
		return &LogBackend{out: os.Stdout, log: log}, nil
	}
	if opts.Path == "" {
		return nil, fmt.Errorf("audit log: no path")
	}
	if err := os.MkdirAll(filepath.Dir(opts.Path), 0o700); err != nil {
		return nil, fmt.Errorf("audit log directory: %w", err)
	}
	// Open (and so create) the file now, so that a path that cannot be
	// written fails at start-up, not on the first request.
	f, err := os.OpenFile(opts.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	f.Close()
	file := &lumberjack.Logger{Filename: opts.Path, MaxAge: opts.MaxAge, MaxBackups: opts.MaxBackups, MaxSize: opts.MaxSize}
	return &LogBackend{out: file, closer: file, log: log}, nil
}

// ProcessEvent appends ev to the log as one JSON line.
func (b *LogBackend) ProcessEvent(ev *Event) {
	line, err := json.Marshal(ev)
	if err != nil {
		b.log.Error("encode audit event", "auditID", ev.AuditID, "err", err)
		return
	}
	line = append(line, '\n')
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, err := b.out.Write(line); err != nil {
		b.log.Error("write audit event", "auditID", ev.AuditID, "err", err)
	}
}

// Close closes the log file.
func (b *LogBackend) Close() error {
	if b.closer == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closer.Close()
}
