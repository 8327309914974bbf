package simshell

// This file splits a command's arguments into single-letter flags and
// operands, the way busybox's option parser reads them: "-rf" is -r and
// -f, flags may follow operands, "--" ends the flags and "-" alone is an
// operand.

// shortFlags returns the flags of args (without the command name) that are
// in known, and the operands. bad is the first flag not in known (0 when
// none was), which the command reports as busybox does ("rm: unrecognized
// option: z").
func shortFlags(args []string, known string) (flags map[byte]bool, operands []string, bad byte) {
	flags = map[byte]bool{}
	for i, a := range args {
		switch {
		case a == "--":
			return flags, append(operands, args[i+1:]...), bad
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				if !containsByte(known, a[j]) {
					if bad == 0 {
						bad = a[j]
					}
					continue
				}
				flags[a[j]] = true
			}
		default:
			operands = append(operands, a)
		}
	}
	return flags, operands, bad
}

// containsByte reports whether s holds c.
func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}
