package ui

import (
	"fmt"
	"io"
	"strings"
)

// writeEvent writes one server-sent event (the text/event-stream format of
// the HTML standard): an id line, which the browser sends back as
// Last-Event-ID when it reconnects; an event line naming the type, which
// picks the page's listener; one data line per line of data; and the blank
// line that ends the event.
func writeEvent(w io.Writer, id uint64, event string, data []byte) error {
	var b strings.Builder
	fmt.Fprintf(&b, "id: %d\nevent: %s\n", id, event)
	for line := range strings.SplitSeq(string(data), "\n") {
		b.WriteString("data: ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// writeComment writes an SSE comment line, which the browser ignores: a
// heartbeat that keeps idle proxies and the connection's liveness check
// honest.
func writeComment(w io.Writer, text string) error {
	_, err := fmt.Fprintf(w, ": %s\n\n", text)
	return err
}
