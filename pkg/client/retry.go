package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/clock"
)

// When is a failed request sent again? Only when sending it twice cannot do
// harm, or when the server has said it did not act on it:
//
//   - 429 Too Many Requests, and any 5xx carrying Retry-After: the server
//     refused the request before processing it and asked for a retry. Every
//     verb is retried, after the wait the server asked for. Except an
//     eviction refused by a PodDisruptionBudget (a 429 with a
//     DisruptionBudget cause): that is the answer, and drain retries it on
//     its own schedule, printing why.
//   - 500, 502, 503, 504 without Retry-After: the server may have done the
//     work before failing, so only idempotent verbs (GET, HEAD, PUT, DELETE)
//     are retried. 501 Not Implemented and other codes never change on retry.
//   - a broken connection before the request was written (connection
//     refused, dropped during the TLS handshake): the server never saw it,
//     so every verb is retried.
//   - a broken connection after the request was written (reset, EOF, an
//     HTTP/2 stream reset): the server may have acted on it, so only
//     idempotent verbs are retried. A POST that might have created an object
//     is reported to the caller, who can GET and see.
//   - never: certificate errors, a cancelled context, the per-request
//     Timeout running out (a slow server is not helped by more load).
//
// This follows client-go's rest.Request, which retries any verb on 429 or
// on a 5xx with Retry-After, and GETs only on a reset connection.

// Back-off defaults: 200 ms doubling to at most 10 s. With DefaultMaxRetries
// the waits are about 0.2, 0.4, 0.8, 1.6 and 3.2 s (less with jitter): an
// apiserver restart is ridden out, a dead one is reported within seconds.
const (
	defaultInitialBackoff = 200 * time.Millisecond
	defaultMaxBackoff     = 10 * time.Second
)

// backoff computes the wait before each retry: exponential, capped, with
// "equal jitter" — half the step is fixed, half random — so clients that
// failed together do not come back together, yet never retry at once.
type backoff struct {
	initial, max time.Duration
	// random returns a number in [0, 1); rand.Float64 unless a test fixes it.
	random func() float64
}

func defaultBackoff() backoff {
	return backoff{initial: defaultInitialBackoff, max: defaultMaxBackoff, random: rand.Float64}
}

// delay is the wait before retry number retry (0 before the first retry).
func (b backoff) delay(retry int) time.Duration {
	d := b.initial
	for i := 0; i < retry && d < b.max; i++ {
		d *= 2
	}
	d = min(d, b.max)
	return d/2 + time.Duration(b.random()*float64(d/2))
}

// retryVerdict says whether a failed attempt may be sent again, and after
// how long if the server said so (0: use the back-off).
type retryVerdict struct {
	retry bool
	after time.Duration
	// reason is a short phrase for the log line.
	reason string
}

// isIdempotent reports whether sending the request twice has the same
// effect as sending it once (RFC 9110 §9.2.2). A retried DELETE whose
// first attempt went through answers NotFound; a retried PUT answers
// Conflict because the resourceVersion moved on. Both are honest answers.
func isIdempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}

// statusVerdict decides on a non-2xx answer.
func statusVerdict(method string, code int, header http.Header, err *apierrors.StatusError) retryVerdict {
	after, asked := retryAfter(header, err)
	switch {
	case code == http.StatusTooManyRequests && err != nil && apierrors.HasStatusCause(err, api.DisruptionBudgetCause):
		// An eviction a PodDisruptionBudget refused: an answer, not
		// throttling. The caller (drain) decides when to ask again.
		return retryVerdict{}
	case code == http.StatusTooManyRequests:
		return retryVerdict{retry: true, after: after, reason: "server throttled the request (429)"}
	case code >= 500 && asked:
		return retryVerdict{retry: true, after: after, reason: "server asked to retry (" + strconv.Itoa(code) + " with Retry-After)"}
	case code == http.StatusInternalServerError || code == http.StatusBadGateway ||
		code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout:
		if isIdempotent(method) {
			return retryVerdict{retry: true, reason: "server error " + strconv.Itoa(code)}
		}
	}
	return retryVerdict{}
}

// retryAfter reads the wait the server asked for: the Retry-After header in
// seconds, or the Status's details.retryAfterSeconds.
func retryAfter(header http.Header, err *apierrors.StatusError) (time.Duration, bool) {
	if v := strings.TrimSpace(header.Get("Retry-After")); v != "" {
		if n, perr := strconv.Atoi(v); perr == nil && n >= 0 {
			return time.Duration(n) * time.Second, true
		}
	}
	if err != nil && err.ErrStatus.Details != nil && err.ErrStatus.Details.RetryAfterSeconds > 0 {
		return time.Duration(err.ErrStatus.Details.RetryAfterSeconds) * time.Second, true
	}
	return 0, false
}

// transportVerdict decides on an error from the connection itself. written
// says whether the request's headers went out, i.e. whether the server may
// have seen it.
func transportVerdict(method string, err error, written bool) retryVerdict {
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return retryVerdict{}
	case isCertificateError(err):
		return retryVerdict{}
	case !isConnectionBroken(err):
		return retryVerdict{}
	case !written:
		return retryVerdict{retry: true, reason: "connection failed before the request was sent"}
	case isIdempotent(method):
		return retryVerdict{retry: true, reason: "connection broke after the request was sent"}
	}
	return retryVerdict{}
}

// isCertificateError reports a TLS trust failure: no retry will fix it.
func isCertificateError(err error) bool {
	var verify *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var notTLS tls.RecordHeaderError
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &hostname) ||
		errors.As(err, &invalid) || errors.As(err, &notTLS)
}

// isConnectionBroken reports an error of the network rather than of the
// request: refused, reset, closed, cut short, or an HTTP/2 connection or
// stream torn down. client-go keeps a similar list (IsProbableEOF).
func isConnectionBroken(err error) bool {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var opErr *net.OpError
	var dnsErr *net.DNSError
	if errors.As(err, &opErr) || errors.As(err, &dnsErr) {
		return true
	}
	// The HTTP/2 transport's errors are unexported types; their text is stable.
	msg := err.Error()
	for _, s := range []string{"http2: client connection lost", "http2: server sent GOAWAY",
		"stream error:", "connection reset by peer", "broken pipe", "use of closed network connection"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// sleepFor waits d on clk, or until ctx ends.
func sleepFor(clk clock.Clock) func(ctx context.Context, d time.Duration) error {
	return func(ctx context.Context, d time.Duration) error {
		if d <= 0 {
			return ctx.Err()
		}
		t := clk.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C():
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
