package api

import (
	"encoding/json"
	"math"
	"testing"
)

// TestQuantityCanonicalString checks parse-then-print against upstream's
// canonicalisation rules (apimachinery quantity_test.go).
func TestQuantityCanonicalString(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		// Decimal SI: the exponent is lowered to a multiple of three until no fraction is left.
		{"0", "0"},
		{"0m", "0"},
		{"0Ki", "0"},
		{"1", "1"},
		{"0.5", "500m"},
		{"1.5", "1500m"},
		{"1000m", "1"},
		{"1080m", "1080m"},
		{"1.08", "1080m"},
		{"100m", "100m"},
		{"1000", "1k"},
		{"1500", "1500"},
		{"2000", "2k"},
		{"100M", "100M"},
		{"1000M", "1G"},
		{"0.001T", "1G"},
		{"128974848", "128974848"},
		{"1234567M", "1234567M"},
		{"1.01E", "1010P"},
		{"12E", "12E"},
		{"1000E", "1e21"}, // no SI suffix above E: fall back to exponent notation
		{"1000u", "1m"},
		{"1n", "1n"},
		{"1080000000n", "1080m"},
		{".001", "1m"},
		{"1.", "1"},
		{"1.G", "1G"},
		{"+1", "1"},
		{"-1", "-1"},
		{"-0.5", "-500m"},
		{"007", "7"},
		// Rounding up to the nano-unit.
		{"3.001n", "4n"},
		{"0.0000000001", "1n"},
		{"0.00000012345", "124n"},
		{"-0.0000000001", "-1n"},
		// Binary SI: the largest power of 1024 that divides the amount.
		{"1Ki", "1Ki"},
		{"1024Mi", "1Gi"},
		{"1.5Gi", "1536Mi"},
		{"0.5Mi", "512Ki"},
		{"300Mi", "300Mi"},
		{"1025Ki", "1025Ki"},
		{"-1Gi", "-1Gi"},
		// Small or fractional binary amounts print as decimal SI.
		{"0.5Ki", "512"},
		{".001Ki", "1024m"},
		{".000000001Ki", "1024n"},
		{".000000000001Ki", "2n"},
		{"100.035Ki", "102435840m"},
		// Decimal exponent notation is kept, with a multiple-of-three exponent.
		{"2e3", "2e3"},
		{"1e9", "1e9"},
		{"1E6", "1e6"},
		{"1.2e3", "1200"},
		{"12e-1", "1200e-3"},
		{"1e-3", "1e-3"},
		{"0.5e0", "500e-3"},
		{"1.3E+6", "1300e3"},
		{"1.1E-9", "2e-9"},
	}
	for _, tt := range tests {
		q, err := ParseQuantity(tt.in)
		if err != nil {
			t.Errorf("ParseQuantity(%q): %v", tt.in, err)
			continue
		}
		if got := q.String(); got != tt.want {
			t.Errorf("ParseQuantity(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
		// The canonical form parses back to the same amount and prints identically.
		back, err := ParseQuantity(q.String())
		if err != nil || back.Cmp(q) != 0 || back.String() != tt.want {
			t.Errorf("%q: canonical %q did not round-trip (got %v, %v)", tt.in, tt.want, back, err)
		}
	}
}

func TestQuantityFormatKept(t *testing.T) {
	tests := []struct {
		in   string
		want Format
	}{
		{"1", DecimalSI},
		{"500m", DecimalSI},
		{"1Gi", BinarySI},
		{"0.5Mi", BinarySI},
		{"0.000000000001Ki", DecimalSI}, // below one unit: binary cannot print it
		{"2e3", DecimalExponent},
	}
	for _, tt := range tests {
		if got := MustParseQuantity(tt.in).Format; got != tt.want {
			t.Errorf("%q: format %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseQuantityErrors(t *testing.T) {
	for _, in := range []string{
		"", " 1", "1 ", "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-",
		"1e4294967297", "1e200", "1Zi", "1KiB", "--1", "1e", "5.3.3",
	} {
		if q, err := ParseQuantity(in); err == nil {
			t.Errorf("ParseQuantity(%q) = %v, want an error", in, q)
		}
	}
}

func TestQuantityBinaryCap(t *testing.T) {
	q := MustParseQuantity("9Ei") // more than 2^63-1 bytes
	if q.Value() != math.MaxInt64 {
		t.Errorf("9Ei: Value() = %d, want %d (capped)", q.Value(), int64(math.MaxInt64))
	}
}

func TestQuantityValues(t *testing.T) {
	tests := []struct {
		in           string
		value, milli int64
	}{
		{"0", 0, 0},
		{"500m", 1, 500},
		{"1", 1, 1000},
		{"1.5", 2, 1500},
		{"2", 2, 2000},
		{"1Gi", 1 << 30, 1 << 30 * 1000},
		{"100M", 100_000_000, 100_000_000_000},
		{"1n", 1, 1},
		{"-1n", -1, -1},
		{"-1500m", -2, -1500},
		{"2e3", 2000, 2_000_000},
		{"10E", math.MaxInt64, math.MaxInt64}, // saturates
	}
	for _, tt := range tests {
		q := MustParseQuantity(tt.in)
		if got := q.Value(); got != tt.value {
			t.Errorf("%q.Value() = %d, want %d", tt.in, got, tt.value)
		}
		if got := q.MilliValue(); got != tt.milli {
			t.Errorf("%q.MilliValue() = %d, want %d", tt.in, got, tt.milli)
		}
	}
}

func TestQuantityCmp(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"0", "0", 0},
		{"100m", "50m", 1},
		{"50m", "100m", -1},
		{"1", "1000m", 0},
		{"1Ki", "1024", 0},
		{"1k", "1Ki", -1},
		{"10000T", "100Gi", 1},
		{"-1", "1n", -1},
		{"1E", "1n", 1}, // needs more than 18 digits to align
		{"1n", "1E", -1},
	}
	for _, tt := range tests {
		a, b := MustParseQuantity(tt.a), MustParseQuantity(tt.b)
		if got := a.Cmp(b); got != tt.want {
			t.Errorf("Cmp(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := b.Cmp(a); got != -tt.want {
			t.Errorf("Cmp(%s, %s) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

func TestQuantityAddSub(t *testing.T) {
	tests := []struct {
		a, b, sum, diff string
	}{
		{"100m", "200m", "300m", "-100m"},
		{"1", "500m", "1500m", "500m"},
		{"1Gi", "1Gi", "2Gi", "0"},
		{"1Gi", "512Mi", "1536Mi", "512Mi"},
		{"0", "1Gi", "1Gi", "-1Gi"}, // a zero takes the other's format
		{"100m", "0", "100m", "100m"},
		{"1E", "1", "1000000000000000001", "999999999999999999"}, // aligning overflows int64 on the way
		{"9E", "9E", "18E", "0"},
	}
	for _, tt := range tests {
		a, b := MustParseQuantity(tt.a), MustParseQuantity(tt.b)
		sum := a
		sum.Add(b)
		diff := a
		diff.Sub(b)
		wantSum, wantDiff := MustParseQuantity(tt.sum), MustParseQuantity(tt.diff)
		if sum.Cmp(wantSum) != 0 || sum.String() != tt.sum {
			t.Errorf("%s + %s = %s, want %s", tt.a, tt.b, sum, tt.sum)
		}
		if diff.Cmp(wantDiff) != 0 || diff.String() != tt.diff {
			t.Errorf("%s - %s = %s, want %s", tt.a, tt.b, diff, tt.diff)
		}
		if a.String() != MustParseQuantity(tt.a).String() {
			t.Errorf("Add/Sub changed the copy's source %s", tt.a)
		}
	}
	// Suffix preserved regardless of operand order.
	zero := MustParseQuantity("0")
	for _, s := range []string{"100m", "1Gi"} {
		q := zero
		q.Add(MustParseQuantity(s))
		if q.String() != s {
			t.Errorf("0 + %s printed %s", s, q)
		}
	}
}

func TestQuantityRoundUp(t *testing.T) {
	tests := []struct {
		in    string
		scale int32
		want  string
		exact bool
	}{
		{"9.01", -3, "9010m", true},
		{"9.01", -2, "9010m", true},
		{"9.01", -1, "9100m", false},
		{"9.01", 0, "10", false},
		{"-9.01", 0, "-10", false},
		{"0.0001", -3, "1m", false},
		{"1Gi", -3, "1Gi", true},
	}
	for _, tt := range tests {
		q := MustParseQuantity(tt.in)
		exact := q.RoundUp(tt.scale)
		if q.String() != tt.want || exact != tt.exact {
			t.Errorf("RoundUp(%s, %d) = %s, %v; want %s, %v", tt.in, tt.scale, q, exact, tt.want, tt.exact)
		}
	}
}

func TestQuantityJSON(t *testing.T) {
	tests := []struct {
		json, want string
	}{
		{`"1Gi"`, "1Gi"},
		{`"0.5"`, "500m"},
		{`" 100m "`, "100m"},
		{`2`, "2"},
		{`0.5`, "500m"},
		{`1e3`, "1e3"},
		{`null`, "0"},
	}
	for _, tt := range tests {
		var q Quantity
		if err := json.Unmarshal([]byte(tt.json), &q); err != nil {
			t.Errorf("Unmarshal(%s): %v", tt.json, err)
			continue
		}
		if q.String() != tt.want {
			t.Errorf("Unmarshal(%s) = %s, want %s", tt.json, q, tt.want)
		}
		out, err := json.Marshal(q)
		if err != nil || string(out) != `"`+tt.want+`"` {
			t.Errorf("Marshal(%s) = %s, %v", tt.want, out, err)
		}
	}
	for _, bad := range []string{`"abc"`, `true`, `{}`, `[]`, `"1 Gi"`, `""`} {
		var q Quantity
		if err := json.Unmarshal([]byte(bad), &q); err == nil {
			t.Errorf("Unmarshal(%s) = %s, want an error", bad, q)
		}
	}
	// In a ResourceList, as in a pod spec.
	var l ResourceList
	if err := json.Unmarshal([]byte(`{"cpu":"0.5","memory":"1024Mi"}`), &l); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(l)
	if string(out) != `{"cpu":"500m","memory":"1Gi"}` {
		t.Errorf("ResourceList round trip = %s", out)
	}
}

func TestQuantityEqualAmountsEqualFields(t *testing.T) {
	// Normalised storage makes == and reflect.DeepEqual agree with Cmp for one format.
	if MustParseQuantity("1000m") != MustParseQuantity("1") {
		t.Error(`"1000m" and "1" differ as values`)
	}
}

// FuzzParseQuantity checks that ParseQuantity never panics, that its int64
// fast path agrees with the general path, and that what it accepts prints
// as text that parses back to the same amount.
func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{"1", "500m", "1.5Gi", "2e3", "-0.1n", "1e-20", "9Ei"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuantity(s)
		if err != nil {
			return
		}
		// The int64 fast path agrees with the general one.
		if negative, i, f, suffix, err := splitQuantity(s); err == nil {
			base, exp, format, _ := interpretSuffix(suffix)
			if small, ok := parseSmall(negative, i, f, base, exp, format); ok {
				if big, err := parseBig(negative, i, f, base, exp, format); err != nil || big != small {
					t.Fatalf("%q: fast path %#v, general path %#v (%v)", s, small, big, err)
				}
			}
		}
		back, err := ParseQuantity(q.String())
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", s, q.String(), err)
		}
		if back.Cmp(q) != 0 {
			t.Fatalf("%q printed as %q, which parses to a different amount %q", s, q.String(), back.String())
		}
	})
}

func BenchmarkParseQuantity(b *testing.B) {
	for b.Loop() {
		_, _ = ParseQuantity("500m")
		_, _ = ParseQuantity("128Mi")
	}
}

func BenchmarkQuantityMilliValue(b *testing.B) {
	q := MustParseQuantity("1500m")
	for b.Loop() {
		_ = q.MilliValue()
	}
}
