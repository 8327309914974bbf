package cel

import (
	"regexp"
	"sync"
	"sync/atomic"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
)

// This file adds the Kubernetes CEL functions that CRD rules use most,
// beyond CEL's standard library and cel-go's extensions:
//
//	<list>.isSorted() -> bool           [1, 2, 3].isSorted()
//	<list>.sum() -> element             [1, 2].sum() == 3 ([] sums to zero)
//	<list>.min(), <list>.max()          an error on an empty list
//	<list>.indexOf(e), .lastIndexOf(e)  -1 when e is absent
//	<string>.find(regex) -> string      the first match, or ""
//	<string>.findAll(regex[, n]) -> list(string)
//
// as upstream declares them in k8s.io/apiserver/pkg/cel/library (lists.go,
// regex.go): each list function is declared for the element types that can
// be compared or added, so a rule such as [{}].sum() is refused when it is
// compiled.

// orderedElementTypes are the element types isSorted, min and max accept.
var orderedElementTypes = []*cel.Type{
	cel.IntType, cel.UintType, cel.DoubleType, cel.BoolType, cel.StringType,
	cel.BytesType, cel.DurationType, cel.TimestampType,
}

// summableElementTypes are the element types sum accepts, and the zero
// each sums an empty list to.
var summableElementTypes = []struct {
	t    *cel.Type
	zero ref.Val
}{
	{cel.IntType, types.IntZero},
	{cel.UintType, types.Uint(0)},
	{cel.DoubleType, types.Double(0)},
	{cel.DurationType, types.Duration{}},
}

// kubernetesLibrary declares the functions above.
func kubernetesLibrary() []cel.EnvOption {
	var isSorted, sum, minimum, maximum []cel.FunctionOpt
	for _, t := range orderedElementTypes {
		name := t.String()
		list := []*cel.Type{cel.ListType(t)}
		isSorted = append(isSorted, cel.MemberOverload("list_"+name+"_is_sorted", list, cel.BoolType, cel.UnaryBinding(listIsSorted)))
		minimum = append(minimum, cel.MemberOverload("list_"+name+"_min", list, t, cel.UnaryBinding(listExtreme("min", -1))))
		maximum = append(maximum, cel.MemberOverload("list_"+name+"_max", list, t, cel.UnaryBinding(listExtreme("max", 1))))
	}
	for _, s := range summableElementTypes {
		zero := s.zero
		sum = append(sum, cel.MemberOverload("list_"+s.t.String()+"_sum", []*cel.Type{cel.ListType(s.t)}, s.t,
			cel.UnaryBinding(func(v ref.Val) ref.Val { return listSum(v, zero) })))
	}
	elem := cel.TypeParamType("T")
	return []cel.EnvOption{
		cel.Function("isSorted", isSorted...),
		cel.Function("sum", sum...),
		cel.Function("min", minimum...),
		cel.Function("max", maximum...),
		cel.Function("indexOf", cel.MemberOverload("list_index_of", []*cel.Type{cel.ListType(elem), elem}, cel.IntType,
			cel.BinaryBinding(func(l, e ref.Val) ref.Val { return listIndexOf(l, e, false) }))),
		cel.Function("lastIndexOf", cel.MemberOverload("list_last_index_of", []*cel.Type{cel.ListType(elem), elem}, cel.IntType,
			cel.BinaryBinding(func(l, e ref.Val) ref.Val { return listIndexOf(l, e, true) }))),
		cel.Function("find", cel.MemberOverload("string_find_string", []*cel.Type{cel.StringType, cel.StringType}, cel.StringType,
			cel.BinaryBinding(regexFind))),
		cel.Function("findAll",
			cel.MemberOverload("string_find_all_string", []*cel.Type{cel.StringType, cel.StringType}, cel.ListType(cel.StringType),
				cel.BinaryBinding(func(s, re ref.Val) ref.Val { return regexFindAll(s, re, types.Int(-1)) })),
			cel.MemberOverload("string_find_all_string_int", []*cel.Type{cel.StringType, cel.StringType, cel.IntType}, cel.ListType(cel.StringType),
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return regexFindAll(args[0], args[1], args[2]) }))),
	}
}

// listElements returns the elements of a CEL list value.
func listElements(v ref.Val) ([]ref.Val, ref.Val) {
	l, ok := v.(traits.Lister)
	if !ok {
		return nil, types.MaybeNoSuchOverloadErr(v)
	}
	size := int64(l.Size().(types.Int))
	out := make([]ref.Val, size)
	for i := int64(0); i < size; i++ {
		out[i] = l.Get(types.Int(i))
	}
	return out, nil
}

// compare orders a before b (-1), equal (0) or after (1).
func compare(a, b ref.Val) (int64, ref.Val) {
	c, ok := a.(traits.Comparer)
	if !ok {
		return 0, types.MaybeNoSuchOverloadErr(a)
	}
	r := c.Compare(b)
	i, ok := r.(types.Int)
	if !ok {
		return 0, r
	}
	return int64(i), nil
}

func listIsSorted(v ref.Val) ref.Val {
	elems, errVal := listElements(v)
	if errVal != nil {
		return errVal
	}
	for i := 1; i < len(elems); i++ {
		c, errVal := compare(elems[i-1], elems[i])
		if errVal != nil {
			return errVal
		}
		if c > 0 {
			return types.False
		}
	}
	return types.True
}

// listExtreme returns min (sign -1) or max (sign 1) of a list.
func listExtreme(name string, sign int64) func(ref.Val) ref.Val {
	return func(v ref.Val) ref.Val {
		elems, errVal := listElements(v)
		if errVal != nil {
			return errVal
		}
		if len(elems) == 0 {
			return types.NewErr("%s called on empty list", name)
		}
		best := elems[0]
		for _, e := range elems[1:] {
			c, errVal := compare(e, best)
			if errVal != nil {
				return errVal
			}
			if c*sign > 0 {
				best = e
			}
		}
		return best
	}
}

func listSum(v, zero ref.Val) ref.Val {
	elems, errVal := listElements(v)
	if errVal != nil {
		return errVal
	}
	total := zero
	for _, e := range elems {
		adder, ok := total.(traits.Adder)
		if !ok {
			return types.MaybeNoSuchOverloadErr(total)
		}
		total = adder.Add(e)
		if types.IsError(total) {
			return total
		}
	}
	return total
}

func listIndexOf(v, e ref.Val, last bool) ref.Val {
	elems, errVal := listElements(v)
	if errVal != nil {
		return errVal
	}
	found := int64(-1)
	for i, x := range elems {
		if x.Equal(e) == types.True {
			found = int64(i)
			if !last {
				break
			}
		}
	}
	return types.Int(found)
}

// regexCache keeps compiled patterns: rules usually use a constant one, and
// a validation runs the same rule for every object. It holds at most
// maxCachedRegexes, so patterns built from object data cannot grow it
// without bound; others are compiled on each call.
var (
	regexCache       sync.Map // pattern string -> *regexp.Regexp
	regexCacheSize   atomic.Int64
	maxCachedRegexes = int64(1024)
)

func compileRegex(pattern ref.Val) (*regexp.Regexp, ref.Val) {
	p, ok := pattern.(types.String)
	if !ok {
		return nil, types.MaybeNoSuchOverloadErr(pattern)
	}
	if re, ok := regexCache.Load(string(p)); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(string(p))
	if err != nil {
		return nil, types.NewErr("could not compile regex %q: %v", string(p), err)
	}
	if regexCacheSize.Add(1) <= maxCachedRegexes {
		regexCache.Store(string(p), re)
	}
	return re, nil
}

func regexFind(s, pattern ref.Val) ref.Val {
	str, ok := s.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(s)
	}
	re, errVal := compileRegex(pattern)
	if errVal != nil {
		return errVal
	}
	return types.String(re.FindString(string(str)))
}

func regexFindAll(s, pattern, limit ref.Val) ref.Val {
	str, ok := s.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(s)
	}
	n, ok := limit.(types.Int)
	if !ok {
		return types.MaybeNoSuchOverloadErr(limit)
	}
	re, errVal := compileRegex(pattern)
	if errVal != nil {
		return errVal
	}
	return types.DefaultTypeAdapter.NativeToValue(re.FindAllString(string(str), int(n)))
}
