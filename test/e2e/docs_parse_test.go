package e2e

import (
	"fmt"
	"regexp"
	"strings"
)

// This file reads the executable blocks out of a Markdown document; the
// convention is described at the top of docs_test.go and in
// docs/writing-docs.md.

// docBlock is one ```console block of a document, with the docs-test
// annotations written in HTML comments just before it.
type docBlock struct {
	// file is the document's path relative to the repository root; line is
	// the line of the opening fence (1-based).
	file string
	line int
	// setup commands run before the block, silently; each must exit 0.
	setup []string
	// waitFor commands run before the block (after setup) until each exits
	// 0, for state the reader is told to wait for.
	waitFor []string
	// skip is the reason the block is not run; empty runs it.
	skip     string
	commands []docCommand
}

// docCommand is one `$ ` line of a block (with its continuation lines and
// here-documents) and the output the document says it prints.
type docCommand struct {
	line     int
	text     string
	expected []string
}

var (
	// fenceRE matches an opening or closing code fence: its indentation,
	// its marker (``` or ~~~, possibly longer) and its info string.
	fenceRE = regexp.MustCompile("^( *)(`{3,}|~{3,})\\s*(.*)$")
	// annotationRE matches a whole-line docs-test annotation.
	annotationRE = regexp.MustCompile(`^<!--\s*docs-test:\s*([a-z-]+)\s*(.*?)\s*-->$`)
	// heredocRE finds the here-document delimiters of a command
	// (<<EOF, <<'EOF', <<"EOF", <<-EOF).
	heredocRE = regexp.MustCompile(`<<(-?)\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)['"]?`)
)

// parseDoc returns the ```console blocks of a Markdown document. Errors
// point at the offending line: a stray annotation (one not followed by a
// console block), an unknown annotation, a skip without a reason, an
// unclosed fence, output before a block's first command.
func parseDoc(file, content string) ([]docBlock, error) {
	lines := strings.Split(content, "\n")
	var (
		blocks  []docBlock
		pending *docBlock // annotations waiting for their block
		pendAt  int       // line of the first pending annotation
	)
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "<!--") && strings.Contains(trimmed, "docs-test") {
			m := annotationRE.FindStringSubmatch(trimmed)
			if m == nil {
				return nil, fmt.Errorf("%s:%d: a docs-test annotation is one line: <!-- docs-test: VERB ARGS -->", file, i+1)
			}
			if pending == nil {
				pending, pendAt = &docBlock{}, i+1
			}
			if err := addAnnotation(pending, m[1], m[2]); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", file, i+1, err)
			}
			continue
		}
		m := fenceRE.FindStringSubmatch(line)
		if m == nil {
			if pending != nil && trimmed != "" {
				return nil, fmt.Errorf("%s:%d: a docs-test annotation must be followed by its ```console block (only blank lines between)", file, pendAt)
			}
			continue
		}
		indent, marker, info := len(m[1]), m[2], strings.Fields(m[3])
		tag := ""
		if len(info) > 0 {
			tag = info[0]
		}
		body, end, err := fenceBody(lines, i, indent, marker)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, i+1, err)
		}
		if tag == "console" {
			b := docBlock{}
			if pending != nil {
				b = *pending
			}
			b.file, b.line = file, i+1
			if b.commands, err = parseCommands(body, i+2); err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			blocks = append(blocks, b)
		} else if pending != nil {
			return nil, fmt.Errorf("%s:%d: a docs-test annotation before a ```%s block: only ```console blocks are run", file, pendAt, tag)
		}
		pending = nil
		i = end
	}
	if pending != nil {
		return nil, fmt.Errorf("%s:%d: a docs-test annotation with no ```console block after it", file, pendAt)
	}
	return blocks, nil
}

// addAnnotation records one annotation on the block it precedes.
func addAnnotation(b *docBlock, verb, arg string) error {
	switch verb {
	case "setup":
		if arg == "" {
			return fmt.Errorf("docs-test: setup needs a command")
		}
		b.setup = append(b.setup, arg)
	case "wait-for":
		if arg == "" {
			return fmt.Errorf("docs-test: wait-for needs a command")
		}
		b.waitFor = append(b.waitFor, arg)
	case "skip":
		if arg == "" {
			return fmt.Errorf("docs-test: skip needs a reason")
		}
		b.skip = arg
	default:
		return fmt.Errorf("unknown docs-test annotation %q (setup, wait-for, skip)", verb)
	}
	return nil
}

// fenceBody returns the lines inside the fence opened at lines[open]
// (without the fence's indentation) and the index of the closing line.
func fenceBody(lines []string, open, indent int, marker string) ([]string, int, error) {
	var body []string
	for j := open + 1; j < len(lines); j++ {
		t := strings.TrimSpace(lines[j])
		if strings.HasPrefix(t, marker) && strings.Trim(t, marker[:1]) == "" {
			return body, j, nil
		}
		l := lines[j]
		for k := 0; k < indent && strings.HasPrefix(l, " "); k++ {
			l = l[1:]
		}
		body = append(body, l)
	}
	return nil, 0, fmt.Errorf("code fence %s is never closed", marker)
}

// parseCommands splits a console block into commands and their expected
// output. first is the file line of body[0].
func parseCommands(body []string, first int) ([]docCommand, error) {
	var cmds []docCommand
	for i := 0; i < len(body); i++ {
		line := body[i]
		if !strings.HasPrefix(line, "$ ") {
			if len(cmds) == 0 {
				if strings.TrimSpace(line) == "" {
					continue
				}
				return nil, fmt.Errorf("%d: a console block starts with a `$ ` command, not %q", first+i, line)
			}
			last := &cmds[len(cmds)-1]
			last.expected = append(last.expected, line)
			continue
		}
		cmd := docCommand{line: first + i, text: strings.TrimPrefix(line, "$ ")}
		// Continuation lines: a trailing backslash, as in a shell.
		for strings.HasSuffix(cmd.text, `\`) && i+1 < len(body) {
			i++
			cmd.text += "\n" + body[i]
		}
		// Here-documents: their lines belong to the command.
		for _, h := range heredocRE.FindAllStringSubmatch(cmd.text, -1) {
			delim, found := h[3], false
			for i+1 < len(body) {
				i++
				cmd.text += "\n" + body[i]
				got := body[i]
				if h[1] == "-" {
					got = strings.TrimLeft(got, "\t")
				}
				if got == delim {
					found = true
					break
				}
			}
			if !found {
				return nil, fmt.Errorf("%d: here-document %s is never closed", cmd.line, delim)
			}
		}
		cmds = append(cmds, cmd)
	}
	for i := range cmds {
		cmds[i].expected = trimTrailingBlank(cmds[i].expected)
	}
	return cmds, nil
}

// trimTrailingBlank drops the blank lines at the end of lines.
func trimTrailingBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return nil
	}
	return lines
}
