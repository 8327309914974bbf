package simshell

// This file plays the part of a terminal's line discipline. With
// `kubectl exec -it`, kubectl puts the user's terminal in raw mode and
// sends every key as it is typed; in a real container the pseudo-terminal
// (the kernel's tty layer) then echoes the keys, handles backspace and
// Ctrl-C, turns Enter's "\r" into "\n" for the shell, and turns the
// shell's "\n" into "\r\n" on the way out. The simulated container has no
// pseudo-terminal, so the shell does that work itself.

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// Control keys a terminal's line discipline handles.
const (
	keyInterrupt = 0x03 // Ctrl-C: discard the line
	keyEOF       = 0x04 // Ctrl-D: end of input on an empty line
	keyBackspace = 0x08
	keyKillLine  = 0x15 // Ctrl-U: discard the line
	keyEscape    = 0x1b // starts an escape sequence (arrow keys)
	keyDelete    = 0x7f // what the Backspace key sends
)

// lineReader reads input lines one at a time, on request: the shell asks
// for the next line only when it is ready for it, so a line's echo never
// lands in the middle of the previous command's output. The reading
// happens in a goroutine so that the shell can stop waiting when its
// session ends; that goroutine ends at the end of input, or once the
// session has ended and it is not blocked in a read (the kubelet's server
// closes stdin when a session ends).
type lineReader struct {
	want  chan struct{}
	lines chan string
}

// newLineReader starts reading in. With tty it edits and echoes to echo
// as a terminal would.
func newLineReader(ctx context.Context, in io.Reader, tty bool, echo io.Writer) *lineReader {
	lr := &lineReader{want: make(chan struct{}), lines: make(chan string)}
	go func() {
		defer close(lr.lines)
		if in == nil {
			return
		}
		r := bufio.NewReader(in)
		for {
			select {
			case <-lr.want:
			case <-ctx.Done():
				return
			}
			var line string
			var ok bool
			if tty {
				line, ok = editLine(r, echo)
			} else {
				line, ok = readLine(r)
			}
			if !ok {
				return
			}
			select {
			case lr.lines <- line:
			case <-ctx.Done():
				return
			}
		}
	}()
	return lr
}

// next returns the next line; false at the end of input or of ctx.
func (lr *lineReader) next(ctx context.Context) (string, bool) {
	select {
	case lr.want <- struct{}{}:
	case <-ctx.Done():
		return "", false
	case _, open := <-lr.lines:
		if !open {
			return "", false
		}
	}
	select {
	case line, ok := <-lr.lines:
		return line, ok
	case <-ctx.Done():
		return "", false
	}
}

// readLine reads a line without a terminal; a last line without a
// newline still counts.
func readLine(r *bufio.Reader) (string, bool) {
	line, err := r.ReadString('\n')
	if err != nil && line == "" {
		return "", false
	}
	return strings.TrimSuffix(line, "\n"), true
}

// editLine is the terminal's canonical mode: it gathers keys into a line,
// echoing them, until Enter. Ctrl-C gives an empty line; Ctrl-D on an
// empty line, or the end of input, gives false.
func editLine(r *bufio.Reader, echo io.Writer) (string, bool) {
	var line []byte
	for {
		c, err := r.ReadByte()
		if err != nil {
			return "", false
		}
		switch c {
		case '\r', '\n':
			io.WriteString(echo, "\r\n")
			return string(line), true
		case keyDelete, keyBackspace:
			if len(line) > 0 {
				_, size := utf8.DecodeLastRune(line)
				line = line[:len(line)-size]
				io.WriteString(echo, "\b \b")
			}
		case keyInterrupt:
			io.WriteString(echo, "^C\r\n")
			return "", true
		case keyKillLine:
			io.WriteString(echo, strings.Repeat("\b \b", utf8.RuneCount(line)))
			line = line[:0]
		case keyEOF:
			if len(line) == 0 {
				return "", false
			}
		case keyEscape:
			// Skip an escape sequence such as ESC [ A (arrow up): the
			// simulated shell keeps no history.
			if next, err := r.ReadByte(); err == nil && next == '[' {
				for {
					b, err := r.ReadByte()
					if err != nil || (b >= 0x40 && b <= 0x7e) {
						break
					}
				}
			}
		default:
			if c >= 0x20 || c == '\t' {
				line = append(line, c)
				echo.Write([]byte{c})
			}
		}
	}
}

// crlfWriter is the terminal's output side: "\n" becomes "\r\n", so that
// the user's raw-mode terminal returns to the start of the line. It is
// safe for concurrent use, since echoed keys and a command's output may
// be written at the same time.
type crlfWriter struct {
	mu       sync.Mutex
	w        io.Writer
	lastByte byte
}

// Write writes p with each lone "\n" turned into "\r\n".
func (c *crlfWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]byte, 0, len(p)+8)
	for _, b := range p {
		if b == '\n' && c.lastByte != '\r' {
			out = append(out, '\r')
		}
		out = append(out, b)
		c.lastByte = b
	}
	if _, err := c.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
