package cel

import (
	"fmt"
	"math"
	"sort"

	"cel.dev/cel-go/checker"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
)

// CEL counts the work of an evaluation in abstract cost units (about one per
// operation, one per element a macro visits, a tenth per character a string
// function reads). Upstream bounds it three ways, and so does kplane, with
// upstream's numbers (k8s.io/apiserver/pkg/apis/cel/config.go):
const (
	// PerCallLimit stops one evaluation of one rule that has done this much
	// work. Upstream: 1,000,000, about a millisecond of CPU.
	PerCallLimit = 1_000_000
	// RuntimeCostBudget is what all the rules of one request may spend
	// together. Upstream: 10,000,000.
	RuntimeCostBudget = 10_000_000
	// StaticEstimatedCostLimit refuses, when the CRD is written, a rule
	// whose worst case on the largest object the schema admits is above
	// it. Upstream: 10,000,000.
	StaticEstimatedCostLimit = 10_000_000
	// StaticEstimatedCRDCostLimit bounds the sum over the whole schema of
	// each expression's estimate times the number of times it can run (a
	// rule on list items runs once per element, so it counts maxItems
	// times). Upstream: 100,000,000.
	StaticEstimatedCRDCostLimit = 100_000_000
)

// schemaCost adds up the estimates of a schema's expressions, to check
// them against StaticEstimatedCRDCostLimit as upstream does.
type schemaCost struct {
	total uint64
	// expressions are every expression's path and weighted cost, in
	// schema order.
	expressions []expressionCost
}

// expressionCost is one rule's or messageExpression's estimate, times the
// cardinality of its node.
type expressionCost struct {
	path string
	cost uint64
}

// add records one expression.
func (c *schemaCost) add(path string, cost, cardinality uint64) {
	weighted := saturatingMul(cost, cardinality)
	c.total = saturatingAdd(c.total, weighted)
	c.expressions = append(c.expressions, expressionCost{path: path, cost: weighted})
}

// mostExpensive are the expressions an over-budget schema blames: the
// four costliest, leaving out any below 1% of the limit, which could not
// have made the difference.
func (c *schemaCost) mostExpensive() []expressionCost {
	out := make([]expressionCost, 0, len(c.expressions))
	for _, e := range c.expressions {
		if e.cost >= StaticEstimatedCRDCostLimit/100 {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].cost > out[j].cost })
	if len(out) > 4 {
		out = out[:4]
	}
	return out
}

// costErrorMessage is upstream's wording for an estimate over a limit.
func costErrorMessage(costName string, cost, limit uint64) string {
	exceedFactor := float64(cost) / float64(limit)
	var factor string
	switch {
	case exceedFactor > 100.0:
		// Two orders of magnitude over: the rule is quadratic or worse and
		// the number would say nothing more.
		factor = "more than 100x"
	case exceedFactor < 1.5:
		factor = fmt.Sprintf("%fx", exceedFactor)
	default:
		factor = fmt.Sprintf("%.1fx", exceedFactor)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", costName, factor)
}

// sizeEstimator tells cel-go's static cost estimate how large the values a
// rule reads can be: a path such as [self spec containers @items name]
// leads through the schema to a node, whose maxSize bounds it.
type sizeEstimator struct {
	// self is the node the rule is on (both self and oldSelf have its type).
	self *schemaNode
}

// EstimateSize bounds a string, list or map the rule reaches from self.
func (e sizeEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	if t := element.Type(); t != nil && t.TypeName() == quantityType.TypeName() {
		// A quantity is one number: comparing two costs one step.
		return &checker.SizeEstimate{Min: 1, Max: 1}
	}
	if t := element.Type(); t != nil && t.TypeName() == urlType.TypeName() {
		// A URL came from a string in the request.
		return &checker.SizeEstimate{Min: 0, Max: maxRequestSizeBytes}
	}
	path := element.Path()
	if len(path) == 0 || (path[0] != "self" && path[0] != "oldSelf") {
		return nil
	}
	n := e.self
	for _, step := range path[1:] {
		switch {
		case n == nil:
			return nil
		case step == "@items" || step == "@values":
			n = n.elements
		case step == "@keys":
			// Map keys are strings of unknown length below the request size.
			return &checker.SizeEstimate{Min: 0, Max: maxRequestSizeBytes}
		default:
			n = n.fieldsByCELName[step]
		}
	}
	if n == nil || n.maxSize == 0 {
		return nil
	}
	return &checker.SizeEstimate{Min: 0, Max: n.maxSize}
}

// EstimateCallCost prices the functions of library.go: linear in the size
// of the list, or in the string and the pattern for the regex functions.
func (e sizeEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	switch function {
	case "isSorted", "sum", "min", "max", "indexOf", "lastIndexOf":
		if target == nil || !isListType((*target).Type()) {
			return nil
		}
		size := e.sizeOf(*target)
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: saturatingAdd(size.Max, 1)}}
	case "find", "findAll":
		if target == nil || len(args) == 0 {
			return nil
		}
		str, pattern := e.sizeOf(*target), e.sizeOf(args[0])
		cost := saturatingMul(tenth(str.Max), tenth(pattern.Max))
		call := &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: cost}}
		if function == "findAll" {
			call.ResultSize = &checker.SizeEstimate{Min: 0, Max: str.Max}
		}
		return call
	}
	return nil
}

// sizeOf is a node's size: what the expression itself shows (a literal),
// else what the schema allows, else unknown.
func (e sizeEstimator) sizeOf(n checker.AstNode) checker.SizeEstimate {
	if s := n.ComputedSize(); s != nil {
		return *s
	}
	if s := e.EstimateSize(n); s != nil {
		return *s
	}
	return checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
}

func isListType(t *types.Type) bool {
	return t != nil && t.Kind() == types.ListKind
}

// runtimeCost prices the same functions when they run, on the actual sizes.
type runtimeCost struct{}

// CallCost implements interpreter.ActualCostEstimator.
func (runtimeCost) CallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	var cost uint64
	switch function {
	case "isSorted", "sum", "min", "max", "indexOf", "lastIndexOf":
		if len(args) == 0 {
			return nil
		}
		l, ok := args[0].(traits.Lister)
		if !ok {
			return nil // the strings extension's indexOf prices itself
		}
		cost = uint64(l.Size().(types.Int)) + 1
	case "find", "findAll":
		if len(args) < 2 {
			return nil
		}
		s, _ := args[0].(types.String)
		p, _ := args[1].(types.String)
		cost = saturatingMul(tenth(uint64(len(s))), tenth(uint64(len(p))))
	default:
		return nil
	}
	return &cost
}

// tenth is the cost of traversing n characters (upstream's string
// traversal factor 0.1), at least 1.
func tenth(n uint64) uint64 {
	return n/10 + 1
}

func saturatingAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

func saturatingMul(a, b uint64) uint64 {
	if a != 0 && b > math.MaxUint64/a {
		return math.MaxUint64
	}
	return a * b
}
