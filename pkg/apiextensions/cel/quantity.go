package cel

import (
	"fmt"
	"reflect"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"

	"kplane/pkg/api"
)

// This file adds Kubernetes' quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go)
// on kplane's own api.Quantity, for rules about resource amounts:
//
//	quantity('1.5Gi')             a Quantity; an error when the text is not one
//	isQuantity('1.5Gi') -> bool
//	q.sign() -> int               -1, 0 or 1
//	q.isInteger() -> bool         whether q is a whole number that fits an int
//	q.asInteger() -> int          an error unless isInteger
//	q.asApproximateFloat() -> double
//	q.add(q2 | int), q.sub(q2 | int) -> Quantity
//	q.isGreaterThan(q2), q.isLessThan(q2) -> bool
//	q.compareTo(q2) -> int
//
// and == between quantities compares amounts: quantity('1') == quantity('1000m').

// quantityType is the CEL type of a quantity.
var quantityType = cel.ObjectType("kubernetes.Quantity")

// quantityValue is a Quantity inside CEL.
type quantityValue struct{ api.Quantity }

// ConvertToNative gives the api.Quantity to Go code that asks for one.
func (q quantityValue) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(q.Quantity).AssignableTo(typeDesc) {
		return q.Quantity, nil
	}
	if reflect.TypeOf("").AssignableTo(typeDesc) {
		return q.Quantity.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'Quantity' to '%v'", typeDesc)
}

// ConvertToType converts to string (the canonical text) or the type itself.
func (q quantityValue) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case quantityType:
		return q
	case types.StringType:
		return types.String(q.Quantity.String())
	case types.TypeType:
		return quantityType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", quantityType, typeVal)
}

// Equal compares amounts, whatever their notation.
func (q quantityValue) Equal(other ref.Val) ref.Val {
	o, ok := other.(quantityValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(q.Quantity.Cmp(o.Quantity) == 0)
}

// Type is kubernetes.Quantity.
func (q quantityValue) Type() ref.Type { return quantityType }

// Value is the api.Quantity.
func (q quantityValue) Value() any { return q.Quantity }

// quantityLibrary declares the functions above.
func quantityLibrary() []cel.EnvOption {
	q := quantityType
	unary := func(id string, result *cel.Type, fn func(api.Quantity) ref.Val) cel.FunctionOpt {
		return cel.MemberOverload(id, []*cel.Type{q}, result, cel.UnaryBinding(func(v ref.Val) ref.Val {
			qv, ok := v.(quantityValue)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			return fn(qv.Quantity)
		}))
	}
	binary := func(id string, arg, result *cel.Type, fn func(api.Quantity, ref.Val) ref.Val) cel.FunctionOpt {
		return cel.MemberOverload(id, []*cel.Type{q, arg}, result, cel.BinaryBinding(func(v, other ref.Val) ref.Val {
			qv, ok := v.(quantityValue)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			return fn(qv.Quantity, other)
		}))
	}
	return []cel.EnvOption{
		cel.Function("quantity", cel.Overload("string_to_quantity", []*cel.Type{cel.StringType}, q, cel.UnaryBinding(parseQuantity))),
		cel.Function("isQuantity", cel.Overload("is_quantity_string", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(s ref.Val) ref.Val { return types.Bool(!types.IsError(parseQuantity(s))) }))),
		cel.Function("sign", unary("quantity_sign", cel.IntType, func(x api.Quantity) ref.Val { return types.Int(x.Sign()) })),
		cel.Function("isInteger", unary("quantity_is_integer", cel.BoolType, func(x api.Quantity) ref.Val { return types.Bool(quantityIsInteger(x)) })),
		cel.Function("asInteger", unary("quantity_get_int", cel.IntType, func(x api.Quantity) ref.Val {
			if !quantityIsInteger(x) {
				return types.NewErr("cannot convert value to integer")
			}
			return types.Int(x.Value())
		})),
		cel.Function("asApproximateFloat", unary("quantity_get_float", cel.DoubleType, func(x api.Quantity) ref.Val {
			return types.Double(x.AsApproximateFloat64())
		})),
		cel.Function("add",
			binary("quantity_add", q, q, func(x api.Quantity, y ref.Val) ref.Val { return quantityArith(x, y, false) }),
			binary("quantity_add_int", cel.IntType, q, func(x api.Quantity, y ref.Val) ref.Val { return quantityArith(x, y, false) })),
		cel.Function("sub",
			binary("quantity_sub", q, q, func(x api.Quantity, y ref.Val) ref.Val { return quantityArith(x, y, true) }),
			binary("quantity_sub_int", cel.IntType, q, func(x api.Quantity, y ref.Val) ref.Val { return quantityArith(x, y, true) })),
		cel.Function("isGreaterThan", binary("quantity_is_greater_than", q, cel.BoolType, func(x api.Quantity, y ref.Val) ref.Val {
			return compareQuantity(x, y, func(c int) ref.Val { return types.Bool(c > 0) })
		})),
		cel.Function("isLessThan", binary("quantity_is_less_than", q, cel.BoolType, func(x api.Quantity, y ref.Val) ref.Val {
			return compareQuantity(x, y, func(c int) ref.Val { return types.Bool(c < 0) })
		})),
		cel.Function("compareTo", binary("quantity_compare_to", q, cel.IntType, func(x api.Quantity, y ref.Val) ref.Val {
			return compareQuantity(x, y, func(c int) ref.Val { return types.Int(c) })
		})),
	}
}

func parseQuantity(s ref.Val) ref.Val {
	str, ok := s.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(s)
	}
	q, err := api.ParseQuantity(string(str))
	if err != nil {
		return types.NewErr("quantity %q: %v", string(str), err)
	}
	return quantityValue{q}
}

// quantityIsInteger is true for a whole amount that fits an int64.
func quantityIsInteger(q api.Quantity) bool {
	return q.Cmp(api.NewQuantity(q.Value(), q.Format)) == 0
}

// quantityArith adds or subtracts a quantity or an int.
func quantityArith(x api.Quantity, y ref.Val, subtract bool) ref.Val {
	var other api.Quantity
	switch y := y.(type) {
	case quantityValue:
		other = y.Quantity
	case types.Int:
		other = api.NewQuantity(int64(y), x.Format)
	default:
		return types.MaybeNoSuchOverloadErr(y)
	}
	if subtract {
		x.Sub(other)
	} else {
		x.Add(other)
	}
	return quantityValue{x}
}

func compareQuantity(x api.Quantity, y ref.Val, result func(int) ref.Val) ref.Val {
	o, ok := y.(quantityValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(y)
	}
	return result(x.Cmp(o.Quantity))
}
