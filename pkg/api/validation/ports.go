package validation

import (
	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// supportedProtocols are the port protocols Kubernetes accepts, in the sorted
// order upstream lists them in messages.
var supportedProtocols = []string{string(api.ProtocolSCTP), string(api.ProtocolTCP), string(api.ProtocolUDP)}

// validateProtocol checks a port's protocol. Empty is accepted: defaulting
// makes it TCP.
func validateProtocol(protocol api.Protocol, fldPath string) errors.FieldErrorList {
	switch protocol {
	case "", api.ProtocolTCP, api.ProtocolUDP, api.ProtocolSCTP:
		return nil
	}
	return errors.FieldErrorList{errors.NotSupported(fldPath, string(protocol), supportedProtocols)}
}

// protocolOrDefault is the protocol a port will have once defaulted.
func protocolOrDefault(protocol api.Protocol) api.Protocol {
	if protocol == "" {
		return api.ProtocolTCP
	}
	return protocol
}

// validatePortNum reports a port number outside 1–65535.
func validatePortNum(port int32, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for _, msg := range IsValidPortNum(int(port)) {
		allErrs = append(allErrs, errors.Invalid(fldPath, port, msg))
	}
	return allErrs
}

// ValidatePortNumOrName checks a port given by number (1–65535) or by the
// name of a container port (an IANA service name), as a Service's targetPort
// or a probe's port may be.
func ValidatePortNumOrName(port api.IntOrString, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if port.Type == api.IntOrStringString {
		for _, msg := range IsValidPortName(port.StrVal) {
			allErrs = append(allErrs, errors.Invalid(fldPath, port.StrVal, msg))
		}
		return allErrs
	}
	return validatePortNum(port.IntVal, fldPath)
}
