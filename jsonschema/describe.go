package jsonschema

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/rlm-project/rlm/internal/clip"
)

const (
	// describeBytes bounds Describe's text: a prompt has room for a
	// schema's outline, not for a schema of 5000 properties in full.
	describeBytes = 8000
	// describeTextBytes bounds one description or pattern within it.
	describeTextBytes = 200
	// describeEnum bounds the values of one enum it lists.
	describeEnum = 20
)

// Describe writes the schema as a compact outline for a model's prompt,
// in TypeScript's notation: objects as { name: type, … } with each
// property's description and constraints in a comment, enums as unions of
// literals, optional properties (without strict mode) as name?. A
// definition that is recursive or used more than once is written once
// under its name (type step = { … }) and named where it is used; the
// rest are written in place. The text is cut, at a line, past 8000 bytes.
func (s *Schema) Describe() string {
	d := &describer{names: map[*node]string{}, queued: map[*node]bool{}}
	d.plan(s.root)
	if name, ok := d.names[s.root]; ok {
		d.queued[s.root] = true
		d.definition(s.root, name)
	} else {
		d.comment(s.root, 0)
		d.expr(s.root, 0, true)
		d.b.WriteString("\n")
	}
	for i := 0; i < len(d.queue) && d.b.Len() <= describeBytes; i++ {
		d.b.WriteString("\n")
		d.definition(d.queue[i], d.names[d.queue[i]])
	}
	out := d.b.String()
	if len(out) > describeBytes {
		out = out[:strings.LastIndexByte(out[:describeBytes], '\n')+1] +
			fmt.Sprintf("… (cut at %d bytes: the schema is larger than this outline)\n", describeBytes)
	}
	return out
}

type describer struct {
	b      strings.Builder
	names  map[*node]string // definitions written once, under a name
	queue  []*node          // named definitions still to write
	queued map[*node]bool
}

// plan names the definitions to write on their own: those that are
// recursive (a $ref reaches them from themselves) or referred to from
// more than one place.
func (d *describer) plan(root *node) {
	refs := map[*node]int{}
	var order []*node
	seen := map[*node]bool{}
	var walk func(n *node)
	walk = func(n *node) {
		if seen[n] {
			return
		}
		seen[n] = true
		order = append(order, n)
		if n.target != nil {
			refs[n.target]++
		}
		for _, m := range children(n) {
			walk(m)
		}
	}
	walk(root)
	cyclic := inCycles(order)
	used := map[string]bool{}
	for _, n := range order {
		if n.target == nil {
			continue
		}
		t := n.target
		if _, done := d.names[t]; done || (refs[t] < 2 && !cyclic[t]) {
			continue
		}
		name := definitionName(t.where)
		for i := 2; used[name]; i++ {
			name = fmt.Sprintf("%s%d", definitionName(t.where), i)
		}
		used[name] = true
		d.names[t] = name
	}
}

// definitionName makes an identifier of the last word of a schema's
// place: "$defs.step" is step, the root is Root.
func definitionName(where string) string {
	if where == "" {
		return "Root"
	}
	last := where[strings.LastIndexByte(where, '.')+1:]
	var b strings.Builder
	for _, r := range last {
		if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	name := b.String()
	if name == "" || unicode.IsDigit(rune(name[0])) {
		name = "T" + name
	}
	return name
}

// inCycles reports the nodes that lie on a cycle of the schema graph
// (Tarjan's strongly connected components).
func inCycles(nodes []*node) map[*node]bool {
	index, low := map[*node]int{}, map[*node]int{}
	onStack := map[*node]bool{}
	var stack []*node
	cyclic := map[*node]bool{}
	next := 0
	var connect func(n *node)
	connect = func(n *node) {
		index[n], low[n] = next, next
		next++
		stack = append(stack, n)
		onStack[n] = true
		for _, m := range children(n) {
			if _, ok := index[m]; !ok {
				connect(m)
				low[n] = min(low[n], low[m])
			} else if onStack[m] {
				low[n] = min(low[n], index[m])
			}
			if m == n {
				cyclic[n] = true
			}
		}
		if low[n] == index[n] {
			var scc []*node
			for {
				m := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[m] = false
				scc = append(scc, m)
				if m == n {
					break
				}
			}
			if len(scc) > 1 {
				for _, m := range scc {
					cyclic[m] = true
				}
			}
		}
	}
	for _, n := range nodes {
		if _, ok := index[n]; !ok {
			connect(n)
		}
	}
	return cyclic
}

// children lists every schema n holds or refers to.
func children(n *node) []*node {
	var ns []*node
	for _, k := range n.order {
		ns = append(ns, n.properties[k])
	}
	for _, pp := range n.patternProps {
		ns = append(ns, pp.schema)
	}
	for _, m := range []*node{n.additional, n.propertyNames, n.items, n.contains} {
		if m != nil {
			ns = append(ns, m)
		}
	}
	ns = append(ns, n.prefixItems...)
	return append(ns, inPlace(n)...)
}

func (d *describer) definition(n *node, name string) {
	d.comment(n, 0)
	d.b.WriteString("type " + name + " = ")
	d.expr(n, 0, true)
	d.b.WriteString("\n")
}

// comment writes n's description on a line of its own, unless it goes
// after the brace n opens.
func (d *describer) comment(n *node, indent int) {
	if text := describeText(n); text != "" && !d.braces(n) {
		d.b.WriteString(strings.Repeat("  ", indent) + "// " + text + "\n")
	}
}

// expr writes n as a type; self is true where n itself is being defined,
// so that its name is not written for it.
func (d *describer) expr(n *node, indent int, self bool) {
	if d.b.Len() > describeBytes {
		return
	}
	if name, ok := d.names[n]; ok && !self {
		d.b.WriteString(name)
		if !d.queued[n] {
			d.queued[n] = true
			d.queue = append(d.queue, n)
		}
		return
	}
	switch {
	case n.always != nil && *n.always:
		d.b.WriteString("any")
		return
	case n.always != nil:
		d.b.WriteString("never")
		return
	case n.hasConst:
		d.b.WriteString(literal(n.constant))
		return
	case n.enum != nil:
		for i, e := range n.enum {
			if i > 0 {
				d.b.WriteString(" | ")
			}
			if i == describeEnum {
				fmt.Fprintf(&d.b, "… (%d more)", len(n.enum)-i)
				break
			}
			d.b.WriteString(literal(e))
		}
		return
	}
	var parts []func()
	if countKinds(impliedKinds(n)) > 0 {
		parts = append(parts, func() { d.kinds(n, indent) })
	}
	if n.target != nil {
		parts = append(parts, func() { d.expr(n.target, indent, false) })
	}
	for _, alts := range []struct {
		nodes []*node
		join  string
	}{{n.anyOf, " | "}, {n.oneOf, " | "}, {n.allOf, " & "}} {
		if alts.nodes != nil {
			parts = append(parts, func() {
				for i, m := range alts.nodes {
					if i > 0 {
						d.b.WriteString(alts.join)
					}
					d.operand(m, indent, len(alts.nodes) > 1)
				}
			})
		}
	}
	if len(parts) == 0 {
		d.b.WriteString("any")
		return
	}
	for i, part := range parts {
		if i > 0 {
			d.b.WriteString(" & ")
		}
		if len(parts) > 1 {
			d.b.WriteString("(")
			part()
			d.b.WriteString(")")
		} else {
			part()
		}
	}
}

// countKinds counts the kinds of k as a type names them (number and
// integer together count once).
func countKinds(k kind) int {
	c := 0
	for _, kn := range kindNames {
		if k&kn.k != 0 && !(kn.k == kInteger && k&kNumber != 0) {
			c++
		}
	}
	return c
}

// kinds writes the union of the kinds n is about.
func (d *describer) kinds(n *node, indent int) {
	first := true
	types := impliedKinds(n)
	for _, kn := range kindNames {
		if types&kn.k == 0 || (kn.k == kInteger && types&kNumber != 0) {
			continue
		}
		if !first {
			d.b.WriteString(" | ")
		}
		first = false
		switch kn.k {
		case kObject:
			d.object(n, indent)
		case kArray:
			d.array(n, indent)
		default:
			d.b.WriteString(kn.name)
		}
	}
}

// operand writes n where a union or intersection of several would bind
// wrongly without parentheses (an array's element, one of several
// alternatives).
func (d *describer) operand(n *node, indent int, bracket bool) {
	if bracket && d.compound(n, 0) {
		d.b.WriteString("(")
		d.expr(n, indent, false)
		d.b.WriteString(")")
		return
	}
	d.expr(n, indent, false)
}

// compound reports whether expr writes n as a union or intersection.
func (d *describer) compound(n *node, depth int) bool {
	if _, named := d.names[n]; named || depth > 8 || n.always != nil || n.hasConst {
		return false
	}
	if n.enum != nil {
		return len(n.enum) > 1
	}
	kinds, parts := countKinds(impliedKinds(n)), 0
	if kinds > 0 {
		parts++
	}
	for _, alts := range [][]*node{n.anyOf, n.oneOf, n.allOf} {
		if alts != nil {
			parts++
		}
	}
	if n.target != nil {
		parts++
	}
	switch {
	case parts > 1 || kinds > 1:
		return true
	case n.target != nil:
		return d.compound(n.target, depth+1)
	}
	for _, alts := range [][]*node{n.anyOf, n.oneOf, n.allOf} {
		if len(alts) > 1 || (len(alts) == 1 && d.compound(alts[0], depth+1)) {
			return true
		}
	}
	return false
}

// braces reports whether n is written as an object in braces, which
// carries n's description after its opening brace.
func (d *describer) braces(n *node) bool {
	for i := 0; n.types == 0 && n.target != nil && d.names[n.target] == "" && i < 8; i++ {
		if n.description != "" || n.title != "" {
			return false
		}
		n = n.target
	}
	return d.names[n] == "" && n.always == nil && !n.hasConst && n.enum == nil &&
		impliedKinds(n) == kObject && n.anyOf == nil && n.oneOf == nil && n.allOf == nil && openObject(n)
}

// openObject reports whether object writes n in braces rather than as
// the word object.
func openObject(n *node) bool {
	return len(n.order) > 0 || extraProperties(n)
}

// extraProperties reports whether n takes properties it does not name,
// of a schema worth writing as [key: string]: T.
func extraProperties(n *node) bool {
	return n.additional != nil && (n.additional.always == nil || *n.additional.always) && len(n.patternProps) == 0
}

func (d *describer) object(n *node, indent int) {
	extra := extraProperties(n)
	if !openObject(n) {
		d.b.WriteString("object")
		return
	}
	pad := strings.Repeat("  ", indent+1)
	d.b.WriteString("{")
	if text := describeText(n); text != "" {
		d.b.WriteString(" // " + text)
	}
	d.b.WriteString("\n")
	for _, k := range n.order {
		if d.b.Len() > describeBytes {
			return
		}
		p := n.properties[k]
		d.b.WriteString(pad + propertyName(k))
		if !slices.Contains(n.required, k) {
			d.b.WriteString("?")
		}
		d.b.WriteString(": ")
		d.expr(p, indent+1, false)
		d.b.WriteString(",")
		if text := describeText(p); text != "" && !d.braces(p) {
			d.b.WriteString(" // " + text)
		}
		d.b.WriteString("\n")
	}
	if extra {
		d.b.WriteString(pad + "[key: string]: ")
		d.expr(n.additional, indent+1, false)
		d.b.WriteString(",\n")
	}
	d.b.WriteString(strings.Repeat("  ", indent) + "}")
}

func (d *describer) array(n *node, indent int) {
	if len(n.prefixItems) > 0 {
		d.b.WriteString("[")
		for i, m := range n.prefixItems {
			if i > 0 {
				d.b.WriteString(", ")
			}
			d.expr(m, indent, false)
		}
		if n.items != nil && (n.items.always == nil || *n.items.always) {
			d.b.WriteString(", ...")
			d.expr(n.items, indent, false)
			d.b.WriteString("[]")
		}
		d.b.WriteString("]")
		return
	}
	if n.items == nil {
		d.b.WriteString("any[]")
		return
	}
	d.operand(n.items, indent, true)
	d.b.WriteString("[]")
}

// describeText is what a comment says of n: its constraints, then its
// description (or its title).
func describeText(n *node) string {
	for n.types == 0 && n.target != nil && n.description == "" && n.title == "" && n.target != n {
		n = n.target
	}
	var notes []string
	if n.format != "" {
		notes = append(notes, "format "+formatPhrase(n.format))
	}
	if n.pattern != nil {
		notes = append(notes, "matching "+clip.Ellipsis(n.pattern.source, describeTextBytes))
	}
	if n.minLength >= 0 || n.maxLength >= 0 {
		notes = append(notes, countPhrase(n.minLength, n.maxLength, "character", "characters"))
	}
	if r := rangePhrase(n); r != "" {
		notes = append(notes, r[1:])
	}
	if n.multipleOf != nil {
		notes = append(notes, "a multiple of "+n.multipleOf.text)
	}
	if n.minItems >= 0 || n.maxItems >= 0 {
		notes = append(notes, countPhrase(n.minItems, n.maxItems, "item", "items"))
	}
	if n.uniqueItems {
		notes = append(notes, "unique items")
	}
	if n.oneOf != nil {
		notes = append(notes, "exactly one of the alternatives")
	}
	text := n.description
	if text == "" {
		text = n.title
	}
	text = strings.Join(strings.Fields(clip.Ellipsis(text, describeTextBytes)), " ")
	if len(notes) == 0 {
		return text
	}
	if text == "" {
		return strings.Join(notes, "; ")
	}
	return "(" + strings.Join(notes, "; ") + ") " + text
}

// propertyName writes a property's name as TypeScript would: bare when it
// is an identifier, quoted otherwise.
func propertyName(k string) string {
	for i, r := range k {
		if !(r == '_' || r == '$' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return literal(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

// literal is a JSON value as a literal type.
func literal(v any) string { return clip.Ellipsis(marshal(v), describeTextBytes) }
