package api

// This file holds Quantity, the fixed-point number Kubernetes uses for every
// resource amount ("500m" CPU, "1Gi" memory). It mirrors apimachinery's
// resource.Quantity: the same grammar, the same rounding, and the same
// canonical form when printed, so objects read back from kplane look exactly
// like objects read back from a real cluster.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Format is the notation a Quantity was written in and is printed in again.
type Format string

// The three notations a quantity can use.
const (
	// DecimalExponent is scientific notation, e.g. "12e6".
	DecimalExponent Format = "DecimalExponent"
	// BinarySI uses powers of 1024, e.g. "12Mi" (12 × 2^20).
	BinarySI Format = "BinarySI"
	// DecimalSI uses powers of 1000, e.g. "12M" (12 × 10^6) or "500m".
	DecimalSI Format = "DecimalSI"
)

// Quantity is an exact decimal amount with the notation it was written in.
//
// The grammar, as in Kubernetes, is
//
//	<quantity> ::= <sign>? <digits>? ("." <digits>?)? <suffix>
//	<suffix>   ::= Ki | Mi | Gi | Ti | Pi | Ei          (binary SI)
//	             | n | u | m | "" | k | M | G | T | P | E (decimal SI)
//	             | (e | E) <sign>? <digits>             (decimal exponent)
//
// Values are never floating point. Anything finer than a nano-unit is rounded
// up (away from zero) to 1n, on the theory that whoever asked for some of a
// resource should get some. Binary SI amounts are capped at 2^63-1.
//
// The amount is stored as value × 10^scale with value an int64 and trailing
// zeros moved into scale, so equal amounts have equal fields. That keeps 18
// significant digits, which every real quantity fits; upstream keeps
// arbitrary precision, and kplane rounds (away from zero) beyond 18 digits.
//
// The zero value is the number 0.
type Quantity struct {
	value  int64
	scale  int32
	Format Format
}

// Errors returned by ParseQuantity. Callers wrap them with the offending text.
var (
	ErrQuantityFormat  = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	ErrQuantityNumeric = errors.New("unable to parse numeric part of quantity")
	ErrQuantitySuffix  = errors.New("unable to parse quantity's suffix")
)

// nanoScale is the finest scale a parsed quantity keeps (10^-9).
const nanoScale = -9

// maxMagnitude bounds parsed quantities to less than 10^maxMagnitude. Upstream
// has no bound, but nothing real comes near it, and without one a quantity
// such as "1e999999999" would make every comparison build a billion-digit number.
const maxMagnitude = 100

// ParseQuantity reads a quantity such as "500m", "1Gi", "1.5" or "2e3".
// Whitespace is not allowed anywhere.
func ParseQuantity(s string) (Quantity, error) {
	if s == "" {
		return Quantity{}, ErrQuantityFormat
	}
	negative, intDigits, fracDigits, suffix, err := splitQuantity(s)
	if err != nil {
		return Quantity{}, err
	}
	base, exponent, format, ok := interpretSuffix(suffix)
	if !ok {
		return Quantity{}, ErrQuantitySuffix
	}

	if q, ok := parseSmall(negative, intDigits, fracDigits, base, exponent, format); ok {
		return q, nil
	}
	return parseBig(negative, intDigits, fracDigits, base, exponent, format)
}

// parseBig is ParseQuantity's general case: the digits as one big integer
// with the decimal point moved into the scale, rounded and bounded.
func parseBig(negative bool, intDigits, fracDigits string, base int, exponent int32, format Format) (Quantity, error) {
	unscaled, ok := new(big.Int).SetString(intDigits+fracDigits, 10)
	if !ok {
		return Quantity{}, ErrQuantityNumeric
	}
	if negative {
		unscaled.Neg(unscaled)
	}
	scale := -int64(len(fracDigits))
	if base == 10 {
		scale += int64(exponent)
	} else {
		unscaled.Lsh(unscaled, uint(exponent))
	}
	digits := int64(len(new(big.Int).Abs(unscaled).String()))
	switch {
	case unscaled.Sign() == 0:
		return Quantity{Format: format}, nil
	case digits+scale > maxMagnitude:
		// Bounding the magnitude keeps arithmetic on hostile input cheap.
		return Quantity{}, fmt.Errorf("%w: larger than 10^%d", ErrQuantityNumeric, maxMagnitude)
	case digits+scale < nanoScale:
		// Far below a nano-unit: the value rounds up to ±1n.
		q := Quantity{value: 1, scale: nanoScale, Format: format}
		if negative {
			q.value = -1
		}
		if format == BinarySI {
			q.Format = DecimalSI
		}
		return q, nil
	}

	// Binary SI amounts are capped at the largest int64, as upstream does.
	if format == BinarySI && exceedsMaxInt64(unscaled, int32(scale)) {
		q := Quantity{value: math.MaxInt64, Format: format}
		if negative {
			q.value = -math.MaxInt64
		}
		return q, nil
	}

	q := fromBig(unscaled, int32(scale), format)
	// A binary amount below one unit cannot be printed in binary notation.
	if format == BinarySI && q.value != 0 && q.scale < 0 && q.absCmpOne() < 0 {
		q.Format = DecimalSI
	}
	return q, nil
}

// parseSmall is ParseQuantity's fast path for the usual quantities, whose
// digits fit an int64 and need no rounding; ok is false for anything else.
func parseSmall(negative bool, intDigits, fracDigits string, base int, exponent int32, format Format) (Quantity, bool) {
	if len(intDigits)+len(fracDigits) > maxInt64Digits || exponent < -maxMagnitude || exponent > maxMagnitude {
		return Quantity{}, false
	}
	v, err := strconv.ParseInt(intDigits+fracDigits, 10, 64)
	if err != nil {
		return Quantity{}, false
	}
	scale := -int32(len(fracDigits))
	if base == 10 {
		scale += exponent
	} else {
		if v > math.MaxInt64>>exponent {
			return Quantity{}, false
		}
		v <<= exponent
	}
	if v == 0 {
		return Quantity{Format: format}, true
	}
	if scale < nanoScale || int64(len(strconv.FormatInt(v, 10)))+int64(scale) > maxMagnitude {
		return Quantity{}, false
	}
	if negative {
		v = -v
	}
	q := normalize(v, scale, format)
	if format == BinarySI && q.scale < 0 && q.absCmpOne() < 0 {
		q.Format = DecimalSI
	}
	return q, true
}

// maxInt64Digits is the number of decimal digits every int64 can hold.
const maxInt64Digits = 18

// MustParseQuantity is ParseQuantity for literals known to be valid; it panics otherwise.
func MustParseQuantity(s string) Quantity {
	q, err := ParseQuantity(s)
	if err != nil {
		panic(fmt.Sprintf("cannot parse quantity %q: %v", s, err))
	}
	return q
}

// NewQuantity returns value (in whole units) in the given notation.
func NewQuantity(value int64, format Format) Quantity {
	return normalize(value, 0, format)
}

// NewMilliQuantity returns milli/1000 units in the given notation,
// e.g. NewMilliQuantity(250, DecimalSI) is "250m".
func NewMilliQuantity(milli int64, format Format) Quantity {
	return normalize(milli, -3, format)
}

// NewScaledQuantity returns value × 10^scale in DecimalSI notation.
func NewScaledQuantity(value int64, scale int32) Quantity {
	return normalize(value, scale, DecimalSI)
}

// splitQuantity breaks s into sign, integer digits (leading zeros removed),
// fraction digits and suffix, following upstream's scanner: "1." and ".5"
// are numbers, and the suffix is a run of suffix letters optionally followed
// by a signed exponent.
func splitQuantity(s string) (negative bool, intDigits, fracDigits, suffix string, err error) {
	pos := 0
	switch s[0] {
	case '-':
		negative = true
		pos++
	case '+':
		pos++
	}
	start := pos
	for pos < len(s) && isDigit(s[pos]) {
		pos++
	}
	intDigits = strings.TrimLeft(s[start:pos], "0")
	if pos < len(s) && s[pos] == '.' {
		pos++
		start = pos
		for pos < len(s) && isDigit(s[pos]) {
			pos++
		}
		fracDigits = s[start:pos]
	}
	if intDigits == "" {
		intDigits = "0"
	}
	suffix = s[pos:]
	// The suffix: letters, then an optional sign and digits (an exponent).
	i := 0
	for i < len(suffix) && strings.IndexByte("eEinumkKMGTP", suffix[i]) >= 0 {
		i++
	}
	if i < len(suffix) && (suffix[i] == '+' || suffix[i] == '-') {
		i++
	}
	for i < len(suffix) && isDigit(suffix[i]) {
		i++
	}
	if i != len(suffix) {
		return false, "", "", "", ErrQuantityFormat
	}
	return negative, intDigits, fracDigits, suffix, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// decimalSuffixes maps each decimal SI suffix to its power of ten.
var decimalSuffixes = map[string]int32{
	"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18,
}

// decimalSuffixByExponent is decimalSuffixes inverted, for printing.
var decimalSuffixByExponent = func() map[int32]string {
	m := make(map[int32]string, len(decimalSuffixes))
	for suffix, e := range decimalSuffixes {
		m[e] = suffix
	}
	return m
}()

// binarySuffixes maps each binary SI suffix to its power of two.
var binarySuffixes = map[string]int32{
	"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60,
}

// interpretSuffix returns the base (10 or 2), the exponent and the notation a
// suffix stands for.
func interpretSuffix(suffix string) (base int, exponent int32, format Format, ok bool) {
	if e, found := decimalSuffixes[suffix]; found {
		return 10, e, DecimalSI, true
	}
	if e, found := binarySuffixes[suffix]; found {
		return 2, e, BinarySI, true
	}
	if len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		e, err := strconv.ParseInt(suffix[1:], 10, 32)
		if err != nil || e == math.MinInt32 {
			return 0, 0, "", false
		}
		return 10, int32(e), DecimalExponent, true
	}
	return 0, 0, "", false
}

// bigTen is 10 as a big.Int, used when amounts outgrow int64.
var bigTen = big.NewInt(10)

// pow10Big returns 10^n for n ≥ 0.
func pow10Big(n int64) *big.Int {
	return new(big.Int).Exp(bigTen, big.NewInt(n), nil)
}

// exceedsMaxInt64 reports whether |unscaled × 10^scale| > 2^63-1.
func exceedsMaxInt64(unscaled *big.Int, scale int32) bool {
	abs := new(big.Int).Abs(unscaled)
	limit := big.NewInt(math.MaxInt64)
	if scale >= 0 {
		return abs.Mul(abs, pow10Big(int64(scale))).Cmp(limit) > 0
	}
	return abs.Cmp(limit.Mul(limit, pow10Big(-int64(scale)))) > 0
}

// divRoundAway divides n by d (d > 0), rounding the magnitude up.
func divRoundAway(n, d *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(n, d, new(big.Int))
	if r.Sign() != 0 {
		if n.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// fromBig turns unscaled × 10^scale into a Quantity: it rounds away from
// zero to a nano-unit, moves trailing zeros into the scale, and, if the
// digits still do not fit an int64, gives up low-order digits (rounding away
// from zero) until they do.
func fromBig(unscaled *big.Int, scale int32, format Format) Quantity {
	n := new(big.Int).Set(unscaled)
	if n.Sign() == 0 {
		return Quantity{Format: format}
	}
	if scale < nanoScale {
		n = divRoundAway(n, pow10Big(int64(nanoScale-scale)))
		scale = nanoScale
	}
	r := new(big.Int)
	for n.Sign() != 0 {
		q, rem := new(big.Int).QuoRem(n, bigTen, r)
		if rem.Sign() != 0 {
			break
		}
		n = q
		scale++
	}
	for !n.IsInt64() {
		n = divRoundAway(n, bigTen)
		scale++
	}
	return Quantity{value: n.Int64(), scale: scale, Format: format}
}

// normalize moves trailing zeros of value into scale.
func normalize(value int64, scale int32, format Format) Quantity {
	if value == 0 {
		return Quantity{Format: format}
	}
	for value%10 == 0 {
		value /= 10
		scale++
	}
	return Quantity{value: value, scale: scale, Format: format}
}

// big returns the unscaled value as a big.Int.
func (q Quantity) bigValue() *big.Int { return big.NewInt(q.value) }

// absCmpOne compares |q| with 1.
func (q Quantity) absCmpOne() int {
	one := Quantity{value: 1}
	abs := q
	if abs.value < 0 {
		abs.value = -abs.value
	}
	return abs.Cmp(one)
}

// pow10 holds 10^0 … 10^18, the powers of ten an int64 can hold.
var pow10 = func() [19]int64 {
	var p [19]int64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// mulPow10 returns v × 10^n (n ≥ 0) and whether it fit in an int64.
func mulPow10(v int64, n int32) (int64, bool) {
	if v == 0 {
		return 0, true
	}
	if n < 0 || int(n) >= len(pow10) {
		return 0, false
	}
	p := pow10[n]
	r := v * p
	if r/p != v {
		return 0, false
	}
	return r, true
}

// align returns a and b's unscaled values at their common (smaller) scale,
// or ok=false if that does not fit an int64.
func align(a, b Quantity) (av, bv int64, scale int32, ok bool) {
	switch {
	case a.value == 0:
		return 0, b.value, b.scale, true
	case b.value == 0:
		return a.value, 0, a.scale, true
	case a.scale == b.scale:
		return a.value, b.value, a.scale, true
	case a.scale > b.scale:
		av, ok = mulPow10(a.value, a.scale-b.scale)
		return av, b.value, b.scale, ok
	default:
		bv, ok = mulPow10(b.value, b.scale-a.scale)
		return a.value, bv, a.scale, ok
	}
}

// alignBig is align for amounts that outgrow int64.
func alignBig(a, b Quantity) (av, bv *big.Int, scale int32) {
	av, bv = a.bigValue(), b.bigValue()
	switch {
	case a.value == 0:
		return av, bv, b.scale
	case b.value == 0:
		return av, bv, a.scale
	case a.scale > b.scale:
		return av.Mul(av, pow10Big(int64(a.scale-b.scale))), bv, b.scale
	default:
		return av, bv.Mul(bv, pow10Big(int64(b.scale-a.scale))), a.scale
	}
}

// Cmp returns -1, 0 or 1 as q is less than, equal to or greater than y.
func (q Quantity) Cmp(y Quantity) int {
	if av, bv, _, ok := align(q, y); ok {
		switch {
		case av < bv:
			return -1
		case av > bv:
			return 1
		}
		return 0
	}
	av, bv, _ := alignBig(q, y)
	return av.Cmp(bv)
}

// Equal reports whether q and y are the same amount, whatever their notation.
func (q Quantity) Equal(y Quantity) bool { return q.Cmp(y) == 0 }

// Add adds y to q. A zero q takes y's notation, as upstream does, so that
// summing into an empty Quantity keeps the addends' format.
func (q *Quantity) Add(y Quantity) {
	if q.value == 0 {
		q.Format = y.Format
	}
	if av, bv, scale, ok := align(*q, y); ok {
		sum := av + bv
		// Overflow happens only when both addends have the same sign and the sum's sign differs.
		if (av >= 0) != (bv >= 0) || (sum >= 0) == (av >= 0) {
			*q = normalize(sum, scale, q.Format)
			return
		}
	}
	av, bv, scale := alignBig(*q, y)
	*q = fromBig(av.Add(av, bv), scale, q.Format)
}

// Sub subtracts y from q.
func (q *Quantity) Sub(y Quantity) {
	q.Add(y.Neg())
}

// Neg returns -q.
func (q Quantity) Neg() Quantity {
	if q.value == math.MinInt64 {
		return fromBig(new(big.Int).Neg(q.bigValue()), q.scale, q.Format)
	}
	q.value = -q.value
	return q
}

// IsZero reports whether q is 0.
func (q Quantity) IsZero() bool { return q.value == 0 }

// Sign returns -1, 0 or 1 as q is negative, zero or positive.
func (q Quantity) Sign() int {
	switch {
	case q.value < 0:
		return -1
	case q.value > 0:
		return 1
	}
	return 0
}

// Value returns q in whole units, rounded up (away from zero); e.g. "1500m" is 2.
// Amounts beyond int64 saturate.
func (q Quantity) Value() int64 { return q.ScaledValue(0) }

// MilliValue returns q in thousandths of a unit, rounded up (away from zero);
// e.g. "0.5" is 500. This is how CPU is usually compared.
func (q Quantity) MilliValue() int64 { return q.ScaledValue(-3) }

// MaxMilliValue is the largest amount whose value in thousandths still
// fits an int64 (upstream's resource.MaxMilliValue): below it, comparisons
// are made in thousandths so that 500m and 1 compare exactly.
const MaxMilliValue = math.MaxInt64 / 1000

// ScaledValue returns q in units of 10^scale, rounded up (away from zero) and
// saturated at the int64 limits.
func (q Quantity) ScaledValue(scale int32) int64 {
	if q.value == 0 {
		return 0
	}
	if q.scale >= scale {
		if v, ok := mulPow10(q.value, q.scale-scale); ok {
			return v
		}
		if q.value > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	shift := scale - q.scale
	if int(shift) >= len(pow10) {
		return int64(q.Sign())
	}
	p := pow10[shift]
	v := q.value / p
	if q.value%p != 0 {
		v += int64(q.Sign())
	}
	return v
}

// RoundUp rounds q up (away from zero) to a multiple of 10^scale and reports
// whether q was already exact. The apiserver rounds resource lists to
// milli-units (scale -3) this way.
func (q *Quantity) RoundUp(scale int32) bool {
	if q.value == 0 || q.scale >= scale {
		return true
	}
	*q = normalize(q.ScaledValue(scale), scale, q.Format)
	return false
}

// AsApproximateFloat64 returns q as a float64, which may lose precision;
// useful for ratios such as HPA utilisation, never for bookkeeping.
func (q Quantity) AsApproximateFloat64() float64 {
	return float64(q.value) * math.Pow10(int(q.scale))
}

// String returns q in canonical form, the form upstream prints: the largest
// suffix of q's notation that needs no fractional digits, e.g. "0.5" →
// "500m", "1024Mi" → "1Gi", "1.5Gi" → "1536Mi", "1000m" → "1".
func (q Quantity) String() string {
	if q.value == 0 {
		return "0"
	}
	format := q.Format
	switch format {
	case DecimalSI, DecimalExponent:
	case BinarySI:
		// Small or fractional binary amounts print in decimal SI, so that no
		// precision is lost and "0.5Ki" does not turn into "512".
		if q.ScaledValue(0) > -1024 && q.ScaledValue(0) < 1024 || q.scale < 0 {
			format = DecimalSI
		}
	default:
		format = DecimalExponent
	}
	if format == BinarySI {
		return q.binaryString()
	}
	return q.decimalString(format)
}

// decimalString prints q with an exponent that is a multiple of three and
// the matching decimal SI suffix, or "e<exponent>" notation.
func (q Quantity) decimalString(format Format) string {
	mantissa, exponent := q.value, q.scale
	var digits string
	shift := ((exponent % 3) + 3) % 3 // how far to lower the exponent to reach a multiple of 3
	if m, ok := mulPow10(mantissa, shift); ok {
		digits = strconv.FormatInt(m, 10)
	} else {
		digits = new(big.Int).Mul(big.NewInt(mantissa), pow10Big(int64(shift))).String()
	}
	exponent -= shift
	if format == DecimalSI {
		if suffix, ok := decimalSuffixByExponent[exponent]; ok {
			return digits + suffix
		}
		// Beyond "E" or below "n" there is no SI suffix; upstream falls back
		// to exponent notation rather than silently dropping the magnitude.
	}
	if exponent == 0 {
		return digits
	}
	return digits + "e" + strconv.FormatInt(int64(exponent), 10)
}

// binaryString prints an integral q with the largest binary SI suffix that
// divides it exactly.
func (q Quantity) binaryString() string {
	n := q.bigValue()
	if q.scale > 0 {
		n.Mul(n, pow10Big(int64(q.scale)))
	}
	suffixes := []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
	i := 0
	k1024 := big.NewInt(1024)
	rem := new(big.Int)
	for i+1 < len(suffixes) {
		quo, r := new(big.Int).QuoRem(n, k1024, rem)
		if r.Sign() != 0 {
			break
		}
		n = quo
		i++
	}
	return n.String() + suffixes[i]
}

// MarshalJSON writes q as its canonical string.
func (q Quantity) MarshalJSON() ([]byte, error) {
	return json.Marshal(q.String())
}

// UnmarshalJSON reads a quantity from a JSON string or number ("1Gi", 2, 0.5)
// or null (zero).
func (q *Quantity) UnmarshalJSON(data []byte) error {
	s := strings.TrimSpace(string(data))
	if s == "null" {
		*q = Quantity{}
		return nil
	}
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("quantity: %w", err)
		}
		s = strings.TrimSpace(s)
	}
	parsed, err := ParseQuantity(s)
	if err != nil {
		return fmt.Errorf("quantity %q: %w", s, err)
	}
	*q = parsed
	return nil
}
