package server

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"slices"
	"time"
)

// servingValidity is how long the in-memory serving certificate lives: a
// year, like the one upstream's kubelet writes to kubelet.crt. It is made
// anew at every start, so it never needs renewing.
const servingValidity = 365 * 24 * time.Hour

// selfSignedCertificate makes the kubelet's serving certificate, as a
// kubelet started without --tls-cert-file does: self-signed, named
// "<node>@<unix time>", valid for loopback, the node's name and extraIPs
// (the address it serves on and the node's InternalIP; upstream's
// kubelet names its hostname and node IPs the same way).
func selfSignedCertificate(nodeName string, now time.Time, extraIPs ...net.IP) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("kubelet server: generate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("kubelet server: generate serial: %w", err)
	}
	host := nodeName
	if host == "" {
		host = "kubelet"
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: fmt.Sprintf("%s@%d", host, now.Unix())},
		NotBefore:    now.Add(-5 * time.Minute),
		NotAfter:     now.Add(servingValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost", host},
		IPAddresses:  servingIPs(extraIPs),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("kubelet server: sign serving certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("kubelet server: parse serving certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// servingIPs is loopback and every address of extra that is a real,
// distinct one (not nil, not 0.0.0.0 or ::).
func servingIPs(extra []net.IP) []net.IP {
	ips := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	for _, ip := range extra {
		if ip == nil || ip.IsUnspecified() || slices.ContainsFunc(ips, ip.Equal) {
			continue
		}
		ips = append(ips, ip)
	}
	return ips
}
