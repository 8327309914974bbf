package ui

import (
	"strings"
	"testing"

	"kplane/pkg/client"
)

func TestValidateListensOnLoopbackOnly(t *testing.T) {
	valid := DefaultOptions()
	valid.Client, valid.AdminToken = &client.Client{}, "t"
	for _, tt := range []struct {
		address string
		wantErr bool
	}{
		{"127.0.0.1", false}, {"127.0.0.2", false}, {"::1", false}, {"localhost", false},
		{"0.0.0.0", true}, {"::", true}, {"192.168.1.10", true}, {"example.com", true}, {"", true},
	} {
		opts := valid
		opts.Address = tt.address
		err := opts.Validate()
		if (err != nil) != tt.wantErr {
			t.Errorf("Validate(%q) = %v, want error %v", tt.address, err, tt.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), "loopback only") {
			t.Errorf("Validate(%q) says %q, which does not say why", tt.address, err)
		}
	}
}

func TestValidateNeedsAToken(t *testing.T) {
	opts := DefaultOptions()
	opts.Client = &client.Client{}
	if err := opts.Validate(); err == nil {
		t.Error("Validate accepted options without an admin token")
	}
}
