package cel

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/interpreter"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// Validate runs every rule against obj; old is the stored object on updates
// (nil on create). Transition rules (those using oldSelf) run only where
// both values exist, as upstream: on an update, and for list elements and
// map values only where an old one matches (by key in a map or a list of
// type map). A rule with optionalOldSelf runs regardless, oldSelf then an
// empty optional.
//
// As upstream's validation ratcheting does, a rule that does not use
// oldSelf is not enforced on a value the update leaves unchanged: an object
// stored before the rule was added can still be updated elsewhere.
//
// All the rules of one call share RuntimeCostBudget; once it is spent, the
// remaining rules are not run and the last error says so.
func (v *Validator) Validate(obj, old map[string]any) apierrors.FieldErrorList {
	if v == nil || v.root == nil || !v.root.hasRules || obj == nil {
		return nil
	}
	w := &walk{budget: RuntimeCostBudget}
	var oldValue any
	if old != nil {
		oldValue = old
	}
	w.node(v.root, "", obj, oldValue, old != nil)
	return w.errs
}

// walk is one Validate call: the errors so far and the cost budget left.
type walk struct {
	errs    apierrors.FieldErrorList
	budget  int64
	stopped bool
}

// node validates value at path against n's rules and then its children's.
// oldValue is the correlated old value when hasOld.
func (w *walk) node(n *schemaNode, path string, value, oldValue any, hasOld bool) {
	if w.stopped || value == nil || !n.hasRules {
		return
	}
	if len(n.rules) > 0 {
		w.rules(n, path, value, oldValue, hasOld)
	}
	switch n.kind {
	case objectNode:
		m, _ := value.(map[string]any)
		oldMap, _ := oldValue.(map[string]any)
		for _, p := range n.properties {
			if !p.node.hasRules {
				continue
			}
			child, ok := m[p.jsonName]
			if !ok {
				continue
			}
			oldChild, oldOK := oldMap[p.jsonName]
			w.node(p.node, childPath(path, p.jsonName), child, oldChild, hasOld && oldOK && oldChild != nil)
		}
	case mapNode:
		m, _ := value.(map[string]any)
		oldMap, _ := oldValue.(map[string]any)
		for _, k := range sortedKeys(m) {
			oldChild, oldOK := oldMap[k]
			w.node(n.elements, keyPath(path, k), m[k], oldChild, hasOld && oldOK && oldChild != nil)
		}
	case listNode:
		l, _ := value.([]any)
		var oldByKey map[string]any
		if hasOld && isMapList(n.schema) {
			oldByKey = elementsByMapKey(oldValue, n.schema.XListMapKeys)
		}
		for i, e := range l {
			oldElement, oldOK := any(nil), false
			if oldByKey != nil {
				oldElement, oldOK = oldByKey[mapKeyOf(e, n.schema.XListMapKeys)]
			}
			w.node(n.elements, indexPath(path, i), e, oldElement, oldOK)
		}
	}
}

// rules evaluates the node's own rules.
func (w *walk) rules(n *schemaNode, path string, value, oldValue any, hasOld bool) {
	unchanged := hasOld && reflect.DeepEqual(value, oldValue)
	var self, oldSelf ref.Val
	for _, rule := range n.rules {
		if w.stopped {
			return
		}
		if rule.usesOldSelf && !hasOld && !rule.optionalOldSelf {
			continue // a transition rule needs an old value
		}
		if !rule.usesOldSelf && unchanged {
			continue // ratcheting: the value was accepted when it was written
		}
		if self == nil {
			self = celAdapter.NativeToValue(n.celValue(value))
		}
		act := &ruleActivation{self: self}
		if rule.usesOldSelf {
			if hasOld && oldSelf == nil {
				oldSelf = celAdapter.NativeToValue(n.celValue(oldValue))
			}
			act.oldSelf, act.hasOldSelf = oldSelf, hasOld
			if rule.optionalOldSelf {
				act.oldSelf, act.hasOldSelf = types.OptionalNone, true
				if hasOld {
					act.oldSelf = types.OptionalOf(oldSelf)
				}
			}
		}
		w.evaluate(n, rule, path, act)
	}
}

// evaluate runs one rule and records its error, if any, with upstream's
// messages.
func (w *walk) evaluate(n *schemaNode, rule *compiledRule, path string, act *ruleActivation) {
	field := printedPath(path)
	out, details, err := rule.program.Eval(act)
	if !w.spend(details) {
		w.fail(apierrors.Invalid(field, n.schemaType, "validation failed due to running out of cost budget, no further validation rules will be run"))
		return
	}
	if err != nil {
		switch {
		case strings.HasPrefix(err.Error(), "no such overload"):
			// Only possible where the checker could not see the types:
			// int-or-string and preserve-unknown values are dyn.
			w.errs = append(w.errs, apierrors.Invalid(field, n.schemaType, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", err, ruleErrorString(rule.rule))))
		case strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded"):
			w.fail(apierrors.Invalid(field, n.schemaType, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", err, ruleErrorString(rule.rule))))
		default:
			// no such key, index out of bounds, division by zero, overflow …
			w.errs = append(w.errs, apierrors.Invalid(field, n.schemaType, fmt.Sprintf("%v evaluating rule: %v", err, ruleErrorString(rule.rule))))
		}
		return
	}
	if out == types.True {
		return
	}
	at := path
	for _, step := range rule.fieldPath {
		at = step.appendTo(at)
	}
	message := ruleMessageOrDefault(rule.rule)
	if rule.messageProgram != nil {
		msg, ok := w.message(n, rule, field, act)
		if w.stopped {
			return
		}
		if ok {
			message = msg
		}
	}
	w.errs = append(w.errs, fieldErrorForReason(printedPath(at), n.schemaType, message, rule.rule.Reason))
}

// message evaluates a messageExpression. It returns false, and the rule's
// message is used instead, when the expression fails, is empty or spans
// lines — as upstream does, which logs such failures and carries on.
func (w *walk) message(n *schemaNode, rule *compiledRule, field string, act *ruleActivation) (string, bool) {
	out, details, err := rule.messageProgram.Eval(act)
	if !w.spend(details) || (err != nil && strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded")) {
		w.fail(apierrors.Invalid(field, n.schemaType, "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run"))
		return "", false
	}
	if err != nil {
		return "", false
	}
	s, ok := out.(types.String)
	msg := strings.TrimSpace(string(s))
	if !ok || msg == "" || strings.ContainsAny(msg, "\r\n") {
		return "", false
	}
	return msg, true
}

// spend takes an evaluation's cost from the budget; false when it is spent.
func (w *walk) spend(details *cel.EvalDetails) bool {
	if details == nil {
		return true
	}
	cost := details.ActualCost()
	if cost == nil {
		return true
	}
	if *cost > uint64(w.budget) {
		w.budget = -1
		return false
	}
	w.budget -= int64(*cost)
	return true
}

// fail records an error that ends the validation.
func (w *walk) fail(e *apierrors.FieldError) {
	w.errs = append(w.errs, e)
	w.stopped = true
}

// ruleErrorString names a rule in an error: its message, else its text.
func ruleErrorString(rule api.ValidationRule) string {
	if len(rule.Message) > 0 {
		return strings.TrimSpace(rule.Message)
	}
	return strings.TrimSpace(rule.Rule)
}

// ruleMessageOrDefault is the detail of a failed rule: its message, else
// "failed rule: <rule>".
func ruleMessageOrDefault(rule api.ValidationRule) string {
	if len(rule.Message) == 0 {
		return "failed rule: " + ruleErrorString(rule)
	}
	return strings.TrimSpace(rule.Message)
}

// fieldErrorForReason builds the error a failed rule reports, of the type
// its reason names (FieldValueInvalid when none). As upstream, a Duplicate
// error carries the value's type and no message.
func fieldErrorForReason(field, schemaType, detail string, reason *string) *apierrors.FieldError {
	if reason == nil {
		return apierrors.Invalid(field, schemaType, detail)
	}
	switch apierrors.FieldErrorType(*reason) {
	case apierrors.FieldValueForbidden:
		return apierrors.Forbidden(field, detail)
	case apierrors.FieldValueRequired:
		return apierrors.Required(field, detail)
	case apierrors.FieldValueDuplicate:
		return apierrors.Duplicate(field, schemaType)
	}
	return apierrors.Invalid(field, schemaType, detail)
}

// ruleActivation binds self and oldSelf for one evaluation.
type ruleActivation struct {
	self, oldSelf ref.Val
	hasOldSelf    bool
}

// ResolveName implements interpreter.Activation.
func (a *ruleActivation) ResolveName(name string) (any, bool) {
	switch name {
	case "self":
		return a.self, true
	case "oldSelf":
		return a.oldSelf, a.hasOldSelf
	}
	return nil, false
}

// Parent implements interpreter.Activation.
func (a *ruleActivation) Parent() interpreter.Activation { return nil }

// celAdapter turns the Go values of values.go into CEL values.
var celAdapter = types.DefaultTypeAdapter

// elementsByMapKey indexes the elements of an old map-list by their keys.
func elementsByMapKey(list any, keys []string) map[string]any {
	l, _ := list.([]any)
	out := make(map[string]any, len(l))
	for _, e := range l {
		out[mapKeyOf(e, keys)] = e
	}
	return out
}

// mapKeyOf is an element's key fields, encoded so that equal keys compare
// equal as strings.
func mapKeyOf(element any, keys []string) string {
	m, _ := element.(map[string]any)
	values := make([]any, len(keys))
	for i, k := range keys {
		values[i] = m[k]
	}
	b, err := json.Marshal(values)
	if err != nil {
		return fmt.Sprint(values)
	}
	return string(b)
}

// sortedKeys returns a map's keys in order, so errors come out stably.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
