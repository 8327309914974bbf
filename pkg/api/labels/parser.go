package labels

import (
	"fmt"
	"strings"
)

// Parse reads a selector in the syntax of `?labelSelector=` and `kubectl -l`:
//
//	selector    ::= requirement { "," requirement }
//	requirement ::= [ "!" ] KEY
//	              | KEY ( "=" | "==" | "!=" | ">" | "<" ) VALUE
//	              | KEY ( "in" | "notin" ) "(" VALUE { "," VALUE } ")"
//
// Blanks may surround any token. A missing VALUE is the empty string, so
// `tier=` selects an empty tier label and `env in (,prod)` selects "" or
// "prod". The empty string parses to Everything.
//
// Errors read as upstream's do: syntax errors say what was found and what was
// expected (`found ')', expected: identifier`), and a requirement that is
// well-formed but invalid is reported as
// `unable to parse requirement: <field>: Invalid value: …`.
func Parse(s string) (Selector, error) {
	p := &parser{items: lex(s)}
	reqs, err := p.parseSelector()
	if err != nil {
		return nil, err
	}
	return NewSelector(reqs...), nil
}

// parser is a recursive-descent parser over the items of one selector.
type parser struct {
	items []item
	pos   int // index of the next unread item; items ends with endOfString
}

// context says whether the parser expects a key and operator or a value. In a
// value, the keywords "in" and "notin" are ordinary identifiers.
type context int

const (
	keyAndOperator context = iota
	values
)

// peek returns the next item without consuming it.
func (p *parser) peek(ctx context) item {
	it := p.items[p.pos]
	if ctx == values && (it.tok == inKeyword || it.tok == notInKeyword) {
		it.tok = identifier
	}
	return it
}

// next consumes and returns the next item. Reading past the end keeps
// returning endOfString.
func (p *parser) next(ctx context) item {
	it := p.peek(ctx)
	if p.pos < len(p.items)-1 {
		p.pos++
	}
	return it
}

func (p *parser) parseSelector() ([]Requirement, error) {
	var reqs []Requirement
	for {
		// Keys are read in the values context so that a label may be named
		// "in" or "notin".
		switch it := p.peek(values); it.tok {
		case endOfString:
			return reqs, nil
		case identifier, doesNotExist:
			r, err := p.parseRequirement()
			if err != nil {
				return nil, fmt.Errorf("unable to parse requirement: %w", err)
			}
			reqs = append(reqs, r)
			switch after := p.next(values); after.tok {
			case endOfString:
				return reqs, nil
			case comma:
				if following := p.peek(values); following.tok != identifier && following.tok != doesNotExist {
					return nil, fmt.Errorf("found '%s', expected: identifier after ','", following.text)
				}
			default:
				return nil, fmt.Errorf("found '%s', expected: ',' or 'end of string'", after.text)
			}
		default:
			return nil, fmt.Errorf("found '%s', expected: !, identifier, or 'end of string'", it.text)
		}
	}
}

func (p *parser) parseRequirement() (Requirement, error) {
	key, op, err := p.parseKeyAndInferOperator()
	if err != nil {
		return Requirement{}, err
	}
	if op == Exists || op == DoesNotExist {
		return NewRequirement(key, op, nil)
	}
	op, err = p.parseOperator()
	if err != nil {
		return Requirement{}, err
	}
	var vals []string
	switch op {
	case In, NotIn:
		vals, err = p.parseValueSet()
	default:
		vals, err = p.parseExactValue()
	}
	if err != nil {
		return Requirement{}, err
	}
	// Upstream collects the values into a sorted set before validating
	// them, so an error's index (values[i]) counts in sorted order.
	return NewRequirement(key, op, normalizeValues(vals))
}

// parseKeyAndInferOperator reads an optional "!" and a key. A key followed
// by "," or the end is an Exists requirement (or DoesNotExist after "!");
// otherwise the operator is still to be read and op is "".
func (p *parser) parseKeyAndInferOperator() (key string, op Operator, err error) {
	it := p.next(values)
	if it.tok == doesNotExist {
		op = DoesNotExist
		it = p.next(values)
	}
	if it.tok != identifier {
		return "", "", fmt.Errorf("found '%s', expected: identifier", it.text)
	}
	if problems := validateKey(it.text); len(problems) > 0 {
		// Upstream validates the key here with no field path, so its
		// message begins with a literal "<nil>"; kept for fidelity.
		return "", "", invalid("<nil>", it.text, strings.Join(problems, "; "))
	}
	if after := p.peek(values); (after.tok == endOfString || after.tok == comma) && op != DoesNotExist {
		op = Exists
	}
	return it.text, op, nil
}

// binaryOperators is the "expected" list upstream prints for a bad operator.
const binaryOperators = "in, notin, =, ==, !=, gt, lt"

func (p *parser) parseOperator() (Operator, error) {
	it := p.next(keyAndOperator)
	switch it.tok {
	case inKeyword:
		return In, nil
	case notInKeyword:
		return NotIn, nil
	case equals:
		return Equals, nil
	case doubleEquals:
		return DoubleEquals, nil
	case notEquals:
		return NotEquals, nil
	case greaterThan:
		return GreaterThan, nil
	case lessThan:
		return LessThan, nil
	default:
		return "", fmt.Errorf("found '%s', expected: %s", it.text, binaryOperators)
	}
}

// parseValueSet reads "(" values ")". Empty entries are the empty string:
// "()", "(,a)", "(a,)" and "(a,,b)" all contain "".
func (p *parser) parseValueSet() ([]string, error) {
	if it := p.next(values); it.tok != openParen {
		// Upstream's message has no comma after the found token here.
		return nil, fmt.Errorf("found '%s' expected: '('", it.text)
	}
	switch it := p.peek(values); it.tok {
	case closeParen:
		p.next(values)
		return []string{""}, nil
	case identifier, comma:
		return p.parseValueList()
	default:
		return nil, fmt.Errorf("found '%s', expected: ',', ')' or identifier", it.text)
	}
}

// parseValueList reads comma-separated, possibly empty values up to and
// including the closing ")".
func (p *parser) parseValueList() ([]string, error) {
	var vals []string
	expectValue := true // at the start and after each comma
	for {
		it := p.next(values)
		switch {
		case it.tok == identifier && expectValue:
			vals = append(vals, it.text)
			expectValue = false
		case it.tok == comma:
			if expectValue {
				vals = append(vals, "") // "(," or ",,"
			}
			expectValue = true
		case it.tok == closeParen:
			if expectValue {
				vals = append(vals, "") // ",)"
			}
			return vals, nil
		case expectValue:
			return nil, fmt.Errorf("found '%s', expected: ',', or identifier", it.text)
		default:
			return nil, fmt.Errorf("found '%s', expected: ',' or ')'", it.text)
		}
	}
}

// parseExactValue reads the single value after =, ==, !=, > or <. Nothing
// before the next "," or the end is the empty value.
func (p *parser) parseExactValue() ([]string, error) {
	if after := p.peek(values); after.tok == endOfString || after.tok == comma {
		return []string{""}, nil
	}
	it := p.next(values)
	if it.tok != identifier {
		return nil, fmt.Errorf("found '%s', expected: identifier", it.text)
	}
	return []string{it.text}, nil
}
