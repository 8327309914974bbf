package controllermanager

import (
	"fmt"
	"strings"
)

// isEnabled reports whether the --controllers list selection turns on
// controller d, with kube-controller-manager's rules: the first entry that
// names it decides ("name" on, "-name" off); failing that, "*" turns on
// every controller that is not DisabledByDefault; without "*" nothing else
// is on.
func isEnabled(d Descriptor, selection []string) bool {
	star := false
	for _, entry := range selection {
		switch entry {
		case d.Name:
			return true
		case "-" + d.Name:
			return false
		case "*":
			star = true
		}
	}
	return star && !d.DisabledByDefault
}

// enabledControllers returns the controllers of known that selection turns
// on, in known's order.
func enabledControllers(selection []string, known []Descriptor) []Descriptor {
	var on []Descriptor
	for _, d := range known {
		if isEnabled(d, selection) {
			on = append(on, d)
		}
	}
	return on
}

// checkSelection reports entries of selection that name no known
// controller. Like upstream, a typo is an error at start rather than a
// controller silently not running.
func checkSelection(selection []string, known []Descriptor) error {
	names := map[string]bool{}
	for _, d := range known {
		names[d.Name] = true
	}
	var unknown []string
	for _, entry := range selection {
		if entry == "*" || names[strings.TrimPrefix(entry, "-")] {
			continue
		}
		unknown = append(unknown, fmt.Sprintf("%q", entry))
	}
	if len(unknown) > 0 {
		var all []string
		for _, d := range known {
			all = append(all, d.Name)
		}
		return fmt.Errorf("--controllers: %s not in the list of known controllers (%s)",
			strings.Join(unknown, ", "), strings.Join(all, ", "))
	}
	return nil
}
