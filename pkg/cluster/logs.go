package cluster

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// palette holds the ANSI colours prefixes cycle through: cyan, yellow,
// green, magenta, blue, and their bright variants. Red is left out so it
// keeps meaning "error" in the components' own output.
var palette = []string{"36", "33", "32", "35", "34", "96", "93", "92", "95", "94"}

// console is the launcher's shared output: component log lines with a
// [component] prefix, and the launcher's own messages. One mutex keeps
// lines from different components whole.
type console struct {
	mu    sync.Mutex
	out   io.Writer
	color bool
	// width is the widest prefix, so that log lines start in one column.
	width int
}

func newConsole(out io.Writer, color bool, names []string) *console {
	c := &console{out: out, color: color}
	for _, n := range names {
		c.width = max(c.width, len(n)+2)
	}
	return c
}

// prefix renders "[name]" padded to the common width, in colour i.
func (c *console) prefix(name string, i int) string {
	p := "[" + name + "]"
	pad := strings.Repeat(" ", max(0, c.width-len(p)))
	if c.color {
		return "\x1b[" + palette[i%len(palette)] + "m" + p + "\x1b[0m" + pad + " "
	}
	return p + pad + " "
}

// line writes one log line (without its newline) after prefix.
func (c *console) line(prefix string, text []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.out, "%s%s\n", prefix, text)
}

// say writes a message of the launcher itself.
func (c *console) say(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.out, format+"\n", args...)
}

// copyLines copies a child's output, line by line, to its log file and —
// when stream is not nil — to the console after prefix. It returns when r
// reaches EOF, which happens once every process holding the pipe's write
// end has closed it (the child, and any grandchild it left behind).
func copyLines(r io.Reader, file *os.File, stream *console, prefix string) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		// ReadSlice returns ErrBufferFull for lines longer than the buffer;
		// those are passed on in pieces rather than dropped.
		text, err := br.ReadSlice('\n')
		if len(text) > 0 {
			if file != nil {
				_, _ = file.Write(text)
			}
			if stream != nil {
				stream.line(prefix, trimNewline(text))
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

func trimNewline(b []byte) []byte {
	return bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r"))
}

// tail returns the last n lines of a log file, for error messages that
// should say why a component died.
func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	// Only the end of a long-running component's log is of interest.
	const window = 64 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > window {
		_, _ = f.Seek(fi.Size()-window, io.SeekStart)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
