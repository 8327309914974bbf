package ui

import "strings"

// DiffLine is one line of a line diff: Op is ' ' (in both versions), '-'
// (only in the old one) or '+' (only in the new one).
type DiffLine struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

// maxDiffLines bounds the longest-common-subsequence table (old × new
// lines). An object's YAML is a few hundred lines; past this the diff is
// given up rather than the server's memory.
const maxDiffLines = 4000

// DiffLines returns the line diff that turns old into new: the lines of a
// longest common subsequence are kept (' '), the others removed ('-') or
// added ('+'), removals first where both happen at one place — the order
// `diff -u` prints. ok is false when either text has more than
// maxDiffLines lines.
func DiffLines(old, new string) (lines []DiffLine, ok bool) {
	a, b := splitLines(old), splitLines(new)
	if len(a) > maxDiffLines || len(b) > maxDiffLines {
		return nil, false
	}
	// common[i][j] is the length of the longest common subsequence of
	// a[i:] and b[j:].
	common := make([][]int, len(a)+1)
	for i := range common {
		common[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				common[i][j] = common[i+1][j+1] + 1
			} else {
				common[i][j] = max(common[i+1][j], common[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			lines = append(lines, DiffLine{Op: " ", Text: a[i]})
			i, j = i+1, j+1
		case common[i+1][j] >= common[i][j+1]:
			lines = append(lines, DiffLine{Op: "-", Text: a[i]})
			i++
		default:
			lines = append(lines, DiffLine{Op: "+", Text: b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		lines = append(lines, DiffLine{Op: "-", Text: a[i]})
	}
	for ; j < len(b); j++ {
		lines = append(lines, DiffLine{Op: "+", Text: b[j]})
	}
	return lines, true
}

// splitLines splits text into lines without their newlines; "" has none.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}
