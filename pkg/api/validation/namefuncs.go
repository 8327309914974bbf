package validation

// ValidateNameFunc checks an object's name (prefix false) or its
// generateName (prefix true) and returns the reasons it is malformed. Each
// kind picks the function that fits how its name is used: a Service's name
// becomes a DNS label, a ConfigMap's only a key in etcd.
type ValidateNameFunc func(name string, prefix bool) []string

// maskTrailingDash makes a generateName prefix checkable with the rules for a
// full name: the prefix may end in '-' because random characters follow it.
func maskTrailingDash(name string) string {
	if len(name) > 1 && name[len(name)-1] == '-' {
		return name[:len(name)-1] + "a"
	}
	return name
}

// NameIsDNSSubdomain accepts names that are DNS subdomains (RFC 1123), the
// rule for most kinds.
func NameIsDNSSubdomain(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return IsDNS1123Subdomain(name)
}

// NameIsDNSLabel accepts names that are DNS labels (RFC 1123): namespaces,
// and StatefulSets, whose names become pods' host names.
func NameIsDNSLabel(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return IsDNS1123Label(name)
}

// NameIsDNS1035Label accepts names that are DNS labels (RFC 1035): Services.
func NameIsDNS1035Label(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return IsDNS1035Label(name)
}

// NameIsPathSegment accepts any name usable as one URL path segment: RBAC
// roles and bindings.
func NameIsPathSegment(name string, prefix bool) []string {
	if prefix {
		// A prefix may be "." or ".." since something follows it.
		if name == "." || name == ".." {
			return nil
		}
	}
	return IsValidPathSegmentName(name)
}

// ValidateNamespaceName checks a namespace's name, which must be a DNS label.
var ValidateNamespaceName ValidateNameFunc = NameIsDNSLabel
