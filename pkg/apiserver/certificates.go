package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
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
	if err := validateCSRCreate(csr); err != nil {
		return err
	}
	return refuseSystemMasters(csr)
}

// errSystemMasters is upstream's subjectrestriction refusal: a client
// certificate in the group system:masters would be a cluster-admin
// credential that RBAC cannot take away, so no one may ask for one
// through the API (any bootstrap token may create CSRs).
var errSystemMasters = errors.New("use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed")

// refuseSystemMasters is upstream's subjectrestriction admission: a
// request to the kube-apiserver-client signer may not name the
// organization system:masters. The request has been validated, so it parses.
func refuseSystemMasters(csr *api.CertificateSigningRequest) error {
	if csr.Spec.SignerName != api.KubeAPIServerClientSignerName {
		return nil
	}
	req, err := api.ParseCSR(csr.Spec.Request)
	if err != nil {
		return err
	}
	if slices.Contains(req.Subject.Organization, "system:masters") {
		return apierrors.NewForbidden(apierrors.Resource{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}, csr.Name, errSystemMasters)
	}
	return nil
}

// mayActForSigner is upstream's IsAuthorizedForSignerName: whether the
// requesting user holds verb ("approve" or "sign") on the signers
// resource named signerName, or on "<domain>/*" for the signer's domain.
// Approving through /approval needs "approve", setting a certificate
// through /status needs "sign" (upstream's certificates/approval and
// certificates/signing admission plugins).
func (s *Server) mayActForSigner(ctx context.Context, verb, signerName string) bool {
	user, _ := auth.UserFrom(ctx)
	domain, _, _ := strings.Cut(signerName, "/")
	for _, name := range []string{signerName, domain + "/*"} {
		if s.allows(ctx, authorizer.Attributes{
			User: user, Verb: verb, ResourceRequest: true,
			APIGroup: "certificates.k8s.io", APIVersion: "*", Resource: "signers", Name: name,
		}) {
			return true
		}
	}
	return false
}

// authorizeCSRApproval refuses an /approval write by a user who may not
// approve for the request's signer.
func (s *Server) authorizeCSRApproval(ctx context.Context, stored *api.CertificateSigningRequest) error {
	if s.mayActForSigner(ctx, "approve", stored.Spec.SignerName) {
		return nil
	}
	return apierrors.NewForbidden(apierrors.Resource{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}, stored.Name,
		fmt.Errorf("user not permitted to approve requests with signerName %q", stored.Spec.SignerName))
}

// authorizeCSRSigning refuses a /status write that changes the
// certificate by a user who may not sign for the request's signer.
func (s *Server) authorizeCSRSigning(ctx context.Context, stored, sent *api.CertificateSigningRequest) error {
	if string(stored.Status.Certificate) == string(sent.Status.Certificate) || s.mayActForSigner(ctx, "sign", stored.Spec.SignerName) {
		return nil
	}
	return apierrors.NewForbidden(apierrors.Resource{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}, stored.Name,
		fmt.Errorf("user not permitted to sign requests with signerName %q", stored.Spec.SignerName))
}

// validateCSRCreate checks a new request as upstream's
// ValidateCertificateSigningRequestCreate does for the parts kplane's
// signers read: a PEM CERTIFICATE REQUEST signed by its own key, a signer
// name, at least one usage, each known and none twice, and at least ten
// minutes of validity when one is asked for.
func validateCSRCreate(csr *api.CertificateSigningRequest) error {
	var errs apierrors.FieldErrorList
	if _, err := api.ParseCSR(csr.Spec.Request); err != nil {
		errs = append(errs, apierrors.Invalid("spec.request", "", err.Error()))
	}
	if csr.Spec.SignerName == "" {
		errs = append(errs, apierrors.Required("spec.signerName", ""))
	}
	if s := csr.Spec.ExpirationSeconds; s != nil && *s < 600 {
		errs = append(errs, apierrors.Invalid("spec.expirationSeconds", *s, "may not specify a duration less than 600 seconds (10 minutes)"))
	}
	if len(csr.Spec.Usages) == 0 {
		errs = append(errs, apierrors.Required("spec.usages", ""))
	}
	for i, u := range csr.Spec.Usages {
		field := fmt.Sprintf("spec.usages[%d]", i)
		switch {
		case !slices.Contains(validUsages, string(u)):
			errs = append(errs, apierrors.NotSupported(field, u, validUsages))
		case slices.Contains(csr.Spec.Usages[:i], u):
			errs = append(errs, apierrors.Duplicate(field, u))
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid("CertificateSigningRequest", "certificates.k8s.io", csr.Name, errs)
	}
	return nil
}

// validUsages are the key usages certificates.k8s.io/v1 knows (upstream's
// allValidUsages).
var validUsages = []string{
	"signing", "digital signature", "content commitment", "key encipherment", "key agreement",
	"data encipherment", "cert sign", "crl sign", "encipher only", "decipher only", "any",
	"server auth", "client auth", "code signing", "email protection", "s/mime",
	"ipsec end system", "ipsec tunnel", "ipsec user", "timestamping", "ocsp signing",
	"microsoft sgc", "netscape sgc",
}

// validateCSRUpdate checks a change of status: Approved, Denied and
// Failed can only be True; Approved and Denied exclude each other; once
// there, none of the three goes away; a certificate needs an approval
// and, once issued, does not change (upstream's validateConditions and
// validateCertificate).
func validateCSRUpdate(csr, old *api.CertificateSigningRequest) error {
	var errs apierrors.FieldErrorList
	for i, c := range csr.Status.Conditions {
		switch c.Type {
		case api.CertificateApproved, api.CertificateDenied, api.CertificateFailed:
			if c.Status != api.ConditionTrue {
				errs = append(errs, apierrors.NotSupported(fmt.Sprintf("status.conditions[%d].status", i), c.Status, []string{string(api.ConditionTrue)}))
			}
		}
	}
	_, approved := api.CSRCondition(csr, api.CertificateApproved)
	_, denied := api.CSRCondition(csr, api.CertificateDenied)
	if approved && denied {
		errs = append(errs, apierrors.Invalid("status.conditions", "", "Approved and Denied conditions are mutually exclusive"))
	}
	for _, t := range []api.RequestConditionType{api.CertificateApproved, api.CertificateDenied, api.CertificateFailed} {
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
