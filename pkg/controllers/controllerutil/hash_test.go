package controllerutil

import (
	"strings"
	"testing"

	"kplane/pkg/api"
)

func nginxTemplate(image string) *api.PodTemplateSpec {
	return &api.PodTemplateSpec{
		ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "nginx", "tier": "web"}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: image}}},
	}
}

func TestSafeEncodeString(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		// '0' is byte 48, 48 mod 27 = 21 → '4'; '9' is 57 → 3 → 'f'.
		{"0123456789", "456789bcdf"},
		{"", ""},
		{"4294967295", "86f8fbc6f9"},
	}
	for _, tt := range tests {
		if got := SafeEncodeString(tt.in); got != tt.want {
			t.Errorf("SafeEncodeString(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestComputeHash(t *testing.T) {
	one, two := int32(1), int32(2)
	base := ComputeHash(nginxTemplate("nginx:1.27"), nil)

	t.Run("stable for one template", func(t *testing.T) {
		for range 5 {
			// A fresh value each time: map iteration order must not leak in.
			if got := ComputeHash(nginxTemplate("nginx:1.27"), nil); got != base {
				t.Fatalf("hash changed between calls: %q then %q", base, got)
			}
		}
	})
	t.Run("only the safe alphabet", func(t *testing.T) {
		if base == "" || len(base) > 10 {
			t.Fatalf("hash %q: want 1 to 10 characters (decimal digits of a uint32)", base)
		}
		for _, r := range base {
			if !strings.ContainsRune("456789bcdf", r) {
				t.Fatalf("hash %q contains %q, which no decimal digit maps to", base, r)
			}
		}
	})

	tests := []struct {
		name      string
		template  *api.PodTemplateSpec
		collision *int32
		wantSame  bool
	}{
		{"another image", nginxTemplate("nginx:1.28"), nil, false},
		{"collisionCount 1", nginxTemplate("nginx:1.27"), &one, false},
		{"collisionCount 2", nginxTemplate("nginx:1.27"), &two, false},
		{"same template", nginxTemplate("nginx:1.27"), nil, true},
	}
	seen := map[string]string{base: "base"}
	for _, tt := range tests {
		got := ComputeHash(tt.template, tt.collision)
		if (got == base) != tt.wantSame {
			t.Errorf("%s: hash %q vs base %q, want same=%v", tt.name, got, base, tt.wantSame)
		}
		if !tt.wantSame {
			if other, dup := seen[got]; dup {
				t.Errorf("%s: hash %q equals that of %s", tt.name, got, other)
			}
			seen[got] = tt.name
		}
	}

	// The collision count changes the hash deterministically.
	if ComputeHash(nginxTemplate("nginx:1.27"), &one) != ComputeHash(nginxTemplate("nginx:1.27"), &one) {
		t.Fatal("hash with collisionCount 1 is not stable")
	}
}
