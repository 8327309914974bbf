package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// statusError turns a non-2xx answer into the *errors.StatusError callers
// test with errors.IsNotFound, IsConflict, IsGone, … The apiserver answers
// every failure with a meta/v1 Status body, which is decoded as is. A body
// that is not a Status (a proxy's HTML page, a bare "404 page not found")
// gets a Status synthesized from the HTTP code, with the reason Kubernetes
// uses for that code, as client-go does.
func statusError(code int, body []byte, method, path string) *apierrors.StatusError {
	var s api.Status
	if err := json.Unmarshal(body, &s); err == nil && s.Kind == "Status" && s.Status != "Success" {
		if s.Code == 0 {
			s.Code = int32(code)
		}
		if s.Reason == "" {
			s.Reason = reasonForCode(code)
		}
		return apierrors.FromStatus(s)
	}
	return apierrors.FromStatus(api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   "Failure",
		Code:     int32(code),
		Reason:   reasonForCode(code),
		Message:  synthesizedMessage(code, body, method, path),
	})
}

// reasonForCode is the Status reason Kubernetes pairs with an HTTP code.
func reasonForCode(code int) string {
	switch code {
	case http.StatusBadRequest:
		return apierrors.ReasonBadRequest
	case http.StatusUnauthorized:
		return apierrors.ReasonUnauthorized
	case http.StatusForbidden:
		return apierrors.ReasonForbidden
	case http.StatusNotFound:
		return apierrors.ReasonNotFound
	case http.StatusMethodNotAllowed:
		return apierrors.ReasonMethodNotAllowed
	case http.StatusNotAcceptable:
		return apierrors.ReasonNotAcceptable
	case http.StatusConflict:
		return apierrors.ReasonConflict
	case http.StatusGone:
		return apierrors.ReasonGone
	case http.StatusRequestEntityTooLarge:
		return apierrors.ReasonRequestEntityTooLarge
	case http.StatusUnsupportedMediaType:
		return apierrors.ReasonUnsupportedMediaType
	case http.StatusUnprocessableEntity:
		return apierrors.ReasonInvalid
	case http.StatusTooManyRequests:
		return apierrors.ReasonTooManyRequests
	case http.StatusNotImplemented:
		return apierrors.ReasonNotImplemented
	case http.StatusServiceUnavailable:
		return apierrors.ReasonServiceUnavailable
	case http.StatusGatewayTimeout:
		return apierrors.ReasonTimeout
	}
	if code >= 500 {
		return apierrors.ReasonInternalError
	}
	return "Unknown"
}

// synthesizedMessage words an error for a body that was not a Status,
// keeping a short body (it is often the only clue) and naming the request.
func synthesizedMessage(code int, body []byte, method, path string) string {
	msg := fmt.Sprintf("the server responded with the status code %d but did not return more information", code)
	switch code {
	case http.StatusNotFound:
		msg = "the server could not find the requested resource"
	case http.StatusUnauthorized:
		msg = "the server has asked for the client to provide credentials"
	case http.StatusForbidden:
		msg = "the server does not allow access to the requested resource"
	case http.StatusTooManyRequests:
		msg = "the server has received too many requests and has asked us to try again later"
	case http.StatusServiceUnavailable:
		msg = "the server is currently unable to handle the request"
	}
	if text := strings.TrimSpace(string(body)); text != "" && len(text) <= 200 {
		msg += ": " + text
	}
	return fmt.Sprintf("%s (%s %s)", msg, method, path)
}
