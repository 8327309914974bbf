package ctl

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/restmapper"
)

// errorList is several independent failures of one command — two missing
// objects of a `get`, a bad file among good ones in an `apply` — which
// kubectl reports one per line after doing all it could.
type errorList []error

func (e errorList) Error() string {
	msgs := make([]string, len(e))
	for i, err := range e {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "\n")
}

// joinErrors returns nil, the one error, or an errorList.
func joinErrors(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return errorList(errs)
}

// printError writes err as kubectl's cmdutil.CheckErr does: an API error as
// `Error from server (NotFound): pods "x" not found`, an Invalid one with
// its fields, a refused connection with its hint, anything else as
// `error: …`. Several errors print one per line, without the "error: ".
func printError(w io.Writer, err error) {
	var list errorList
	if errors.As(err, &list) && len(list) > 1 {
		for _, e := range list {
			msg, ok := standardMessage(e)
			if !ok {
				msg = e.Error()
			}
			fmt.Fprintln(w, strings.TrimSuffix(msg, "\n"))
		}
		return
	}
	if len(list) == 1 {
		err = list[0]
	}
	if msg, ok := invalidMessage(err); ok {
		fmt.Fprint(w, msg)
		return
	}
	msg, ok := standardMessage(err)
	if !ok {
		msg = err.Error()
		if !strings.HasPrefix(msg, "error: ") {
			msg = "error: " + msg
		}
	}
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	fmt.Fprint(w, msg)
}

// standardMessage words the errors kubectl recognises (its
// StandardErrorMessage): API errors with their reason, connection errors
// with the server's address.
func standardMessage(err error) (string, bool) {
	var status *apierrors.StatusError
	if errors.As(err, &status) {
		s := status.ErrStatus
		switch {
		case s.Reason == apierrors.ReasonUnauthorized:
			return fmt.Sprintf("error: You must be logged in to the server (%s)", s.Message), true
		case s.Reason != "":
			return fmt.Sprintf("Error from server (%s): %s", s.Reason, s.Message), true
		default:
			return fmt.Sprintf("Error from server: %s", s.Message), true
		}
	}
	var noMatch *restmapper.NoResourceMatchError
	if errors.As(err, &noMatch) {
		return "error: " + noMatch.Error(), true
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		if strings.Contains(urlErr.Err.Error(), "connection refused") {
			host := urlErr.URL
			if u, perr := url.Parse(urlErr.URL); perr == nil {
				host = u.Host
			}
			return fmt.Sprintf("The connection to the server %s was refused - did you specify the right host or port?", host), true
		}
		return fmt.Sprintf("Unable to connect to the server: %v", urlErr.Err), true
	}
	return "", false
}

// invalidMessage words an Invalid error as kubectl does, from its details:
// `The Deployment "x" is invalid: spec.replicas: Invalid value: -1: …`,
// with one line per field when several failed.
func invalidMessage(err error) (string, bool) {
	var status *apierrors.StatusError
	if !errors.As(err, &status) || status.ErrStatus.Reason != apierrors.ReasonInvalid {
		return "", false
	}
	details := status.ErrStatus.Details
	if details == nil {
		// No field causes to list: the server's message is all there is.
		return "The request is invalid: " + status.ErrStatus.Message + "\n", true
	}
	prefix := "The request is invalid"
	if details.Kind != "" || details.Name != "" {
		prefix = fmt.Sprintf("The %s %q is invalid", details.Kind, details.Name)
	}
	var causes []string
	seen := map[string]bool{}
	for _, c := range details.Causes {
		msg := c.Field + ": " + c.Message
		if !seen[msg] {
			seen[msg] = true
			causes = append(causes, msg)
		}
	}
	switch len(causes) {
	case 0:
		return prefix + "\n", true
	case 1:
		return prefix + ": " + causes[0] + "\n", true
	}
	var b strings.Builder
	b.WriteString(prefix + ": \n")
	for _, c := range causes {
		b.WriteString("* " + c + "\n")
	}
	return b.String(), true
}

// sourceError adds the file an object came from to an error, as kubectl's
// AddSourceToErr does: `error when creating "pod.yaml": …`. An API error
// stays an API error (with the longer message), so it still prints as
// `Error from server (…)`.
func sourceError(verb, source string, err error) error {
	if source == "" {
		return err
	}
	var status *apierrors.StatusError
	if errors.As(err, &status) {
		s := status.ErrStatus
		s.Message = fmt.Sprintf("error when %s %q: %s", verb, source, s.Message)
		return &apierrors.StatusError{ErrStatus: s}
	}
	return fmt.Errorf("error when %s %q: %w", verb, source, err)
}

// usageError is a mistake in the command line; kubectl ends its message
// with a pointer to the command's help.
func usageError(commandPath, format string, args ...any) error {
	return fmt.Errorf("%s\nSee '%s -h' for help and examples", fmt.Sprintf(format, args...), commandPath)
}

// isAPIError reports whether err is an error the server answered.
func isAPIError(err error) bool {
	var status *apierrors.StatusError
	return errors.As(err, &status)
}
