package streaming

// This file holds the meta/v1 Status that ends every exec and attach
// session on its error channel, in the words upstream's kubelet and
// container runtimes use, and the reading of it that kubectl does.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// The Status reason and cause type that carry a command's exit code, as
// upstream's apimachinery/pkg/util/remotecommand names them. kubectl exits
// with the code it finds under them.
const (
	NonZeroExitCodeReason = "NonZeroExitCode"
	ExitCodeCauseType     = "ExitCode"
)

// SuccessStatus is the Status of a command that exited with code 0, or of
// an attach that ended without error.
func SuccessStatus() api.Status {
	return api.Status{Status: api.StatusSuccess}
}

// ExitCodeStatus is the Status of a command that exited with a non-zero
// code. The message is the one a containerd node gives:
//
//	command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3
//
// (the kubelet's prefix around containerd's own error), and the code is the
// message of the one ExitCode cause.
func ExitCodeStatus(command []string, code int) api.Status {
	return api.Status{
		Status:  api.StatusFailure,
		Reason:  NonZeroExitCodeReason,
		Message: fmt.Sprintf("command terminated with non-zero exit code: error executing command %v, exit code %d", command, code),
		Details: &api.StatusDetails{Causes: []api.StatusCause{{Type: ExitCodeCauseType, Message: strconv.Itoa(code)}}},
	}
}

// InternalErrorStatus is the Status of a session that failed for another
// reason than an exit code (a command that could not start, an attach the
// runtime refused): 500 InternalError, "Internal error occurred: <err>",
// which kubectl prints as its error.
func InternalErrorStatus(err error) api.Status {
	return apierrors.NewInternalError(err).Status()
}

// encodeStatus is what a protocol writes on the error channel: from v4 on,
// the Status as JSON, success included; before v4, the message of a
// failure as plain text and nothing at all on success, so the client can
// only tell that something went wrong and print it.
func encodeStatus(status api.Status, jsonStatus bool) ([]byte, error) {
	if jsonStatus {
		b, err := json.Marshal(status)
		if err != nil {
			return nil, fmt.Errorf("encode status: %w", err)
		}
		return b, nil
	}
	if status.Status == api.StatusSuccess {
		return nil, nil
	}
	return []byte(status.Message), nil
}

// ExitCodeError is a session that ended with a non-zero exit code, as a
// client reads it from the error channel.
type ExitCodeError struct {
	Code int
}

func (e *ExitCodeError) Error() string {
	return fmt.Sprintf("command terminated with exit code %d", e.Code)
}

// DecodeStatus reads what a v4 or v5 server wrote on the error channel the
// way client-go's errorDecoderV4 does: nothing or Success is nil, a
// NonZeroExitCode Failure is an *ExitCodeError, any other Failure is an
// error with the Status's message.
func DecodeStatus(message []byte) error {
	if len(message) == 0 {
		return nil
	}
	var status api.Status
	if err := json.Unmarshal(message, &status); err != nil {
		return fmt.Errorf("error stream protocol error: %w in %q", err, message)
	}
	switch status.Status {
	case api.StatusSuccess:
		return nil
	case api.StatusFailure:
		if status.Reason == NonZeroExitCodeReason {
			if status.Details == nil {
				return errors.New("error stream protocol error: details must be set")
			}
			for _, cause := range status.Details.Causes {
				if cause.Type != ExitCodeCauseType {
					continue
				}
				code, err := strconv.ParseUint(cause.Message, 10, 8)
				if err != nil {
					return fmt.Errorf("error stream protocol error: invalid exit code value %q", cause.Message)
				}
				return &ExitCodeError{Code: int(code)}
			}
			return fmt.Errorf("error stream protocol error: no %s cause given", ExitCodeCauseType)
		}
		return errors.New(status.Message)
	}
	return errors.New("error stream protocol error: unknown error")
}
