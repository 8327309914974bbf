package apiserver

// This file is the serviceaccounts/token subresource, the TokenRequest API
// behind `kubectl create token` and the kubelet's projected token volumes:
// POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token with an
// authentication.k8s.io/v1 TokenRequest, answered 201 with a signed token
// in status.token. Nothing is stored. Upstream:
// pkg/registry/core/serviceaccount/storage/token.go and
// pkg/apis/authentication/validation.
//
// The steps, as upstream:
//
//  1. The body's name and namespace, if set, must be the URL's.
//  2. The ServiceAccount must exist (404 otherwise).
//  3. Audiences default to the apiserver's own; expirationSeconds to an
//     hour; it must lie between 10 minutes and 2^32 seconds (422).
//  4. A boundObjectRef must name a Pod (running as this account), a
//     Secret or a Node that exists, with the given uid if one is given
//     (409 if not: the object was deleted and recreated). A scheduled
//     pod's node goes into the token too.
//  5. A pod's 3607-second request (the ServiceAccount admission's) gets a
//     year-long token that warns after the hour, when
//     --service-account-extend-token-expiration is on; otherwise a
//     lifetime over --service-account-max-token-expiration is cut to it,
//     with a warning.

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/serviceaccount"
)

// serveTokenRequest handles POST serviceaccounts/<name>/token.
func (s *Server) serveTokenRequest(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	if r.Method != http.MethodPost {
		response.WriteError(w, apierrors.NewMethodNotSupported(apierrors.Resource{Resource: "serviceaccounts/token"}, r.Method))
		return
	}
	req, err := decodeTokenRequest(r)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	// NodeRestriction: a kubelet's tokens are bound to its own pods.
	if err := s.nodeRestrictTokenRequest(r.Context(), info.namespace, info.name, req); err != nil {
		response.WriteError(w, err)
		return
	}
	answer, warnings, err := s.issueToken(r, info.namespace, info.name, req)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	addWarnings(w, warnings)
	response.WriteJSON(w, http.StatusCreated, answer)
}

// decodeTokenRequest reads a TokenRequest in JSON, YAML or protobuf
// (kubectl's typed client sends protobuf).
func decodeTokenRequest(r *http.Request) (*api.TokenRequest, error) {
	req := &api.TokenRequest{}
	if err := decodeKind(r, req, "TokenRequest", "authentication.k8s.io/v1"); err != nil {
		return nil, err
	}
	return req, nil
}

// invalidTokenRequest is upstream's 422: it names no object ("").
func invalidTokenRequest(errs ...*apierrors.FieldError) error {
	return apierrors.NewInvalid("TokenRequest", "authentication.k8s.io", "", errs)
}

// issueToken carries out steps 1 to 5 of the file comment for the account
// namespace/name and returns the answer and any warnings.
func (s *Server) issueToken(r *http.Request, namespace, name string, req *api.TokenRequest) (*api.TokenRequest, []string, error) {
	ctx := r.Context()
	if req.Name != "" && req.Name != name {
		return nil, nil, apierrors.NewInvalid("TokenRequest", "authentication.k8s.io", name, apierrors.FieldErrorList{
			apierrors.Invalid("metadata.name", req.Name, "must match the service account name if specified")})
	}
	if req.Namespace != "" && req.Namespace != namespace {
		return nil, nil, apierrors.NewInvalid("TokenRequest", "authentication.k8s.io", name, apierrors.FieldErrorList{
			apierrors.Invalid("metadata.namespace", req.Namespace, "must match the service account namespace if specified")})
	}
	account, err := s.serviceAccount(ctx, namespace, name)
	if err != nil {
		return nil, nil, err
	}
	tokens := s.serviceAccounts
	if len(req.Spec.Audiences) == 0 {
		req.Spec.Audiences = tokens.audiences
	}
	if req.Spec.ExpirationSeconds == nil {
		defaultSeconds := serviceaccount.DefaultExpirationSeconds
		req.Spec.ExpirationSeconds = &defaultSeconds
	}
	requested := *req.Spec.ExpirationSeconds
	if requested < serviceaccount.MinExpirationSeconds {
		return nil, nil, invalidTokenRequest(apierrors.Invalid("spec.expirationSeconds", requested, "may not specify a duration less than 10 minutes"))
	}
	if requested > serviceaccount.MaxExpirationSeconds {
		return nil, nil, invalidTokenRequest(apierrors.Invalid("spec.expirationSeconds", requested, "may not specify a duration larger than 2^32 seconds"))
	}

	binding, pod, err := s.tokenBinding(r, namespace, name, req.Spec.BoundObjectRef)
	if err != nil {
		return nil, nil, err
	}

	now := s.clock.Now()
	spec := serviceaccount.TokenSpec{
		Namespace:          namespace,
		ServiceAccountName: name,
		ServiceAccountUID:  account.UID,
		Audiences:          req.Spec.Audiences,
		IssuedAt:           now,
		Binding:            binding,
	}
	var warnings []string
	lifetime := requested
	switch {
	case tokens.extendExpiration && pod != nil && requested == serviceaccount.WarnOnlyExpirationSeconds && tokens.isOwnAudiences(req.Spec.Audiences):
		spec.Expiration = time.Duration(serviceaccount.ExtendedExpirationSeconds) * time.Second
		spec.WarnAfter = now.Add(time.Duration(requested) * time.Second)
	case tokens.maxExpirationSeconds > 0 && requested > tokens.maxExpirationSeconds:
		warnings = append(warnings, fmt.Sprintf("requested expiration of %d seconds shortened to %d seconds", requested, tokens.maxExpirationSeconds))
		lifetime = tokens.maxExpirationSeconds
		req.Spec.ExpirationSeconds = &lifetime
		spec.Expiration = time.Duration(lifetime) * time.Second
	default:
		spec.Expiration = time.Duration(requested) * time.Second
	}
	token, err := tokens.issuer.Issue(spec)
	if err != nil {
		return nil, nil, apierrors.NewInternalError(fmt.Errorf("failed to generate token: %w", err))
	}

	req.TypeMeta = api.TypeMeta{Kind: "TokenRequest", APIVersion: "authentication.k8s.io/v1"}
	req.Name, req.Namespace = name, namespace
	req.CreationTimestamp = api.NewTime(now.UTC().Truncate(time.Second))
	// The expiry reported is the one asked for (an extended token lives
	// longer): a client refreshes on time either way.
	req.Status = api.TokenRequestStatus{Token: token, ExpirationTimestamp: api.NewTime(now.Add(time.Duration(lifetime) * time.Second).UTC())}
	return req, warnings, nil
}

// isOwnAudiences reports whether every audience is one of the apiserver's.
func (t *serviceAccountTokens) isOwnAudiences(audiences []string) bool {
	for _, aud := range audiences {
		if !slices.Contains(t.audiences, aud) {
			return false
		}
	}
	return true
}

// tokenBinding checks a TokenRequest's boundObjectRef (step 4) and returns
// what the token is bound to, and the pod when it is a pod.
func (s *Server) tokenBinding(r *http.Request, namespace, account string, ref *api.BoundObjectReference) (serviceaccount.Binding, *api.Pod, error) {
	var binding serviceaccount.Binding
	if ref == nil {
		return binding, nil, nil
	}
	ctx := r.Context()
	group, version := splitAPIVersion(ref.APIVersion)
	var uid string
	var pod *api.Pod
	switch {
	case group == "" && ref.Kind == "Pod":
		obj, err := s.cachedObject(ctx, "pods", namespace, ref.Name)
		if err != nil {
			return binding, nil, err
		}
		pod = obj.(*api.Pod)
		if pod.Spec.ServiceAccountName != account {
			return binding, nil, apierrors.NewBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to pod running with serviceaccount %q", account, pod.Spec.ServiceAccountName))
		}
		uid = pod.UID
		binding.Pod = &serviceaccount.ObjectRef{Name: pod.Name, UID: pod.UID}
		if nodeName := pod.Spec.NodeName; nodeName != "" {
			// Upstream names the node even when it cannot read it.
			binding.Node = &serviceaccount.ObjectRef{Name: nodeName}
			if obj, err := s.cachedObject(ctx, "nodes", "", nodeName); err == nil {
				binding.Node.UID = obj.(*api.Node).UID
			}
		}
	case group == "" && ref.Kind == "Secret":
		obj, err := s.cachedObject(ctx, "secrets", namespace, ref.Name)
		if err != nil {
			return binding, nil, err
		}
		secret := obj.(*api.Secret)
		uid = secret.UID
		binding.Secret = &serviceaccount.ObjectRef{Name: secret.Name, UID: secret.UID}
	case group == "" && ref.Kind == "Node":
		obj, err := s.cachedObject(ctx, "nodes", "", ref.Name)
		if err != nil {
			return binding, nil, err
		}
		node := obj.(*api.Node)
		uid = node.UID
		binding.Node = &serviceaccount.ObjectRef{Name: node.Name, UID: node.UID}
	default:
		return binding, nil, apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s/%s, Kind=%s", group, version, ref.Kind))
	}
	if ref.UID != "" && ref.UID != uid {
		return binding, nil, apierrors.NewConflict(apierrors.Resource{Resource: ref.Kind}, ref.Name,
			fmt.Sprintf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
	}
	return binding, pod, nil
}

// splitAPIVersion splits "group/version"; "v1" is the core group's.
func splitAPIVersion(apiVersion string) (group, version string) {
	if group, version, found := strings.Cut(apiVersion, "/"); found {
		return group, version
	}
	return "", apiVersion
}
