package api

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// This file holds certificates.k8s.io/v1 CertificateSigningRequest: a
// client asks for a certificate by posting a PKCS#10 request, someone (a
// person with `kubectl certificate approve`, or the csrapproving
// controller) approves or denies it, and a signer (the csrsigning
// controller) puts the issued certificate in its status. Kubelets joining
// a cluster get their client certificates this way (TLS bootstrap).

// CertificateSigningRequest is a request for a certificate from the signer
// Spec.SignerName names. Spec is immutable after creation; the approval
// lives in Status.Conditions (written through /approval) and the issued
// certificate in Status.Certificate (written through /status).
type CertificateSigningRequest struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       CertificateSigningRequestSpec   `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status     CertificateSigningRequestStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// CertificateSigningRequestSpec is the request and who made it. Username,
// UID, Groups and Extra are set by the apiserver from the requesting user
// on create; whatever a client sends there is overwritten, so an approver
// can trust them.
type CertificateSigningRequestSpec struct {
	// Request is the PEM "CERTIFICATE REQUEST" block (base64 in JSON).
	Request []byte `json:"request" protobuf:"bytes,1,opt,name=request"`
	// SignerName is the signer asked to sign: kubernetes.io/kube-apiserver-client-kubelet
	// for a kubelet's client certificate.
	SignerName string `json:"signerName" protobuf:"bytes,7,opt,name=signerName"`
	// ExpirationSeconds is the validity the client asks for; the signer may
	// issue a shorter one.
	ExpirationSeconds *int32 `json:"expirationSeconds,omitempty" protobuf:"varint,8,opt,name=expirationSeconds"`
	// Usages are the key usages asked for ("client auth", "digital signature"…).
	Usages []KeyUsage `json:"usages,omitempty" protobuf:"bytes,5,opt,name=usages"`

	Username string   `json:"username,omitempty" protobuf:"bytes,2,opt,name=username"`
	UID      string   `json:"uid,omitempty" protobuf:"bytes,3,opt,name=uid"`
	Groups   []string `json:"groups,omitempty" protobuf:"bytes,4,rep,name=groups"`
	// Extra has no protobuf tag, as in TokenReview's user info.
	Extra map[string][]string `json:"extra,omitempty"`
}

// KeyUsage is one usage a certificate is requested for, spelled as
// upstream's certificates/v1 constants.
type KeyUsage string

// The usages a kubelet client certificate asks for.
const (
	UsageDigitalSignature KeyUsage = "digital signature"
	UsageKeyEncipherment  KeyUsage = "key encipherment"
	UsageClientAuth       KeyUsage = "client auth"
	UsageServerAuth       KeyUsage = "server auth"
)

// Well-known signer names (upstream's certificates/v1 constants).
const (
	// KubeAPIServerClientSignerName signs client certificates the
	// apiserver honours; nothing approves them automatically.
	KubeAPIServerClientSignerName = "kubernetes.io/kube-apiserver-client"
	// KubeAPIServerClientKubeletSignerName signs kubelets' client
	// certificates (CN system:node:<name>, O system:nodes), which the
	// csrapproving controller may approve automatically.
	KubeAPIServerClientKubeletSignerName = "kubernetes.io/kube-apiserver-client-kubelet"
	// KubeletServingSignerName signs kubelets' serving certificates.
	KubeletServingSignerName = "kubernetes.io/kubelet-serving"
)

// CertificateSigningRequestStatus is the decision and the result.
type CertificateSigningRequestStatus struct {
	Conditions []CertificateSigningRequestCondition `json:"conditions,omitempty" protobuf:"bytes,1,rep,name=conditions"`
	// Certificate is the issued PEM chain, set once the request is
	// Approved and signed.
	Certificate []byte `json:"certificate,omitempty" protobuf:"bytes,2,opt,name=certificate"`
}

// RequestConditionType is a CSR condition's type.
type RequestConditionType string

// The CSR conditions. Approved and Denied exclude each other and, once
// set, cannot be removed; Failed says the signer gave up.
const (
	CertificateApproved RequestConditionType = "Approved"
	CertificateDenied   RequestConditionType = "Denied"
	CertificateFailed   RequestConditionType = "Failed"
)

// CertificateSigningRequestCondition is one condition of a CSR.
type CertificateSigningRequestCondition struct {
	Type               RequestConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=RequestConditionType"`
	Status             ConditionStatus      `json:"status" protobuf:"bytes,6,opt,name=status,casttype=ConditionStatus"`
	Reason             string               `json:"reason,omitempty" protobuf:"bytes,2,opt,name=reason"`
	Message            string               `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	LastUpdateTime     Time                 `json:"lastUpdateTime,omitempty" protobuf:"bytes,4,opt,name=lastUpdateTime"`
	LastTransitionTime Time                 `json:"lastTransitionTime,omitempty" protobuf:"bytes,5,opt,name=lastTransitionTime"`
}

// CSRCondition returns the condition of type t that is True, if any.
func CSRCondition(csr *CertificateSigningRequest, t RequestConditionType) (CertificateSigningRequestCondition, bool) {
	for _, c := range csr.Status.Conditions {
		if c.Type == t && c.Status == ConditionTrue {
			return c, true
		}
	}
	return CertificateSigningRequestCondition{}, false
}

// ParseCSR reads the PKCS#10 request out of a CSR's spec.request and
// checks that it is signed by the key it carries (upstream's ParseCSR and
// the CheckSignature of its validation): the apiserver refuses a request
// that fails here, and the approver and signer read the request with it.
func ParseCSR(pemBytes []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parse certificate request: %w", err)
	}
	if err := req.CheckSignature(); err != nil {
		return nil, fmt.Errorf("invalid signature: %w", err)
	}
	return req, nil
}
