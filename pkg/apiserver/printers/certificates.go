package printers

import (
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/humanize"
)

// certificateSigningRequestColumns are upstream's `kubectl get csr`
// columns (pkg/printers/internalversion printCertificateSigningRequest).
var certificateSigningRequestColumns = []api.TableColumnDefinition{
	nameColumn,
	ageColumn,
	text("SignerName", "The signer the request is addressed to."),
	text("Requestor", "The user who created the request."),
	text("RequestedDuration", "The validity the request asks for."),
	text("Condition", "Approved, Denied or Pending, and Issued once the certificate is in the status."),
}

func certificateSigningRequestCells(csr *api.CertificateSigningRequest, now time.Time) []any {
	duration := "<none>"
	if s := csr.Spec.ExpirationSeconds; s != nil {
		duration = humanize.Duration(time.Duration(*s) * time.Second)
	}
	return []any{csr.Name, age(csr.CreationTimestamp, now), orNone(csr.Spec.SignerName), csr.Spec.Username,
		duration, csrCondition(csr)}
}

// csrCondition is upstream's extractCSRStatus: the approval conditions in
// order, "Issued" when a certificate is there, "Pending" when there is
// neither.
func csrCondition(csr *api.CertificateSigningRequest) string {
	var parts []string
	for _, c := range csr.Status.Conditions {
		if c.Status == api.ConditionTrue || c.Status == "" {
			parts = append(parts, string(c.Type))
		}
	}
	if len(csr.Status.Certificate) > 0 {
		parts = append(parts, "Issued")
	}
	if len(parts) == 0 {
		return "Pending"
	}
	return strings.Join(parts, ",")
}
