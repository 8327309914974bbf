package apiserver

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"slices"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/auth"
)

// This file holds the rules of certificates.k8s.io/v1
// CertificateSigningRequests, upstream's pkg/registry/certificates
// strategies: who asked is recorded by the server, the spec never changes,
// the decision is written through /approval and the certificate through
// /status, and neither can undo the other.

// serveCSRApproval handles certificatesigningrequests/{name}/approval: GET
// reads the request, PUT and PATCH change only its Approved, Denied and
// other conditions (`kubectl certificate approve|deny` PUT here).
func (s *Server) serveCSRApproval(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	if info.res.kind != "CertificateSigningRequest" || info.name == "" {
		response.WriteError(w, response.NotFoundPath())
		return
	}
	switch r.Method {
	case http.MethodGet:
		s.serveGet(w, r, info)
	case http.MethodPut:
		s.serveReplace(w, r, info, updateApproval)
	case http.MethodPatch:
		s.servePatchMode(w, r, info, updateApproval)
	default:
		response.WriteError(w, apierrors.NewMethodNotSupported(info.res.qualified(), r.Method))
	}
}

// csrApprovalUpdate is the object an /approval write stores: the current
// request with the client's conditions and the stored certificate, as
// upstream's csrApprovalStrategy keeps everything but the conditions.
func csrApprovalUpdate(current, sent *api.CertificateSigningRequest) {
	current.Status.Conditions = sent.Status.Conditions
}

// csrStatusUpdate is the object a /status write stores: the client's
// certificate and conditions, except that Approved and Denied stay as
// they were (only /approval decides), as upstream's csrStatusStrategy.
func csrStatusUpdate(current, sent *api.CertificateSigningRequest) {
	var conditions []api.CertificateSigningRequestCondition
	for _, c := range current.Status.Conditions {
		if isApprovalCondition(c.Type) {
			conditions = append(conditions, c)
		}
	}
	for _, c := range sent.Status.Conditions {
		if !isApprovalCondition(c.Type) {
			conditions = append(conditions, c)
		}
	}
	current.Status.Conditions = conditions
	current.Status.Certificate = sent.Status.Certificate
}

func isApprovalCondition(t api.RequestConditionType) bool {
	return t == api.CertificateApproved || t == api.CertificateDenied
}

// admitCSR fills in, on create, who is asking — Spec.Username, UID, Groups
// and Extra from the authenticated user, overwriting what the client sent,
// so that approvers can trust them — and on update keeps the spec as
// stored. It then checks the request (validateCSR).
func (s *Server) admitCSR(ctx context.Context, csr *api.CertificateSigningRequest, old api.Object) error {
	if prev, ok := old.(*api.CertificateSigningRequest); ok {
		csr.Spec = prev.Spec
		return validateCSRUpdate(csr, prev)
	}
	user, _ := auth.UserFrom(ctx)
	csr.Spec.Username, csr.Spec.UID = user.Name, user.UID
	csr.Spec.Groups = slices.Clone(user.Groups)
	csr.Spec.Extra = nil
	if len(user.Extra) > 0 {
		csr.Spec.Extra = map[string][]string{}
		for k, v := range user.Extra {
			csr.Spec.Extra[k] = slices.Clone(v)
		}
	}
	csr.Status = api.CertificateSigningRequestStatus{}
	return validateCSRCreate(csr)
}

// validateCSRCreate checks a new request as upstream's
// ValidateCertificateSigningRequestCreate does for the parts kplane's
// signers read: a parseable PEM CERTIFICATE REQUEST, a signer name, and at
// least ten minutes of validity when one is asked for.
func validateCSRCreate(csr *api.CertificateSigningRequest) error {
	var errs apierrors.FieldErrorList
	if block, _ := pem.Decode(csr.Spec.Request); block == nil || block.Type != "CERTIFICATE REQUEST" {
		errs = append(errs, apierrors.Invalid("spec.request", "", "PEM block type must be CERTIFICATE REQUEST"))
	} else if _, err := x509.ParseCertificateRequest(block.Bytes); err != nil {
		errs = append(errs, apierrors.Invalid("spec.request", "", err.Error()))
	}
	if csr.Spec.SignerName == "" {
		errs = append(errs, apierrors.Required("spec.signerName", ""))
	}
	if s := csr.Spec.ExpirationSeconds; s != nil && *s < 600 {
		errs = append(errs, apierrors.Invalid("spec.expirationSeconds", *s, "may not specify a duration less than 600 seconds (10 minutes)"))
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid("CertificateSigningRequest", "certificates.k8s.io", csr.Name, errs)
	}
	return nil
}

// validateCSRUpdate checks a change of status: Approved and Denied exclude
// each other and, once there, stay; a certificate needs an approval and,
// once issued, does not change (upstream's validateConditions and
// validateCertificate).
func validateCSRUpdate(csr, old *api.CertificateSigningRequest) error {
	var errs apierrors.FieldErrorList
	_, approved := api.CSRCondition(csr, api.CertificateApproved)
	_, denied := api.CSRCondition(csr, api.CertificateDenied)
	if approved && denied {
		errs = append(errs, apierrors.Invalid("status.conditions", "", "Approved and Denied conditions are mutually exclusive"))
	}
	for _, t := range []api.RequestConditionType{api.CertificateApproved, api.CertificateDenied} {
		if _, had := api.CSRCondition(old, t); had {
			if _, has := api.CSRCondition(csr, t); !has {
				errs = append(errs, apierrors.Forbidden("status.conditions", "updates may not remove a condition of type \""+string(t)+"\""))
			}
		}
	}
	if len(csr.Status.Certificate) > 0 && !approved {
		errs = append(errs, apierrors.Forbidden("status.certificate", "certificate can only be set on an approved request"))
	}
	if len(old.Status.Certificate) > 0 && string(old.Status.Certificate) != string(csr.Status.Certificate) {
		errs = append(errs, apierrors.Forbidden("status.certificate", "updates may not modify existing certificate content"))
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid("CertificateSigningRequest", "certificates.k8s.io", csr.Name, errs)
	}
	return nil
}
