// Command summary prints issue 18's target table from `go test -bench`
// output: for each target, the median of its runs with [min–max] and the
// number of runs, the figure it is read against (raw etcd measured in the
// same run, the other side of a ratio) and PASS, MISS or "not run".
//
//	go run ./bench/summary bench/report.txt [more files…]
//
// With no file it reads standard input. `make bench` ends with it;
// `make bench-targets` runs only the benchmarks the table needs (-count 5)
// and then it. The table's layout and the targets are explained in
// docs/performance.md, "Issue 18 results". It exits 0 even when a target is
// missed: it reports, the reader judges.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "summary:", err)
		os.Exit(1)
	}
}

// run reads every file named in args (standard input when there are none),
// as one output, and prints the table to out.
func run(args []string, stdin io.Reader, out io.Writer) error {
	readers := []io.Reader{stdin}
	if len(args) > 0 {
		readers = nil
		for _, name := range args {
			f, err := os.Open(name)
			if err != nil {
				return fmt.Errorf("open benchmark output: %w", err)
			}
			defer f.Close()
			// The newline keeps a file's last line from running into the next's first.
			readers = append(readers, f, strings.NewReader("\n"))
		}
	}
	r, err := parse(io.MultiReader(readers...))
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "Issue 18 targets (medians of the runs in the output; docs/performance.md):")
	writeTable(out, targetRows(r))
	if processes := perProcess(r); len(processes) > 0 {
		fmt.Fprintln(out)
		fmt.Fprintln(out, "W2 per process, MiB:", strings.Join(processes, "; "))
	}
	return nil
}
