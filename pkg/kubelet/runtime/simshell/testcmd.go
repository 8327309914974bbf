package simshell

// This file is test and [, which check files and compare strings and
// numbers. kubectl cp runs `test -d DIR` in the container before it copies
// in, to learn whether the destination is a directory.

import (
	"context"
	"fmt"
	"strconv"
)

// cmdTest evaluates a test expression: exit 0 when true, 1 when false, 2
// on a malformed one. Its grammar is POSIX test's with busybox's -a, -o,
// ! and parentheses; a unary operator checks a path (-e -f -d -s -r -w
// -x) or a string (-n -z), a binary one compares strings (= == !=) or
// integers (-eq -ne -lt -le -gt -ge).
func cmdTest(_ context.Context, sh *Shell, args []string, std stdio) int {
	name, operands := args[0], args[1:]
	if name == "[" {
		if len(operands) == 0 || operands[len(operands)-1] != "]" {
			fmt.Fprintln(std.err, "[: missing ]")
			return 2
		}
		operands = operands[:len(operands)-1]
	}
	if len(operands) == 0 {
		return 1
	}
	e := &testExpr{sh: sh, args: operands}
	result := e.or()
	if e.err == nil && e.pos < len(e.args) {
		e.err = fmt.Errorf("%s: unexpected operator", e.args[e.pos])
	}
	if e.err != nil {
		fmt.Fprintf(std.err, "sh: %s: %v\n", name, e.err)
		return 2
	}
	if result {
		return 0
	}
	return 1
}

// testExpr is a recursive-descent reading of test's arguments.
type testExpr struct {
	sh   *Shell
	args []string
	pos  int
	err  error
}

// peek is the next argument ("" at the end).
func (e *testExpr) peek() string {
	if e.pos < len(e.args) {
		return e.args[e.pos]
	}
	return ""
}

// next takes the next argument.
func (e *testExpr) next() string {
	a := e.peek()
	e.pos++
	return a
}

// or is and-expressions joined by -o.
func (e *testExpr) or() bool {
	v := e.and()
	for e.err == nil && e.peek() == "-o" {
		e.next()
		v = e.and() || v
	}
	return v
}

// and is negations joined by -a.
func (e *testExpr) and() bool {
	v := e.not()
	for e.err == nil && e.peek() == "-a" {
		e.next()
		v = e.not() && v
	}
	return v
}

// not is "!" before a primary, any number of times.
func (e *testExpr) not() bool {
	if e.peek() == "!" && e.pos+1 < len(e.args) {
		e.next()
		return !e.not()
	}
	return e.primary()
}

// primary is a parenthesised expression, a unary or binary test, or a
// string (true when not empty).
func (e *testExpr) primary() bool {
	if e.pos >= len(e.args) {
		e.err = fmt.Errorf("argument expected")
		return false
	}
	if e.peek() == "(" && e.pos+1 < len(e.args) {
		e.next()
		v := e.or()
		if e.next() != ")" && e.err == nil {
			e.err = fmt.Errorf("closing paren expected")
		}
		return v
	}
	if e.pos+2 < len(e.args) && isBinaryTest(e.args[e.pos+1]) {
		left, op, right := e.next(), e.next(), e.next()
		return e.binary(left, op, right)
	}
	if op := e.peek(); isUnaryTest(op) && e.pos+1 < len(e.args) {
		e.next()
		return e.unary(op, e.next())
	}
	return e.next() != ""
}

// isUnaryTest reports whether op is one of test's unary operators.
func isUnaryTest(op string) bool {
	switch op {
	case "-e", "-f", "-d", "-s", "-r", "-w", "-x", "-n", "-z", "-h", "-L":
		return true
	}
	return false
}

// isBinaryTest reports whether op is one of test's binary operators.
func isBinaryTest(op string) bool {
	switch op {
	case "=", "==", "!=", "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
		return true
	}
	return false
}

// unary applies a unary operator. The simulated files have no owners,
// modes or links: every file is readable and writable (by root), a
// directory or a command in /bin is executable, and nothing is a
// symbolic link.
func (e *testExpr) unary(op, operand string) bool {
	switch op {
	case "-n":
		return operand != ""
	case "-z":
		return operand == ""
	case "-h", "-L":
		return false
	}
	p := e.sh.abs(operand)
	info, err := e.sh.fs.stat(p)
	if err != nil {
		return false
	}
	switch op {
	case "-f":
		return !info.dir
	case "-d":
		return info.dir
	case "-s":
		return info.size > 0
	case "-x":
		_, isCommand := lookupCommand(p)
		return info.dir || isCommand
	}
	return true // -e, -r, -w
}

// binary applies a binary operator.
func (e *testExpr) binary(left, op, right string) bool {
	switch op {
	case "=", "==":
		return left == right
	case "!=":
		return left != right
	}
	a, errA := strconv.ParseInt(left, 10, 64)
	b, errB := strconv.ParseInt(right, 10, 64)
	if errA != nil || errB != nil {
		bad := left
		if errA == nil {
			bad = right
		}
		e.err = fmt.Errorf("invalid number '%s'", bad)
		return false
	}
	switch op {
	case "-eq":
		return a == b
	case "-ne":
		return a != b
	case "-lt":
		return a < b
	case "-le":
		return a <= b
	case "-gt":
		return a > b
	}
	return a >= b // -ge
}
