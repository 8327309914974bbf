package simshell

// This file holds the filters a pipeline can end in: grep, head and wc.
// Each reads its standard input (or the files named) and writes the lines
// it keeps.

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// inputText reads the named files, or standard input when none is named,
// as one text.
func (sh *Shell) inputText(name string, files []string, std stdio) (string, int) {
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
	return text.String(), status
}

// inputLines reads the lines of the named files, or of standard input when
// none is named; a last line without a newline is a line too. Lines may be
// of any length (a copied-in binary file has long ones).
func (sh *Shell) inputLines(name string, files []string, std stdio) ([]string, int) {
	text, status := sh.inputText(name, files, std)
	if text == "" {
		return nil, status
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n"), status
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
// flag all three, in busybox's columns. Counting files, it prints each
// one's counts with its name, and a total when there are several.
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
	if len(files) == 0 {
		text, _ := sh.inputText("wc", nil, std)
		fmt.Fprintln(std.out, wcCounts(text, flags))
		return 0
	}
	status := 0
	var total strings.Builder
	for _, f := range files {
		text, st := sh.inputText("wc", []string{f}, std)
		if st != 0 {
			status = 1
			continue
		}
		total.WriteString(text)
		fmt.Fprintf(std.out, "%s %s\n", wcCounts(text, flags), f)
	}
	if len(files) > 1 {
		fmt.Fprintf(std.out, "%s total\n", wcCounts(total.String(), flags))
	}
	return status
}

// wcCounts is what wc prints for text: the one count a flag asks for, or
// lines, words and bytes in columns.
func wcCounts(text, flags string) string {
	lines, words, bytes := strings.Count(text, "\n"), len(strings.Fields(text)), len(text)
	switch flags {
	case "l":
		return strconv.Itoa(lines)
	case "w":
		return strconv.Itoa(words)
	case "c":
		return strconv.Itoa(bytes)
	}
	return fmt.Sprintf("%9d %9d %9d", lines, words, bytes)
}
