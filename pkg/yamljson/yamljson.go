// Package yamljson turns a YAML manifest into the JSON the API speaks. It
// is what the apiserver does with a YAML request body and what ctl does with
// each document of a -f file; upstream both sides use sigs.k8s.io/yaml.
//
// The conversion takes care with what Kubernetes expects: every map key
// becomes a string, integers stay integers (replicas: 3 is 3, not 3.0),
// timestamps and other unquoted scalars YAML would reinterpret keep their
// text (a label value 2024-01-01 stays "2024-01-01"), merge keys and
// aliases are expanded with a budget against "billion laughs" documents,
// and errors carry the line, e.g. "yaml: line 7: mapping values are not
// allowed in this context".
package yamljson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ErrEmpty is returned by ToJSON when the input holds no document at all:
// nothing, white space or only comments.
var ErrEmpty = errors.New("the YAML document is empty")

// ToJSON returns data as JSON. Data that starts with '{' or '[' (after
// white space) is JSON already, which is also YAML, and is returned
// unchanged; anything else is read as YAML. Only the first YAML document
// is read, as upstream's YAML decoder does: splitting a stream at "---" is
// the caller's business.
func ToJSON(data []byte) ([]byte, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		return data, nil
	}
	return yamlToJSON(data)
}

// yamlToJSON converts the first YAML document of body to JSON.
func yamlToJSON(body []byte) ([]byte, error) {
	var document yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(body)).Decode(&document); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, ErrEmpty
		}
		return nil, fmt.Errorf("error converting YAML to JSON: %w", err)
	}
	c := &yamlConverter{
		// Aliases let a small document expand into a huge one ("billion
		// laughs"); these budgets stop that long before memory runs out while
		// leaving room for any reasonable use of anchors.
		nodesLeft:  2*len(body) + 10_000,
		maxOutput:  4*len(body) + 1<<20,
		inProgress: map[*yaml.Node]bool{},
	}
	if err := c.node(&document); err != nil {
		return nil, fmt.Errorf("error converting YAML to JSON: %w", err)
	}
	return c.out.Bytes(), nil
}

// yamlConverter writes a yaml.Node tree as JSON. Writing directly (rather
// than through map[string]any) keeps the document's key order.
type yamlConverter struct {
	out        bytes.Buffer
	nodesLeft  int
	maxOutput  int
	inProgress map[*yaml.Node]bool // alias targets being written, to catch self-reference
}

var errExcessiveAliasing = errors.New("yaml: document contains excessive aliasing")

func (c *yamlConverter) node(n *yaml.Node) error {
	c.nodesLeft--
	if c.nodesLeft < 0 || c.out.Len() > c.maxOutput {
		return errExcessiveAliasing
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			c.out.WriteString("null")
			return nil
		}
		return c.node(n.Content[0])
	case yaml.AliasNode:
		return c.alias(n)
	case yaml.MappingNode:
		return c.mapping(n)
	case yaml.SequenceNode:
		c.out.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				c.out.WriteByte(',')
			}
			if err := c.node(item); err != nil {
				return err
			}
		}
		c.out.WriteByte(']')
		return nil
	case yaml.ScalarNode:
		return c.scalar(n)
	default:
		return fmt.Errorf("yaml: line %d: unexpected node", n.Line)
	}
}

func (c *yamlConverter) alias(n *yaml.Node) error {
	target := n.Alias
	if target == nil {
		return fmt.Errorf("yaml: line %d: unknown anchor %q referenced", n.Line, n.Value)
	}
	if c.inProgress[target] {
		return fmt.Errorf("yaml: line %d: anchor %q value contains itself", n.Line, n.Value)
	}
	c.inProgress[target] = true
	defer delete(c.inProgress, target)
	return c.node(target)
}

// keyValue is one entry of a mapping about to be written.
type keyValue struct {
	key   string
	value *yaml.Node
}

// mapping writes a YAML mapping as a JSON object. Keys are written as
// strings (YAML allows `80: http` or `true: x`; JSON and Kubernetes do
// not). Merge keys (`<<: *defaults`) are expanded: keys written in the
// mapping itself win over merged ones, and among merged mappings the first
// to define a key wins, as the YAML merge specification says.
func (c *yamlConverter) mapping(n *yaml.Node) error {
	entries, err := c.entries(n)
	if err != nil {
		return err
	}
	c.out.WriteByte('{')
	for i, e := range entries {
		if i > 0 {
			c.out.WriteByte(',')
		}
		writeJSONString(&c.out, e.key)
		c.out.WriteByte(':')
		if err := c.node(e.value); err != nil {
			return err
		}
	}
	c.out.WriteByte('}')
	return nil
}

// entries lists a mapping's keys and values with merge keys expanded.
func (c *yamlConverter) entries(n *yaml.Node) ([]keyValue, error) {
	explicit := map[string]int{} // key → line, to report duplicates as yaml.v3 does
	for i := 0; i+1 < len(n.Content); i += 2 {
		keyNode := n.Content[i]
		if isMergeKey(keyNode) {
			continue
		}
		key, err := keyString(keyNode)
		if err != nil {
			return nil, err
		}
		if line, dup := explicit[key]; dup {
			return nil, fmt.Errorf("yaml: line %d: mapping key %q already defined at line %d", keyNode.Line, key, line)
		}
		explicit[key] = keyNode.Line
	}

	var entries []keyValue
	written := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		keyNode, valueNode := n.Content[i], n.Content[i+1]
		if !isMergeKey(keyNode) {
			key, _ := keyString(keyNode)
			entries = append(entries, keyValue{key: key, value: valueNode})
			written[key] = true
			continue
		}
		merged, err := c.mergedEntries(valueNode)
		if err != nil {
			return nil, err
		}
		for _, e := range merged {
			if _, isExplicit := explicit[e.key]; isExplicit || written[e.key] {
				continue
			}
			entries = append(entries, e)
			written[e.key] = true
		}
	}
	return entries, nil
}

// mergedEntries lists the entries a merge key's value contributes: one
// mapping, an alias of one, or a sequence of those.
func (c *yamlConverter) mergedEntries(value *yaml.Node) ([]keyValue, error) {
	c.nodesLeft--
	if c.nodesLeft < 0 {
		return nil, errExcessiveAliasing
	}
	switch value.Kind {
	case yaml.AliasNode:
		if value.Alias == nil {
			return nil, fmt.Errorf("yaml: line %d: unknown anchor %q referenced", value.Line, value.Value)
		}
		if c.inProgress[value.Alias] {
			return nil, fmt.Errorf("yaml: line %d: anchor %q value contains itself", value.Line, value.Value)
		}
		c.inProgress[value.Alias] = true
		defer delete(c.inProgress, value.Alias)
		return c.mergedEntries(value.Alias)
	case yaml.MappingNode:
		return c.entries(value)
	case yaml.SequenceNode:
		var all []keyValue
		for _, item := range value.Content {
			if item.Kind == yaml.SequenceNode {
				return nil, fmt.Errorf("yaml: line %d: map merge requires map or sequence of maps as the value", item.Line)
			}
			entries, err := c.mergedEntries(item)
			if err != nil {
				return nil, err
			}
			all = append(all, entries...)
		}
		return all, nil
	default:
		return nil, fmt.Errorf("yaml: line %d: map merge requires map or sequence of maps as the value", value.Line)
	}
}

func isMergeKey(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Value == "<<" && n.ShortTag() == "!!merge"
}

// keyString turns a mapping key into a JSON object key.
func keyString(n *yaml.Node) (string, error) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("yaml: line %d: a mapping key must be a scalar, not a %s", n.Line, kindName(n.Kind))
	}
	return n.Value, nil
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "sequence"
	default:
		return "node"
	}
}

// scalar writes a YAML scalar as the JSON value YAML means by it. Strings,
// timestamps and binary data are written as their text.
func (c *yamlConverter) scalar(n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!null":
		c.out.WriteString("null")
		return nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return err
		}
		c.out.WriteString(strconv.FormatBool(b))
		return nil
	case "!!int":
		var v any
		if err := n.Decode(&v); err != nil {
			return err
		}
		switch i := v.(type) {
		case int:
			c.out.WriteString(strconv.Itoa(i))
		case int64:
			c.out.WriteString(strconv.FormatInt(i, 10))
		case uint64:
			c.out.WriteString(strconv.FormatUint(i, 10))
		case float64:
			return c.float(n, i)
		default:
			writeJSONString(&c.out, n.Value)
		}
		return nil
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return err
		}
		return c.float(n, f)
	default:
		writeJSONString(&c.out, n.Value)
		return nil
	}
}

func (c *yamlConverter) float(n *yaml.Node, f float64) error {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return fmt.Errorf("yaml: line %d: %s cannot be represented in JSON", n.Line, strings.TrimSpace(n.Value))
	}
	c.out.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	return nil
}

// writeJSONString writes s as a JSON string literal.
func writeJSONString(out *bytes.Buffer, s string) {
	encoded, _ := json.Marshal(s) // marshalling a string cannot fail
	out.Write(encoded)
}
