package controllerutil

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The batches are 1, 2, 4, 8, …: a failure on call k stops after the batch
// holding call k, so the number of calls made pins the batch boundaries.
func TestSlowStartBatch(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name          string
		count         int
		initial       int
		failOnCall    int // 0: never fail
		wantCalls     int
		wantSuccesses int
		wantErr       bool
	}{
		{name: "nothing to do", count: 0, initial: 1, wantCalls: 0, wantSuccesses: 0},
		{name: "all succeed", count: 10, initial: 1, wantCalls: 10, wantSuccesses: 10},
		{name: "first call fails: one request only", count: 10, initial: 1, failOnCall: 1, wantCalls: 1, wantSuccesses: 0, wantErr: true},
		{name: "fail in batch of 2", count: 10, initial: 1, failOnCall: 2, wantCalls: 3, wantSuccesses: 2, wantErr: true},
		{name: "fail at end of batch of 2", count: 10, initial: 1, failOnCall: 3, wantCalls: 3, wantSuccesses: 2, wantErr: true},
		{name: "fail in batch of 4", count: 10, initial: 1, failOnCall: 4, wantCalls: 7, wantSuccesses: 6, wantErr: true},
		{name: "fail in last, partial batch (3 left)", count: 10, initial: 1, failOnCall: 9, wantCalls: 10, wantSuccesses: 9, wantErr: true},
		{name: "larger initial batch", count: 10, initial: 3, failOnCall: 4, wantCalls: 9, wantSuccesses: 8, wantErr: true},
		{name: "initial batch larger than count", count: 2, initial: 5, wantCalls: 2, wantSuccesses: 2},
		{name: "initial 0 behaves as 1", count: 3, initial: 0, failOnCall: 1, wantCalls: 1, wantSuccesses: 0, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			successes, err := SlowStartBatch(tt.count, tt.initial, func() error {
				if n := calls.Add(1); int(n) == tt.failOnCall {
					return errBoom
				}
				return nil
			})
			if int(calls.Load()) != tt.wantCalls || successes != tt.wantSuccesses {
				t.Errorf("calls = %d, successes = %d; want %d, %d", calls.Load(), successes, tt.wantCalls, tt.wantSuccesses)
			}
			if (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, errBoom)) {
				t.Errorf("err = %v, want error: %v", err, tt.wantErr)
			}
		})
	}
}

// The calls of one batch are in flight together: the two calls of the
// second batch each wait for the other, which only works if neither waits
// for the other to return first.
func TestSlowStartBatchRunsABatchConcurrently(t *testing.T) {
	var calls atomic.Int32
	var second sync.WaitGroup
	second.Add(2)
	successes, err := SlowStartBatch(3, 1, func() error {
		if calls.Add(1) == 1 {
			return nil
		}
		second.Done()
		done := make(chan struct{})
		go func() { second.Wait(); close(done) }()
		select {
		case <-done:
			return nil
		case <-time.After(10 * time.Second):
			return errors.New("the other call of the batch never started")
		}
	})
	if err != nil || successes != 3 {
		t.Fatalf("successes = %d, err = %v; want 3, nil", successes, err)
	}
}

func TestSlowStartBatchSizes(t *testing.T) {
	tests := []struct {
		count, initial int
		want           []int
	}{
		{0, 1, nil},
		{1, 1, []int{1}},
		{2, 1, []int{1, 1}},
		{10, 1, []int{1, 2, 4, 3}},
		{15, 1, []int{1, 2, 4, 8}},
		{5, 0, []int{1, 2, 2}}, // an initial size below 1 counts as 1
	}
	for _, tt := range tests {
		if got := SlowStartBatchSizes(tt.count, tt.initial); !slices.Equal(got, tt.want) {
			t.Errorf("SlowStartBatchSizes(%d, %d) = %v, want %v", tt.count, tt.initial, got, tt.want)
		}
	}
}
