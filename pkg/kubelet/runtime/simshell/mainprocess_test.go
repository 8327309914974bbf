package simshell

import "testing"

// TestRunsAsMainProcess: a command line of known, non-sleeping commands
// runs in the shell; a sleep, an interactive shell, an unknown program or
// a command name that needs expanding does not.
func TestRunsAsMainProcess(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want bool
	}{
		{[]string{"echo", "hello"}, true},
		{[]string{"/bin/date"}, true},
		{[]string{"nslookup", "kubernetes.default"}, true},
		{[]string{"sh", "-c", "echo start; date && hostname | wc -c"}, true},
		{[]string{"/bin/sh", "-c", "printenv HOME >/dev/null || echo none"}, true},
		{[]string{"sh", "-c", "echo $(hostname)"}, true},
		{[]string{"sleep", "10"}, false},
		{[]string{"sh", "-c", "echo hi; sleep 5"}, false},
		{[]string{"sh"}, false},
		{[]string{"sh", "-i"}, false},
		{[]string{"nginx", "-g", "daemon off;"}, false},
		{[]string{"perl", "-Mbignum=bpi", "-wle", "print bpi(50)"}, false},
		{[]string{"sh", "-c", "echo hi; perl -e 1"}, false},
		{[]string{"sh", "-c", "$CMD"}, false},
		{[]string{"sh", "-c", "echo 'unterminated"}, false},
		{[]string{"/opt/bin/echo", "x"}, false},
		{nil, false},
	} {
		if got := RunsAsMainProcess(c.argv); got != c.want {
			t.Errorf("RunsAsMainProcess(%q) = %v, want %v", c.argv, got, c.want)
		}
	}
}
