// Command ctl starts, stops and inspects a local kplane cluster (`ctl up`,
// `ctl down`, `ctl status`). The verbs live in pkg/ctl, one file each.
package main

import (
	"context"
	"os"

	"kplane/pkg/ctl"
)

func main() {
	os.Exit(ctl.Main(context.Background(), os.Args[1:], ctl.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}))
}
