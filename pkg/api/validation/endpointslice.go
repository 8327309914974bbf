package validation

import (
	"fmt"
	"net/netip"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// The limits upstream's discovery validation puts on one EndpointSlice.
// The endpointslice controller stays well below them (100 endpoints per
// slice by default); they bound what anyone else may write.
const (
	maxEndpointsPerSlice    = 1000
	maxPortsPerSlice        = 100
	maxAddressesPerEndpoint = 100
)

// supportedAddressTypes are the address types a slice may have, sorted as
// upstream lists them in messages.
var supportedAddressTypes = []string{string(api.AddressTypeFQDN), string(api.AddressTypeIPv4), string(api.AddressTypeIPv6)}

// validateEndpointSlice checks a new discovery.k8s.io EndpointSlice: a
// supported addressType, at most 1000 endpoints each with 1–100 addresses
// of that type, and at most 100 ports with unique names.
func validateEndpointSlice(slice *api.EndpointSlice) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&slice.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validateEndpointSliceContent(slice)...)
}

// validateEndpointSliceUpdate checks an update: the same rules, and the
// addressType may not change (consumers index slices by it).
func validateEndpointSliceUpdate(slice, old *api.EndpointSlice) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&slice.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, validateEndpointSliceContent(slice)...)
	return append(allErrs, ValidateImmutableField(slice.AddressType, old.AddressType, "addressType")...)
}

// validateEndpointSliceContent checks everything but the metadata.
func validateEndpointSliceContent(slice *api.EndpointSlice) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	switch slice.AddressType {
	case "":
		allErrs = append(allErrs, errors.Required("addressType", ""))
	case api.AddressTypeIPv4, api.AddressTypeIPv6, api.AddressTypeFQDN:
	default:
		allErrs = append(allErrs, errors.NotSupported("addressType", string(slice.AddressType), supportedAddressTypes))
	}
	allErrs = append(allErrs, validateSliceEndpoints(slice.Endpoints, slice.AddressType)...)
	return append(allErrs, validateSlicePorts(slice.Ports)...)
}

// validateSliceEndpoints checks the endpoints of a slice. Too many of them
// is reported alone, as upstream does, rather than with an error per item.
func validateSliceEndpoints(endpoints []api.Endpoint, addressType api.AddressType) errors.FieldErrorList {
	if len(endpoints) > maxEndpointsPerSlice {
		return errors.FieldErrorList{errors.TooMany("endpoints", len(endpoints), maxEndpointsPerSlice)}
	}
	var allErrs errors.FieldErrorList
	for i, endpoint := range endpoints {
		endpointPath := index("endpoints", i)
		addressesPath := child(endpointPath, "addresses")
		switch n := len(endpoint.Addresses); {
		case n == 0:
			allErrs = append(allErrs, errors.Required(addressesPath, "must contain at least 1 address"))
		case n > maxAddressesPerEndpoint:
			allErrs = append(allErrs, errors.TooMany(addressesPath, n, maxAddressesPerEndpoint))
		}
		for j, address := range endpoint.Addresses {
			allErrs = append(allErrs, validateSliceAddress(address, addressType, index(addressesPath, j))...)
		}
		if endpoint.Hostname != nil {
			allErrs = append(allErrs, validateDNS1123Label(*endpoint.Hostname, child(endpointPath, "hostname"))...)
		}
	}
	return allErrs
}

// validateSliceAddress checks one address against the slice's type. An IP
// must be of the slice's family and usable as a backend: not unspecified
// or link-local, which name the node itself rather than a pod.
// An unknown address type has already been reported; its addresses are
// not checked.
func validateSliceAddress(address string, addressType api.AddressType, fldPath string) errors.FieldErrorList {
	switch addressType {
	case api.AddressTypeIPv4, api.AddressTypeIPv6:
		ip, err := netip.ParseAddr(address)
		if err != nil || ip.Zone() != "" || ip.Is4() != (addressType == api.AddressTypeIPv4) || ip.Is4In6() {
			family := "IPv4"
			if addressType == api.AddressTypeIPv6 {
				family = "IPv6"
			}
			return errors.FieldErrorList{errors.Invalid(fldPath, address, "must be a valid "+family+" address")}
		}
		return validateNonSpecialIP(ip, address, fldPath)
	case api.AddressTypeFQDN:
		return validateFQDN(address, fldPath)
	}
	return nil
}

// validateNonSpecialIP refuses the addresses that cannot be a Service's
// backend, with upstream's messages. Upstream refuses loopback addresses
// too; kplane accepts them, because its apiserver listens on 127.0.0.1 and
// the `kubernetes` Service's slice must say so (kplane's Endpoints
// validation accepts them for the same reason).
func validateNonSpecialIP(ip netip.Addr, address, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if ip.IsUnspecified() {
		allErrs = append(allErrs, errors.Invalid(fldPath, address, fmt.Sprintf("may not be unspecified (%s)", address)))
	}
	if ip.IsLinkLocalUnicast() {
		allErrs = append(allErrs, errors.Invalid(fldPath, address, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
	}
	if ip.IsLinkLocalMulticast() {
		allErrs = append(allErrs, errors.Invalid(fldPath, address, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
	}
	return allErrs
}

// validateFQDN checks a fully qualified domain name: a DNS subdomain of at
// least two labels.
func validateFQDN(name, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for _, msg := range IsDNS1123Subdomain(strings.ToLower(name)) {
		allErrs = append(allErrs, errors.Invalid(fldPath, name, msg))
	}
	if len(allErrs) == 0 && !strings.Contains(name, ".") {
		allErrs = append(allErrs, errors.Invalid(fldPath, name, "should be a domain with at least two segments separated by dots"))
	}
	return allErrs
}

// validateSlicePorts checks the ports of a slice: names are DNS labels (or
// empty) and unique, the protocol is set (defaulting makes it TCP) and
// supported, and an appProtocol is a qualified name. The port number is not
// checked, as upstream does not check it.
func validateSlicePorts(ports []api.EndpointSlicePort) errors.FieldErrorList {
	if len(ports) > maxPortsPerSlice {
		return errors.FieldErrorList{errors.TooMany("ports", len(ports), maxPortsPerSlice)}
	}
	var allErrs errors.FieldErrorList
	names := map[string]bool{}
	for i, port := range ports {
		portPath := index("ports", i)
		name := ""
		if port.Name != nil {
			name = *port.Name
		}
		if name != "" {
			allErrs = append(allErrs, validateDNS1123Label(name, child(portPath, "name"))...)
		}
		if names[name] {
			allErrs = append(allErrs, errors.Duplicate(child(portPath, "name"), name))
		}
		names[name] = true
		if port.Protocol == nil {
			allErrs = append(allErrs, errors.Required(child(portPath, "protocol"), ""))
		} else if *port.Protocol == "" {
			allErrs = append(allErrs, errors.NotSupported(child(portPath, "protocol"), "", supportedProtocols))
		} else {
			allErrs = append(allErrs, validateProtocol(*port.Protocol, child(portPath, "protocol"))...)
		}
		if port.AppProtocol != nil {
			for _, msg := range IsQualifiedName(*port.AppProtocol) {
				allErrs = append(allErrs, errors.Invalid(child(portPath, "appProtocol"), *port.AppProtocol, msg))
			}
		}
	}
	return allErrs
}
