package api

// This file holds IntOrString, the union Kubernetes uses where a field takes
// either a number or a name/percentage: a Service's targetPort (80 or "http"),
// a Deployment's maxSurge (1 or "25%").

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// IntOrStringType says which member of an IntOrString is set.
type IntOrStringType int64

// The two kinds of IntOrString.
const (
	// IntOrStringInt means IntVal holds the value.
	IntOrStringInt IntOrStringType = iota
	// IntOrStringString means StrVal holds the value.
	IntOrStringString
)

// IntOrString holds an int32 or a string. In JSON it is a bare number or a
// string, never an object.
type IntOrString struct {
	Type   IntOrStringType
	IntVal int32
	StrVal string
}

// FromInt returns an IntOrString holding the number i.
func FromInt(i int) IntOrString {
	return IntOrString{Type: IntOrStringInt, IntVal: int32(i)}
}

// FromInt32 returns an IntOrString holding the number i.
func FromInt32(i int32) IntOrString {
	return IntOrString{Type: IntOrStringInt, IntVal: i}
}

// FromString returns an IntOrString holding the string s.
func FromString(s string) IntOrString {
	return IntOrString{Type: IntOrStringString, StrVal: s}
}

// String returns the string, or the number in decimal.
func (v IntOrString) String() string {
	if v.Type == IntOrStringString {
		return v.StrVal
	}
	return strconv.Itoa(int(v.IntVal))
}

// IntValue returns the number, or the string parsed as a number (0 if it is not one).
func (v IntOrString) IntValue() int {
	if v.Type == IntOrStringString {
		i, _ := strconv.Atoi(v.StrVal)
		return i
	}
	return int(v.IntVal)
}

// IsZero reports whether v is the number 0 or the empty string, which
// defaulting treats as unset.
func (v IntOrString) IsZero() bool {
	if v.Type == IntOrStringString {
		return v.StrVal == ""
	}
	return v.IntVal == 0
}

// MarshalJSON writes a JSON number or string.
func (v IntOrString) MarshalJSON() ([]byte, error) {
	if v.Type == IntOrStringString {
		return json.Marshal(v.StrVal)
	}
	return json.Marshal(v.IntVal)
}

// UnmarshalJSON reads a JSON string or an integer that fits an int32.
func (v *IntOrString) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("int-or-string: %w", err)
		}
		*v = FromString(s)
		return nil
	}
	var i int32
	if err := json.Unmarshal(data, &i); err != nil {
		return fmt.Errorf("int-or-string: expected an integer or a string, got %s", data)
	}
	*v = FromInt32(i)
	return nil
}

// ScaledValueFromIntOrPercent resolves v against total: a number is returned
// as is, a percentage such as "25%" becomes that share of total, rounded up
// or down as asked. Deployments round maxSurge up and maxUnavailable down.
func ScaledValueFromIntOrPercent(v *IntOrString, total int, roundUp bool) (int, error) {
	if v == nil {
		return 0, errors.New("nil value for IntOrString")
	}
	if v.Type == IntOrStringInt {
		return int(v.IntVal), nil
	}
	digits, isPercent := strings.CutSuffix(v.StrVal, "%")
	if !isPercent {
		return 0, fmt.Errorf("invalid value for IntOrString: %q is not a percentage", v.StrVal)
	}
	percent, err := strconv.Atoi(digits)
	if err != nil {
		return 0, fmt.Errorf("invalid value for IntOrString: %q: %w", v.StrVal, err)
	}
	// Integer arithmetic gives the exact ceiling/floor that upstream computes
	// with floats.
	product := percent * total
	result := product / 100
	if product%100 != 0 {
		switch {
		case roundUp && product > 0:
			result++
		case !roundUp && product < 0:
			result--
		}
	}
	return result, nil
}
