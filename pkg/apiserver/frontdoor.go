package apiserver

import (
	"fmt"
	"net"
	"net/url"
)

// validateFrontDoor checks the options that let several apiservers share
// one front door (a load balancer): --tls-san and --kubeconfig-server.
func (o Options) validateFrontDoor() error {
	for _, san := range o.TLSSANs {
		if net.ParseIP(san) == nil && !isDNSName(san) {
			return fmt.Errorf("--tls-san %q: must be a host name or an IP address", san)
		}
	}
	if o.KubeconfigServer != "" {
		u, err := url.Parse(o.KubeconfigServer)
		if err != nil || u.Scheme != "https" || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return fmt.Errorf("--kubeconfig-server %q: must be an https://host:port URL", o.KubeconfigServer)
		}
	}
	return nil
}

// isDNSName reports whether name could be a certificate's DNS name: letters,
// digits, '-', '.' and a leading "*." wildcard.
func isDNSName(name string) bool {
	if name == "" || len(name) > 253 {
		return false
	}
	for i, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.':
		case r == '*' && i == 0:
		default:
			return false
		}
	}
	return true
}
