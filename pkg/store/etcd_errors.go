package store

import (
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// translateError turns an error from the etcd client into one that wraps the
// store's sentinel errors, so callers test it with errors.Is and never look at
// etcd's or gRPC's error types. Errors with no sentinel pass through.
func translateError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, rpctypes.ErrCompacted):
		return ErrGone
	case errors.Is(err, rpctypes.ErrFutureRev):
		return fmt.Errorf("%w: %w", ErrFutureRevision, err)
	case errors.Is(err, rpctypes.ErrRequestTooLarge):
		// etcd measured the request and refused it (--max-request-bytes).
		return fmt.Errorf("%w: %w", ErrTooLarge, err)
	case status.Code(err) == codes.ResourceExhausted:
		// gRPC refused the message before etcd saw it: either the client's
		// send limit (2 MiB by default) or the server's receive limit
		// (--max-request-bytes plus gRPC overhead).
		return fmt.Errorf("%w: %w", ErrTooLarge, err)
	}
	return err
}
