package simshell

// This file runs pipelines and simple commands, and holds the table of
// commands the shell knows, with the small ones written inline.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/kubelet/podfiles"
)

// stdio are one command's standard streams.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// command is one of the shell's commands. args[0] is its name as typed;
// it returns the exit status.
type command func(ctx context.Context, sh *Shell, args []string, std stdio) int

// commands maps each known command's name to its implementation. It is
// filled in init, since several commands read it back (the not-found
// message, ls /bin).
var commands map[string]command

func init() {
	commands = map[string]command{
		"[": cmdTest, "cat": cmdCat, "cd": cmdCd, "curl": cmdCurl, "date": cmdDate, "echo": cmdEcho, "env": cmdEnv,
		"exit": cmdExit, "false": cmdFalse, "getent": cmdGetent, "grep": cmdGrep, "head": cmdHead,
		"hostname": cmdHostname, "id": cmdID, "ls": cmdLs, "mkdir": cmdMkdir, "nslookup": cmdNslookup,
		"printenv": cmdPrintenv, "ps": cmdPs, "pwd": cmdPwd, "rm": cmdRm, "sleep": cmdSleep, "tar": cmdTar,
		"test": cmdTest, "touch": cmdTouch, "true": cmdTrue, "wc": cmdWc, "wget": cmdWget, "whoami": cmdWhoami,
	}
}

// lookupCommand finds a command by name or path ("/bin/hostname").
func lookupCommand(name string) (command, bool) {
	if strings.Contains(name, "/") {
		dir := path.Dir(name)
		if !slices.Contains([]string{"/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin"}, dir) {
			return nil, false
		}
	}
	c, ok := commands[path.Base(name)]
	return c, ok
}

// commandNames lists the known commands (and sh), sorted.
func commandNames() []string {
	names := []string{"sh"}
	for name := range commands {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// runPipeline runs the commands of a pipeline one after the other, each
// one's output buffered as the next one's input (the commands are small
// and finite, so nothing needs to run concurrently). Its status is the
// last command's.
func (sh *Shell) runPipeline(ctx context.Context, p pipeline, std stdio) int {
	in := std.in
	status := 0
	for i, cmd := range p {
		stage := std
		stage.in = in
		var buf bytes.Buffer
		if i < len(p)-1 {
			stage.out = &buf
		}
		status = sh.runSimple(ctx, cmd, stage)
		in = &buf
		if sh.exited {
			break
		}
	}
	return status
}

// runSimple expands a simple command's words, applies its redirections and
// runs it.
func (sh *Shell) runSimple(ctx context.Context, cmd simpleCommand, std stdio) int {
	args := make([]string, len(cmd.words))
	for i, w := range cmd.words {
		args[i] = w.expand(sh.lookupVar, func(line string) string { return sh.substitute(ctx, line, std) })
	}
	std, files, ok := sh.openRedirects(ctx, cmd, std)
	if !ok {
		return 1
	}
	status := sh.runCommand(ctx, args, std)
	return writeErrors(args[0], files, std, status)
}

// substitute runs a command substitution's line in a subshell and returns
// its output without trailing newlines; its errors go to the shell's
// standard error.
func (sh *Shell) substitute(ctx context.Context, line string, std stdio) string {
	var out bytes.Buffer
	sub := *sh
	sub.exited = false
	sub.runLine(ctx, line, stdio{in: strings.NewReader(""), out: &out, err: std.err})
	sh.status = sub.status
	return strings.TrimRight(out.String(), "\n")
}

// runCommand runs one command with its expanded arguments.
func (sh *Shell) runCommand(ctx context.Context, args []string, std stdio) int {
	sh.nextPID++
	if isShell(args[0]) {
		sub := *sh
		sub.exited = false
		return sub.runShell(ctx, args[1:], std, Streams{Stdin: std.in})
	}
	c, ok := lookupCommand(args[0])
	if !ok {
		return sh.notFound(args[0], std)
	}
	return c(ctx, sh, args, std)
}

// notFound says what ash says about an unknown command, and the first
// time in a session what kplane's simulated shell is.
func (sh *Shell) notFound(name string, std stdio) int {
	fmt.Fprintf(std.err, "sh: %s: not found\n", name)
	if !sh.toldSimulated {
		sh.toldSimulated = true
		fmt.Fprintf(std.err, "sh: note: this is kplane's simulated runtime, where no program runs; its shell knows only: %s (see docs/kubelet.md)\n",
			strings.Join(commandNames(), " "))
	}
	return 127
}

// usage prints a usage error in busybox's words and returns its status.
func usage(std stdio, name, text string) int {
	fmt.Fprintf(std.err, "%s: %s\n", name, text)
	return 1
}

func cmdTrue(context.Context, *Shell, []string, stdio) int  { return 0 }
func cmdFalse(context.Context, *Shell, []string, stdio) int { return 1 }

// cmdExit ends the session with the given status (or the last one).
func cmdExit(_ context.Context, sh *Shell, args []string, std stdio) int {
	sh.exited = true
	if len(args) < 2 {
		return sh.status
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		fmt.Fprintf(std.err, "sh: exit: Illegal number: %s\n", args[1])
		return 2
	}
	return n & 0xff
}

// cmdEcho prints its arguments; -n leaves out the newline, -e reads
// backslash escapes.
func cmdEcho(_ context.Context, _ *Shell, args []string, std stdio) int {
	args = args[1:]
	newline, escapes := true, false
	for len(args) > 0 && (args[0] == "-n" || args[0] == "-e" || args[0] == "-ne" || args[0] == "-en") {
		newline = newline && !strings.Contains(args[0], "n")
		escapes = escapes || strings.Contains(args[0], "e")
		args = args[1:]
	}
	text := strings.Join(args, " ")
	if escapes {
		text = strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`).Replace(text)
	}
	if newline {
		text += "\n"
	}
	io.WriteString(std.out, text)
	return 0
}

// cmdHostname prints the pod's hostname, as /etc/hostname holds it.
func cmdHostname(_ context.Context, sh *Shell, args []string, std stdio) int {
	name := strings.TrimSuffix(podfiles.HostnameFile(sh.env.Pod, sh.env.ClusterDomain), "\n")
	if len(args) > 1 {
		switch args[1] {
		case "-f", "--fqdn":
			// The fully qualified name is the hosts file's first name for
			// the pod's IP: with a subdomain, <hostname>.<subdomain>.<ns>.svc.<domain>.
			if fqdn, ok := sh.resolver.hostsName(name); ok {
				name = fqdn
			}
		case "-i":
			name = strings.Join(sh.podIPs(), " ")
		case "-s":
			name, _, _ = strings.Cut(name, ".")
		default:
			// Setting the hostname needs CAP_SYS_ADMIN, which a
			// container does not have.
			fmt.Fprintf(std.err, "hostname: sethostname: Operation not permitted\n")
			return 1
		}
	}
	fmt.Fprintln(std.out, name)
	return 0
}

// cmdEnv prints the environment (env and printenv); printenv NAME prints
// one variable, exit 1 when it is not set.
func cmdEnv(_ context.Context, sh *Shell, args []string, std stdio) int {
	if len(args) > 1 && args[0] == "env" {
		fmt.Fprintf(std.err, "env: can't execute '%s': No such file or directory (kplane's simulated runtime runs no programs)\n", args[1])
		return 127
	}
	for _, name := range sh.names {
		fmt.Fprintf(std.out, "%s=%s\n", name, sh.vars[name])
	}
	return 0
}

// cmdPrintenv prints the environment, or the named variables' values.
func cmdPrintenv(ctx context.Context, sh *Shell, args []string, std stdio) int {
	if len(args) == 1 {
		return cmdEnv(ctx, sh, args, std)
	}
	status := 0
	for _, name := range args[1:] {
		if v, ok := sh.vars[name]; ok {
			fmt.Fprintln(std.out, v)
		} else {
			status = 1
		}
	}
	return status
}

// cmdID and cmdWhoami: the simulated container runs as root, as most
// images do.
func cmdID(_ context.Context, _ *Shell, _ []string, std stdio) int {
	fmt.Fprintln(std.out, "uid=0(root) gid=0(root) groups=0(root)")
	return 0
}

func cmdWhoami(_ context.Context, _ *Shell, _ []string, std stdio) int {
	fmt.Fprintln(std.out, "root")
	return 0
}

// cmdDate prints the time as busybox date does ("Fri Nov 27 14:44:03 UTC 2026").
func cmdDate(_ context.Context, sh *Shell, args []string, std stdio) int {
	now := sh.env.Now().UTC()
	if len(args) > 1 && strings.HasPrefix(args[1], "+") {
		fmt.Fprintln(std.out, strftime(args[1][1:], now))
		return 0
	}
	fmt.Fprintln(std.out, now.Format("Mon Jan _2 15:04:05 MST 2006"))
	return 0
}

// strftime formats the few date(1) conversions students use.
func strftime(format string, t time.Time) string {
	return strings.NewReplacer("%Y", t.Format("2006"), "%m", t.Format("01"), "%d", t.Format("02"), "%H", t.Format("15"),
		"%M", t.Format("04"), "%S", t.Format("05"), "%s", strconv.FormatInt(t.Unix(), 10), "%T", t.Format("15:04:05"),
		"%F", t.Format("2006-01-02"), "%Z", "UTC", "%%", "%").Replace(format)
}

// cmdSleep waits the given seconds, or until the session ends.
func cmdSleep(ctx context.Context, _ *Shell, args []string, std stdio) int {
	if len(args) < 2 {
		return usage(std, "sleep", "missing operand")
	}
	d, forever, ok := parseSleep(args[1])
	if !ok {
		fmt.Fprintf(std.err, "sleep: invalid number '%s'\n", args[1])
		return 1
	}
	var done <-chan time.Time // nil: sleep infinity waits for ctx only
	if !forever {
		t := time.NewTimer(d)
		defer t.Stop()
		done = t.C
	}
	select {
	case <-done:
		return 0
	case <-ctx.Done():
		return 130
	}
}
