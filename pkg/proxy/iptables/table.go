package iptables

import (
	"sort"
	"strings"
)

// Table is one iptables table (filter or nat): its chains and their rules.
type Table struct {
	// Name is "filter" or "nat".
	Name string
	// builtin are the kernel's chains of the table, in iptables-save's
	// order; chains the chains kube-proxy declared; rules each chain's
	// rules in evaluation order.
	builtin []string
	chains  map[string]bool
	rules   map[string][]Rule
}

func newTable(name string, builtin ...string) *Table {
	return &Table{Name: name, builtin: builtin, chains: map[string]bool{}, rules: map[string][]Rule{}}
}

// declare adds chain to the table (once).
func (t *Table) declare(chain string) { t.chains[chain] = true }

// add appends a rule to its chain.
func (t *Table) add(r Rule) { t.rules[r.Chain] = append(t.rules[r.Chain], r) }

// Rules returns chain's rules in order.
func (t *Table) Rules(chain string) []Rule { return t.rules[chain] }

// HasChain reports whether the table has chain.
func (t *Table) HasChain(chain string) bool {
	if t.chains[chain] {
		return true
	}
	for _, b := range t.builtin {
		if b == chain {
			return true
		}
	}
	return false
}

// RuleCount is the number of rules in the table.
func (t *Table) RuleCount() int {
	n := 0
	for _, rs := range t.rules {
		n += len(rs)
	}
	return n
}

// Chains returns the table's chains in print order: the built-in chains,
// then KUBE-NODEPORTS and KUBE-SERVICES, then the others sorted.
func (t *Table) Chains() []string {
	order := append([]string(nil), t.builtin...)
	var rest []string
	for c := range t.chains {
		if c != ChainNodePorts && c != ChainServices {
			rest = append(rest, c)
		}
	}
	sort.Strings(rest)
	for _, c := range []string{ChainNodePorts, ChainServices} {
		if t.chains[c] {
			order = append(order, c)
		}
	}
	return append(order, rest...)
}

func (t *Table) isBuiltin(chain string) bool {
	for _, b := range t.builtin {
		if b == chain {
			return true
		}
	}
	return false
}

// writeSave writes the table as iptables-save prints it. With keep set,
// only the rules keep accepts are written, and only the chains that hold
// one.
func (t *Table) writeSave(b *strings.Builder, keep func(Rule) bool) {
	if keep != nil && !t.any(keep) {
		return // nothing of the table is kept: leave it out entirely
	}
	b.WriteString("*")
	b.WriteString(t.Name)
	b.WriteByte('\n')
	chains := t.Chains()
	shown := func(c string) bool {
		if keep == nil {
			return true
		}
		for _, r := range t.rules[c] {
			if keep(r) {
				return true
			}
		}
		return false
	}
	for _, c := range chains {
		if !shown(c) {
			continue
		}
		b.WriteByte(':')
		b.WriteString(c)
		if t.isBuiltin(c) {
			b.WriteString(" ACCEPT [0:0]\n")
		} else {
			b.WriteString(" - [0:0]\n")
		}
	}
	for _, c := range chains {
		for _, r := range t.rules[c] {
			if keep != nil && !keep(r) {
				continue
			}
			r.writeTo(b)
			b.WriteByte('\n')
		}
	}
	b.WriteString("COMMIT\n")
}

// any reports whether keep accepts some rule of the table.
func (t *Table) any(keep func(Rule) bool) bool {
	for _, rs := range t.rules {
		for _, r := range rs {
			if keep(r) {
				return true
			}
		}
	}
	return false
}
