package ctl

import (
	"fmt"
	"strings"

	"kplane/pkg/api/validation"
)

// This file reads the KEY=VALUE and KEY- arguments of `label` and
// `annotate`, as kubectl's cmdutil.GetResourcesAndPairs, ParsePairs and
// label's parseLabels read them.

// splitResourcesAndPairs separates the leading resource arguments
// ("deploy web", "pod/x") from the changes that follow ("app=web", "tier-").
// An argument is a change when it holds a '=' not at its start, or ends in
// '-' (and is not just "-"). Resources after the first change are refused:
// `ctl label pod a=b pod/c` is ambiguous.
func splitResourcesAndPairs(args []string, pairType string) (resources, pairs []string, err error) {
	foundPair := false
	for _, arg := range args {
		isPair := (strings.Contains(arg, "=") && arg[0] != '=') || (strings.HasSuffix(arg, "-") && arg != "-")
		switch {
		case isPair:
			foundPair = true
			pairs = append(pairs, arg)
		case foundPair:
			return nil, nil, fmt.Errorf("all resources must be specified before %s changes: %s", pairType, arg)
		default:
			resources = append(resources, arg)
		}
	}
	return resources, pairs, nil
}

// parseLabelChanges reads label changes: KEY=VALUE sets, KEY- removes. A
// value must be a valid label value (checked here, as kubectl does, so the
// mistake is reported before anything is sent); a key is checked by the
// server. Setting and removing one key in one command is refused.
func parseLabelChanges(specs []string) (set map[string]string, remove []string, err error) {
	set = map[string]string{}
	for _, spec := range specs {
		switch {
		case strings.Contains(spec, "="):
			parts := strings.Split(spec, "=")
			if len(parts) != 2 {
				return nil, nil, fmt.Errorf("invalid label spec: %v", spec)
			}
			if errs := validation.IsValidLabelValue(parts[1]); len(errs) != 0 {
				return nil, nil, fmt.Errorf("invalid label value: %q: %s", spec, strings.Join(errs, ";"))
			}
			set[parts[0]] = parts[1]
		case strings.HasSuffix(spec, "-"):
			remove = append(remove, strings.TrimSuffix(spec, "-"))
		default:
			return nil, nil, fmt.Errorf("unknown label spec: %v", spec)
		}
	}
	for _, key := range remove {
		if _, ok := set[key]; ok {
			return nil, nil, fmt.Errorf("can not both modify and remove a label in the same command")
		}
	}
	return set, remove, nil
}

// parseAnnotationChanges reads annotation changes, as kubectl's ParsePairs:
// KEY=VALUE sets (the value may itself hold '='), KEY- removes; anything
// else is listed in one "invalid annotation format" error. Setting and
// removing one key in one command is refused, naming every such key.
func parseAnnotationChanges(specs []string) (set map[string]string, remove []string, err error) {
	set = map[string]string{}
	var invalid []string
	for _, spec := range specs {
		switch {
		case strings.Contains(spec, "=") && spec[0] != '=':
			key, value, _ := strings.Cut(spec, "=")
			set[key] = value
		case strings.HasSuffix(spec, "-") && spec != "-":
			remove = append(remove, strings.TrimSuffix(spec, "-"))
		default:
			invalid = append(invalid, spec)
		}
	}
	if len(invalid) > 0 {
		return nil, nil, fmt.Errorf("invalid annotation format: %s", strings.Join(invalid, ", "))
	}
	var both []string
	for _, key := range remove {
		if _, ok := set[key]; ok {
			both = append(both, key)
		}
	}
	if len(both) > 0 {
		return nil, nil, fmt.Errorf("can not both modify and remove the following annotation(s) in the same command: %s", strings.Join(both, ", "))
	}
	return set, remove, nil
}
