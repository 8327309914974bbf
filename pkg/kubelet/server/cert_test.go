package server

import (
	"net"
	"testing"
	"time"
)

// A kubelet serving on a non-loopback address (another network namespace,
// another host) must name it in its certificate, besides loopback; an
// unspecified or repeated address adds nothing.
func TestSelfSignedCertificateNamesServingAddress(t *testing.T) {
	cert, err := selfSignedCertificate("n1", time.Now(), net.ParseIP("192.168.250.3"), net.IPv4zero, nil, net.ParseIP("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"192.168.250.3", "127.0.0.1", "::1", "n1", "localhost"} {
		if err := cert.Leaf.VerifyHostname(host); err != nil {
			t.Errorf("certificate does not name %s: %v", host, err)
		}
	}
	if got := len(cert.Leaf.IPAddresses); got != 3 {
		t.Errorf("certificate has %d IP addresses (%v), want 3: loopback twice and 192.168.250.3", got, cert.Leaf.IPAddresses)
	}
}
