package audit

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
)

// Event is one line of the audit log: an audit.k8s.io/v1 Event, the record
// of one request at one stage. Its fields and their JSON names are
// upstream's (staging/src/k8s.io/apiserver/pkg/apis/audit/v1/types.go).
type Event struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Level      Level  `json:"level"`
	// AuditID identifies the request: every stage of it carries the same
	// ID, which the client also gets as the Audit-Id response header.
	AuditID string `json:"auditID"`
	Stage   Stage  `json:"stage"`
	// RequestURI is the path and query the client sent.
	RequestURI string `json:"requestURI"`
	// Verb is the API verb (get, list, watch, create, …), or the
	// lower-case HTTP method of a non-resource request.
	Verb string `json:"verb"`
	// User is who authenticated; ImpersonatedUser who they acted as.
	User             api.UserInfo  `json:"user"`
	ImpersonatedUser *api.UserInfo `json:"impersonatedUser,omitempty"`
	// SourceIPs are the client's address, after any X-Forwarded-For
	// entries and X-Real-Ip a proxy added (most distant first).
	SourceIPs []string `json:"sourceIPs,omitempty"`
	UserAgent string   `json:"userAgent,omitempty"`
	// ObjectRef is the object a resource request is about.
	ObjectRef *ObjectReference `json:"objectRef,omitempty"`
	// ResponseStatus is the answer's code and, for a failure, its Status'
	// status, reason and message.
	ResponseStatus *api.Status `json:"responseStatus,omitempty"`
	// RequestObject is the request's JSON body (Request level and above);
	// ResponseObject the response's (RequestResponse level).
	RequestObject  json.RawMessage `json:"requestObject,omitempty"`
	ResponseObject json.RawMessage `json:"responseObject,omitempty"`
	// RequestReceivedTimestamp is when the request arrived;
	// StageTimestamp when this stage was reached.
	RequestReceivedTimestamp MicroTime `json:"requestReceivedTimestamp"`
	StageTimestamp           MicroTime `json:"stageTimestamp"`
	// Annotations were added while serving the request
	// (authorization.k8s.io/decision, authorization.k8s.io/reason).
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ObjectReference names the object of a resource request.
type ObjectReference struct {
	Resource        string `json:"resource,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	UID             string `json:"uid,omitempty"`
	APIGroup        string `json:"apiGroup,omitempty"`
	APIVersion      string `json:"apiVersion,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	Subresource     string `json:"subresource,omitempty"`
}

// MicroTime is a timestamp written with microseconds, as upstream's
// metav1.MicroTime: 2026-11-27T20:41:02.123456Z.
type MicroTime time.Time

// microTimeLayout is RFC 3339 with six fractional digits.
const microTimeLayout = "2006-01-02T15:04:05.000000Z07:00"

// MarshalJSON writes the time in UTC with microseconds.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Time(t).UTC().Format(microTimeLayout))
}

// UnmarshalJSON reads a time written by MarshalJSON (or any RFC 3339 time).
func (t *MicroTime) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	parsed, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	*t = MicroTime(parsed)
	return nil
}

// NewEvent starts the Event of request r, as upstream's
// NewEventFromRequest does: what is known before the request is served.
// user is nil for a request that failed authentication.
func NewEvent(r *http.Request, info *authorizer.RequestInfo, user *auth.User, level Level, auditID string, received time.Time) *Event {
	ev := &Event{
		Kind:                     "Event",
		APIVersion:               "audit.k8s.io/v1",
		Level:                    level,
		AuditID:                  auditID,
		RequestURI:               r.URL.RequestURI(),
		Verb:                     strings.ToLower(r.Method),
		SourceIPs:                SourceIPs(r),
		UserAgent:                r.UserAgent(),
		RequestReceivedTimestamp: MicroTime(received),
	}
	if user != nil {
		ev.User = UserInfo(*user)
	}
	if info != nil {
		ev.Verb = info.Verb
		if info.ResourceRequest {
			ev.ObjectRef = &ObjectReference{Resource: info.Resource, Namespace: info.Namespace, Name: info.Name,
				APIGroup: info.APIGroup, APIVersion: info.APIVersion, Subresource: info.Subresource}
		}
	}
	return ev
}

// UserInfo is user as an Event (and a TokenReview) spells it.
func UserInfo(user auth.User) api.UserInfo {
	return api.UserInfo{Username: user.Name, UID: user.UID, Groups: user.Groups, Extra: user.Extra}
}

// SourceIPs lists where r came from: the X-Forwarded-For chain, then
// X-Real-Ip, then the connection's address, without repeats — upstream's
// utilnet.SourceIPs.
func SourceIPs(r *http.Request) []string {
	var ips []string
	add := func(s string) {
		ip := net.ParseIP(strings.TrimSpace(s))
		if ip == nil {
			return
		}
		for _, seen := range ips {
			if seen == ip.String() {
				return
			}
		}
		ips = append(ips, ip.String())
	}
	if forwarded := r.Header.Get("X-Forwarded-For"); forwarded != "" {
		for _, part := range strings.Split(forwarded, ",") {
			add(part)
		}
	}
	add(r.Header.Get("X-Real-Ip"))
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	add(host)
	return ips
}

// StripManagedFields removes metadata.managedFields from a JSON object,
// and from each of its items when it is a list (a policy's
// omitManagedFields). Anything it cannot read is returned as it is.
func StripManagedFields(body json.RawMessage) json.RawMessage {
	if !bytes.Contains(body, []byte(`"managedFields"`)) {
		return body
	}
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		return body
	}
	dropManagedFields(obj)
	if items, ok := obj["items"].([]any); ok {
		for _, item := range items {
			if m, ok := item.(map[string]any); ok {
				dropManagedFields(m)
			}
		}
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return body
	}
	return out
}

func dropManagedFields(obj map[string]any) {
	if meta, ok := obj["metadata"].(map[string]any); ok {
		delete(meta, "managedFields")
	}
}
