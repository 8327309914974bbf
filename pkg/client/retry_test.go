package client

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

func TestBackoffDelay(t *testing.T) {
	b := backoff{initial: 200 * time.Millisecond, max: 10 * time.Second}
	tests := []struct {
		retry    int
		low, top time.Duration // delay with random()=0 and random()→1
	}{
		{0, 100 * time.Millisecond, 200 * time.Millisecond},
		{1, 200 * time.Millisecond, 400 * time.Millisecond},
		{4, 1600 * time.Millisecond, 3200 * time.Millisecond},
		{6, 5 * time.Second, 10 * time.Second}, // 12.8 s capped at 10 s
		{100, 5 * time.Second, 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.retry), func(t *testing.T) {
			b.random = func() float64 { return 0 }
			if got := b.delay(tt.retry); got != tt.low {
				t.Errorf("delay(%d) with no jitter = %v, want %v", tt.retry, got, tt.low)
			}
			b.random = func() float64 { return 0.999999 }
			if got := b.delay(tt.retry); got <= tt.low || got > tt.top {
				t.Errorf("delay(%d) with full jitter = %v, want in (%v, %v]", tt.retry, got, tt.low, tt.top)
			}
		})
	}
}

func TestStatusVerdict(t *testing.T) {
	retryAfter2 := http.Header{"Retry-After": []string{"2"}}
	tests := []struct {
		name   string
		method string
		code   int
		header http.Header
		err    *apierrors.StatusError
		retry  bool
		after  time.Duration
	}{
		{"429 POST is retried", http.MethodPost, 429, nil, nil, true, 0},
		{"429 PATCH honours Retry-After", http.MethodPatch, 429, retryAfter2, nil, true, 2 * time.Second},
		{"429 retryAfterSeconds in the Status", http.MethodPost, 429, nil, apierrors.NewTooManyRequests("slow down", 3), true, 3 * time.Second},
		{"429 from a disruption budget is the answer", http.MethodPost, 429, nil, budgetRefusal(), false, 0},
		{"503 GET is retried", http.MethodGet, 503, nil, nil, true, 0},
		{"503 DELETE is retried", http.MethodDelete, 503, nil, nil, true, 0},
		{"500 PUT is retried", http.MethodPut, 500, nil, nil, true, 0},
		{"503 POST is not retried", http.MethodPost, 503, nil, nil, false, 0},
		{"504 PATCH is not retried", http.MethodPatch, 504, nil, nil, false, 0},
		{"503 POST with Retry-After is retried", http.MethodPost, 503, retryAfter2, nil, true, 2 * time.Second},
		{"501 never", http.MethodGet, 501, nil, nil, false, 0},
		{"404 never", http.MethodGet, 404, nil, nil, false, 0},
		{"409 never", http.MethodPut, 409, nil, nil, false, 0},
		{"400 with Retry-After is still final", http.MethodGet, 400, retryAfter2, nil, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := tt.header
			if header == nil {
				header = http.Header{}
			}
			v := statusVerdict(tt.method, tt.code, header, tt.err)
			if v.retry != tt.retry || v.after != tt.after {
				t.Errorf("statusVerdict = {retry %v, after %v}, want {retry %v, after %v}", v.retry, v.after, tt.retry, tt.after)
			}
		})
	}
}

func TestTransportVerdict(t *testing.T) {
	reset := &url.Error{Op: "Post", URL: "https://x", Err: &net.OpError{Op: "read", Err: syscall.ECONNRESET}}
	refused := &url.Error{Op: "Post", URL: "https://x", Err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}}
	h2reset := errors.New("stream error: stream ID 3; INTERNAL_ERROR; received from peer")
	badCert := &url.Error{Op: "Get", URL: "https://x", Err: x509.UnknownAuthorityError{}}
	tests := []struct {
		name    string
		method  string
		err     error
		written bool
		retry   bool
	}{
		{"refused before sending: POST retried", http.MethodPost, refused, false, true},
		{"EOF before sending: PATCH retried", http.MethodPatch, io.EOF, false, true},
		{"reset after sending: GET retried", http.MethodGet, reset, true, true},
		{"reset after sending: PUT retried", http.MethodPut, reset, true, true},
		{"reset after sending: POST not retried", http.MethodPost, reset, true, false},
		{"HTTP/2 stream reset: PATCH not retried", http.MethodPatch, h2reset, true, false},
		{"HTTP/2 stream reset: GET retried", http.MethodGet, h2reset, true, true},
		{"unexpected EOF after sending: DELETE retried", http.MethodDelete, io.ErrUnexpectedEOF, true, true},
		{"certificate error: never", http.MethodGet, badCert, false, false},
		{"cancelled: never", http.MethodGet, fmt.Errorf("x: %w", context.Canceled), false, false},
		{"deadline: never", http.MethodGet, fmt.Errorf("x: %w", context.DeadlineExceeded), true, false},
		{"some other error: never", http.MethodGet, errors.New("unsupported protocol scheme"), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := transportVerdict(tt.method, tt.err, tt.written).retry; got != tt.retry {
				t.Errorf("transportVerdict(%s, %v, written=%v).retry = %v, want %v", tt.method, tt.err, tt.written, got, tt.retry)
			}
		})
	}
}

// budgetRefusal is the 429 the eviction subresource answers when a
// PodDisruptionBudget allows no disruption.
func budgetRefusal() *apierrors.StatusError {
	err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
	err.ErrStatus.Details.Causes = []api.StatusCause{{Type: api.DisruptionBudgetCause, Message: "The disruption budget web needs 2 healthy pods and has 2 currently"}}
	return err
}
