package ui

import (
	"strings"
	"testing"
)

func TestWriteEvent(t *testing.T) {
	tests := []struct {
		name  string
		id    uint64
		event string
		data  string
		want  string
	}{
		{name: "one line", id: 7, event: "upsert", data: `{"uid":"a"}`, want: "id: 7\nevent: upsert\ndata: {\"uid\":\"a\"}\n\n"},
		// A newline inside data must become a second data line: a bare
		// newline would end the field, and a blank line the event.
		{name: "multi-line data", id: 1, event: "snapshot", data: "a\n\nb", want: "id: 1\nevent: snapshot\ndata: a\ndata: \ndata: b\n\n"},
		{name: "empty data", id: 0, event: "delete", data: "", want: "id: 0\nevent: delete\ndata: \n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := writeEvent(&b, tt.id, tt.event, []byte(tt.data)); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("writeEvent wrote %q, want %q", b.String(), tt.want)
			}
		})
	}
}

func TestWriteComment(t *testing.T) {
	var b strings.Builder
	if err := writeComment(&b, "heartbeat"); err != nil {
		t.Fatal(err)
	}
	if b.String() != ": heartbeat\n\n" {
		t.Errorf("writeComment wrote %q", b.String())
	}
}
