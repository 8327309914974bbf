package simshell

// This file holds the filters a pipeline can end in: grep, head and wc.
// Each reads its standard input (or the files named) and writes the lines
// it keeps.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// inputLines reads the lines of the named files, or of standard input when
// none is named.
func (sh *Shell) inputLines(name string, files []string, std stdio) ([]string, int) {
	var text strings.Builder
	status := 0
	if len(files) == 0 {
		b, _ := io.ReadAll(std.in)
		text.Write(b)
	}
	for _, f := range files {
		content, err := sh.fs.readFile(sh.abs(f))
		if err != nil {
			fmt.Fprintf(std.err, "%s: %s: %v\n", name, f, err)
			status = 2
			continue
		}
		text.Write(content)
	}
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(text.String()))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, status
}

// cmdGrep prints the lines that match a pattern (an extended regular
// expression, or with -F a fixed string). -i ignores case, -v inverts,
// -c counts, -q only sets the status: 0 when a line matched, 1 when none,
// 2 on an error, as grep does.
func cmdGrep(_ context.Context, sh *Shell, args []string, std stdio) int {
	var ignoreCase, invert, count, quiet, fixed bool
	var operands []string
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") && len(a) > 1 && len(operands) == 0 {
			for _, f := range a[1:] {
				switch f {
				case 'i':
					ignoreCase = true
				case 'v':
					invert = true
				case 'c':
					count = true
				case 'q':
					quiet = true
				case 'F':
					fixed = true
				case 'E':
				default:
					fmt.Fprintf(std.err, "grep: unrecognized option: %c\n", f)
					return 2
				}
			}
			continue
		}
		operands = append(operands, a)
	}
	if len(operands) == 0 {
		fmt.Fprintln(std.err, "Usage: grep [-icqvEF] PATTERN [FILE]...")
		return 2
	}
	pattern := operands[0]
	if fixed {
		pattern = regexp.QuoteMeta(pattern)
	}
	if ignoreCase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		fmt.Fprintf(std.err, "grep: bad regex '%s'\n", operands[0])
		return 2
	}
	lines, status := sh.inputLines("grep", operands[1:], std)
	matched := 0
	for _, line := range lines {
		if re.MatchString(line) != invert {
			matched++
			if !count && !quiet {
				fmt.Fprintln(std.out, line)
			}
		}
	}
	if count {
		fmt.Fprintln(std.out, matched)
	}
	if status != 0 {
		return status
	}
	if matched == 0 {
		return 1
	}
	return 0
}

// cmdHead prints the first lines (10, or -n N, or -N).
func cmdHead(_ context.Context, sh *Shell, args []string, std stdio) int {
	n := 10
	var files []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-n" && i+1 < len(args):
			i++
			a = "-" + args[i]
			fallthrough
		case strings.HasPrefix(a, "-") && len(a) > 1:
			v, err := strconv.Atoi(strings.TrimPrefix(a[1:], "n"))
			if err != nil || v < 0 {
				fmt.Fprintf(std.err, "head: invalid number '%s'\n", a[1:])
				return 1
			}
			n = v
		default:
			files = append(files, a)
		}
	}
	lines, status := sh.inputLines("head", files, std)
	for i := 0; i < n && i < len(lines); i++ {
		fmt.Fprintln(std.out, lines[i])
	}
	return min(status, 1)
}

// cmdWc counts lines (-l), words (-w) or bytes (-c) of its input; with no
// flag all three, in busybox's columns.
func cmdWc(_ context.Context, sh *Shell, args []string, std stdio) int {
	var files []string
	var flags string
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			flags += a[1:]
		} else {
			files = append(files, a)
		}
	}
	lines, status := sh.inputLines("wc", files, std)
	words, bytes := 0, 0
	for _, l := range lines {
		words += len(strings.Fields(l))
		bytes += len(l) + 1
	}
	switch flags {
	case "l":
		fmt.Fprintln(std.out, len(lines))
	case "w":
		fmt.Fprintln(std.out, words)
	case "c":
		fmt.Fprintln(std.out, bytes)
	default:
		fmt.Fprintf(std.out, "%9d %9d %9d\n", len(lines), words, bytes)
	}
	return min(status, 1)
}
