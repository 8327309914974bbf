package simshell

// This file turns a command line into the shape the shell runs: a list of
// and-or chains (separated by ";" or newlines), each a chain of pipelines
// joined by "&&" and "||", each pipeline one or more simple commands
// joined by "|". It is a small subset of the POSIX shell grammar: quoting
// ('…', "…", \x), parameter expansion ($VAR, ${VAR}, $?, $$), comments,
// and output redirections (> file, >> file, 2> file, 2>> file, 2>&1,
// >&2). There is no globbing, no input redirection, no subshell, no
// variable assignment and no control flow (if, for, while).

import (
	"fmt"
	"strings"
)

// segment is one piece of a word: literal text, a parameter, or a command
// substitution ($(…), whose text is the command line), the last two
// expanded when the command runs (so that "$?" sees the previous
// command's status).
type segment struct {
	text    string
	param   bool
	command bool
}

// word is a command-line word before expansion.
type word []segment

// redirect is one redirection of a simple command: fd (1 or 2) goes to
// target, a file or "&1" or "&2" (the other stream); appendTo is set for
// ">>", which appends to the file rather than emptying it first.
type redirect struct {
	fd       int
	target   word
	appendTo bool
}

// simpleCommand is a command name with its arguments and redirections.
type simpleCommand struct {
	words     []word
	redirects []redirect
}

// pipeline is commands joined by "|": each one's standard output is the
// next one's standard input.
type pipeline []simpleCommand

// andOr is pipelines joined by "&&" and "||": ops[i] joins pipelines[i]
// and pipelines[i+1].
type andOr struct {
	pipelines []pipeline
	ops       []string
}

// syntaxError is a line the shell cannot parse, worded like busybox ash.
type syntaxError struct{ msg string }

// Error is the message after "sh: ".
func (e *syntaxError) Error() string { return "syntax error: " + e.msg }

// errArithmetic refuses $((…)), which the simulated shell does not
// evaluate, rather than misread it as a command substitution.
var errArithmetic = &syntaxError{"arithmetic expansion $((…)) is not supported by kplane's simulated shell"}

// token is a lexer token: an operator (";", "&&", "||", "|", a
// redirection) or a word.
type token struct {
	op   string
	word word
}

// parse reads a command line (which may hold several lines) into its
// and-or chains.
func parse(line string) ([]andOr, error) {
	tokens, err := lex(line)
	if err != nil {
		return nil, err
	}
	var lists []andOr
	var current andOr
	var pipe pipeline
	var cmd simpleCommand
	endCommand := func(op string) error {
		if len(cmd.words) == 0 {
			if len(cmd.redirects) > 0 {
				return &syntaxError{fmt.Sprintf("unexpected %q", op)}
			}
			return nil
		}
		pipe = append(pipe, cmd)
		cmd = simpleCommand{}
		return nil
	}
	for i := 0; i < len(tokens); i++ {
		t := tokens[i]
		switch t.op {
		case "":
			cmd.words = append(cmd.words, t.word)
		case ">", ">>", "2>", "2>>", ">&2", "2>&1":
			r := redirect{fd: 1, appendTo: strings.HasSuffix(t.op, ">>")}
			if strings.HasPrefix(t.op, "2") {
				r.fd = 2
			}
			switch t.op {
			case ">&2":
				r.target = word{{text: "&2"}}
			case "2>&1":
				r.target = word{{text: "&1"}}
			default:
				if i+1 >= len(tokens) || tokens[i+1].op != "" {
					return nil, &syntaxError{"unexpected newline"}
				}
				i++
				r.target = tokens[i].word
			}
			cmd.redirects = append(cmd.redirects, r)
		case "|", "&&", "||":
			if len(cmd.words) == 0 {
				return nil, &syntaxError{fmt.Sprintf("unexpected %q", t.op)}
			}
			_ = endCommand(t.op)
			if t.op != "|" {
				current.pipelines = append(current.pipelines, pipe)
				current.ops = append(current.ops, t.op)
				pipe = nil
			}
		case ";":
			if len(cmd.words) == 0 && len(pipe) > 0 {
				return nil, &syntaxError{`unexpected ";"`}
			}
			if err := endCommand(t.op); err != nil {
				return nil, err
			}
			if len(pipe) > 0 {
				current.pipelines = append(current.pipelines, pipe)
				pipe = nil
			} else if len(current.ops) > 0 {
				return nil, &syntaxError{`unexpected ";"`}
			}
			if len(current.pipelines) > 0 {
				lists = append(lists, current)
			}
			current = andOr{}
		}
	}
	if err := endCommand("end of file"); err != nil {
		return nil, err
	}
	if len(pipe) > 0 {
		current.pipelines = append(current.pipelines, pipe)
	} else if len(current.ops) > 0 || len(current.pipelines) > 0 {
		return nil, &syntaxError{"unexpected end of file"}
	}
	if len(current.pipelines) > 0 {
		lists = append(lists, current)
	}
	return lists, nil
}

// lex splits a line into words and operators. A newline is ";". An
// unquoted '#' at the start of a word starts a comment.
func lex(line string) ([]token, error) {
	var tokens []token
	var w word
	inWord := false
	lit := func(s string) {
		inWord = true
		if n := len(w); n > 0 && !w[n-1].param && !w[n-1].command {
			w[n-1].text += s
			return
		}
		w = append(w, segment{text: s})
	}
	flush := func() {
		if inWord {
			tokens = append(tokens, token{word: w})
		}
		w, inWord = nil, false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '\n' || c == ';':
			flush()
			tokens = append(tokens, token{op: ";"})
		case c == '#' && !inWord:
			for i < len(line) && line[i] != '\n' {
				i++
			}
			i--
		case c == '&' && strings.HasPrefix(line[i:], "&&"), c == '|' && strings.HasPrefix(line[i:], "||"):
			flush()
			tokens = append(tokens, token{op: line[i : i+2]})
			i++
		case c == '|':
			flush()
			tokens = append(tokens, token{op: "|"})
		case c == '&':
			return nil, &syntaxError{"background jobs (&) are not supported by kplane's simulated shell"}
		case c == '>' || (c == '2' && !inWord && strings.HasPrefix(line[i:], "2>")):
			flush()
			op := ">"
			for _, candidate := range []string{"2>&1", ">&2", "2>>", "2>", ">>"} {
				if strings.HasPrefix(line[i:], candidate) {
					op = candidate
					break
				}
			}
			i += len(op) - 1
			tokens = append(tokens, token{op: op})
		case c == '<':
			return nil, &syntaxError{"input redirection (<) is not supported by kplane's simulated shell"}
		case c == '\\':
			if i+1 < len(line) {
				i++
				if line[i] != '\n' {
					lit(string(line[i]))
				}
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, &syntaxError{"unterminated quoted string"}
			}
			lit(line[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			inWord = true
			j := i + 1
			for ; j < len(line) && line[j] != '"'; j++ {
				switch {
				case line[j] == '\\' && j+1 < len(line) && strings.ContainsRune("\"\\$`", rune(line[j+1])):
					j++
					lit(string(line[j]))
				case line[j] == '$':
					if strings.HasPrefix(line[j:], "$((") {
						return nil, errArithmetic
					}
					n, seg := param(line[j:])
					if n == 0 {
						lit("$")
						continue
					}
					w = append(w, seg)
					j += n - 1
				default:
					lit(string(line[j]))
				}
			}
			if j >= len(line) {
				return nil, &syntaxError{"unterminated quoted string"}
			}
			i = j
		case c == '$':
			if strings.HasPrefix(line[i:], "$((") {
				return nil, errArithmetic
			}
			n, seg := param(line[i:])
			if n == 0 {
				lit("$")
				continue
			}
			inWord = true
			w = append(w, seg)
			i += n - 1
		default:
			lit(string(c))
		}
	}
	flush()
	return tokens, nil
}

// param reads a parameter reference at the start of s ("$HOME",
// "${HOME}", "$?", "$$") or a command substitution ("$(hostname)") and
// returns its length and segment; 0 when s holds none (a lone "$" is
// literal).
func param(s string) (int, segment) {
	if len(s) < 2 {
		return 0, segment{}
	}
	switch c := s[1]; {
	case c == '(':
		end := strings.IndexByte(s, ')')
		if end < 0 {
			return 0, segment{}
		}
		return end + 1, segment{text: s[2:end], command: true}
	case c == '?' || c == '$' || c == '#' || (c >= '0' && c <= '9'):
		return 2, segment{text: s[1:2], param: true}
	case c == '{':
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return 0, segment{}
		}
		return end + 1, segment{text: s[2:end], param: true}
	case isNameByte(c):
		n := 1
		for n < len(s) && isNameByte(s[n]) {
			n++
		}
		return n, segment{text: s[1:n], param: true}
	}
	return 0, segment{}
}

// isNameByte reports whether c may appear in a variable name.
func isNameByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// expand turns a word into its text, looking parameters up with lookup
// and running command substitutions with substitute.
func (w word) expand(lookup, substitute func(string) string) string {
	var b strings.Builder
	for _, s := range w {
		switch {
		case s.param:
			b.WriteString(lookup(s.text))
		case s.command:
			b.WriteString(substitute(s.text))
		default:
			b.WriteString(s.text)
		}
	}
	return b.String()
}
