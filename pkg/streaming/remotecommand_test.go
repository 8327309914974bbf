package streaming

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestParseRemoteCommandOptions(t *testing.T) {
	for _, tc := range []struct {
		query   string
		want    RemoteCommandOptions
		wantErr string
	}{
		{query: "stdin=true&stdout=true&tty=true", want: RemoteCommandOptions{Stdin: true, Stdout: true, TTY: true}},
		{query: "stdout=1&stderr=1", want: RemoteCommandOptions{Stdout: true, Stderr: true}},
		// A terminal has one output: stderr is dropped, as upstream's kubelet drops it.
		{query: "stdout=true&stderr=true&tty=true", want: RemoteCommandOptions{Stdout: true, TTY: true}},
		{query: "stdout=false&tty=true", wantErr: "you must specify at least 1 of stdin, stdout, stderr"},
		{query: "command=ls", wantErr: "you must specify at least 1 of stdin, stdout, stderr"},
	} {
		q, _ := url.ParseQuery(tc.query)
		got, err := ParseRemoteCommandOptions(q)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%s: error %v, want %q", tc.query, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.query, got, err, tc.want)
		}
	}
}

// TestStatusRoundTrip: what the kubelet writes is what a client decodes,
// for each protocol generation.
func TestStatusRoundTrip(t *testing.T) {
	exit := ExitCodeStatus([]string{"sh", "-c", "exit 3"}, 3)
	b, err := encodeStatus(exit, true)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}`
	if string(b) != want {
		t.Errorf("v4 exit status:\n%s\nwant\n%s", b, want)
	}
	var code *ExitCodeError
	if err := DecodeStatus(b); !errors.As(err, &code) || code.Code != 3 || err.Error() != "command terminated with exit code 3" {
		t.Errorf("decoded %v, want exit code 3 in kubectl's words", err)
	}

	b, _ = encodeStatus(SuccessStatus(), true)
	if string(b) != `{"metadata":{},"status":"Success"}` || DecodeStatus(b) != nil {
		t.Errorf("v4 success: %s", b)
	}
	internal, _ := encodeStatus(InternalErrorStatus(errors.New("boom")), true)
	if err := DecodeStatus(internal); err == nil || err.Error() != "Internal error occurred: boom" {
		t.Errorf("internal error decoded as %v", err)
	}

	// Before v4: a failure's text, and nothing on success.
	if b, _ := encodeStatus(exit, false); !strings.HasPrefix(string(b), "command terminated with non-zero exit code") {
		t.Errorf("v1 failure = %q", b)
	}
	if b, _ := encodeStatus(SuccessStatus(), false); len(b) != 0 {
		t.Errorf("v1 success = %q, want nothing", b)
	}
}
