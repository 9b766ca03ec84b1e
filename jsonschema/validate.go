package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rlm-project/rlm/internal/clip"
)

const (
	// maxViolations bounds the violations one ValidationError lists: a
	// model fixes the first few before it needs the rest.
	maxViolations = 20
	// maxChecks bounds the schema applications of one Validate, so that a
	// schema of nested alternatives cannot make it take exponential time.
	maxChecks = 1_000_000
	// showBytes bounds a value quoted in a violation.
	showBytes = 80
	// Numbers longer than maxNumberChars, or with an exponent beyond
	// ±maxExponent, are not compared exactly: they would cost memory out
	// of proportion with their text.
	maxNumberChars = 1000
	maxExponent    = 1000
)

// ErrNotJSON is what Validate, JSONObject and ExtractJSON return (wrapped,
// with the reason) for text that is not one JSON value.
var ErrNotJSON = errors.New("not JSON")

// A ValidationError lists the ways a value does not match a schema.
type ValidationError struct {
	Violations []Violation // in the order found, at most a bound of them
	Omitted    int         // violations found past the bound
}

// A Violation is one way a value does not match its schema.
type Violation struct {
	// Path is the JSON pointer (RFC 6901) of the offending part of the
	// value: "" is the value itself, "/address/zip" a property's.
	Path string
	// Reason says what the schema wants and what the value has, for a
	// model to act on: `want a string matching ^[0-9]{5}$, got 12345 (a number)`.
	Reason string
}

func (v Violation) String() string {
	if v.Path == "" {
		return "(root): " + v.Reason
	}
	return v.Path + ": " + v.Reason
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("value does not match the schema: ")
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	if e.Omitted > 0 {
		fmt.Fprintf(&b, " (and %d more)", e.Omitted)
	}
	return b.String()
}

// Validate checks the JSON value against the schema: nil when it matches,
// a *ValidationError listing every violation (up to a bound) when it does
// not, and an error wrapping ErrNotJSON when value is not one JSON value.
func (s *Schema) Validate(value []byte) error {
	x, err := decodeValue(value)
	if err != nil {
		return err
	}
	v := &validator{limit: maxViolations, budget: &budget{left: maxChecks}}
	v.check(s.root, x, nil)
	if v.budget.exhausted {
		v.record(Violation{Reason: fmt.Sprintf("the value could not be checked in full: it took more than %d checks against this schema", maxChecks)})
	}
	if v.found == 0 {
		return nil
	}
	return &ValidationError{Violations: v.out, Omitted: v.found - len(v.out)}
}

// decodeValue decodes one JSON value, numbers as json.Number, with
// nothing after it but space.
func decodeValue(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		if err == io.EOF {
			return nil, fmt.Errorf("%w: empty", ErrNotJSON)
		}
		return nil, fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: more follows the first JSON value", ErrNotJSON)
	}
	return x, nil
}

type budget struct {
	left      int
	exhausted bool
}

type validator struct {
	out       []Violation
	limit     int  // violations kept in out
	found     int  // violations found, kept or not
	firstOnly bool // stop at the first violation: only whether it passes matters
	budget    *budget
}

// fail records a violation at a place in the value; its reason is worked
// out only if it is kept.
func (v *validator) fail(at *loc, reason func() string) {
	v.found++
	if len(v.out) < v.limit {
		v.out = append(v.out, Violation{Path: at.pointer(), Reason: reason()})
	}
}

func (v *validator) record(w Violation) {
	v.found++
	if len(v.out) < v.limit {
		v.out = append(v.out, w)
	}
}

// loc is a place in the value: a chain up to the root (nil), so that its
// JSON pointer is written only for a violation kept.
type loc struct {
	up    *loc
	name  string
	index int // -1 for a property
}

func (l *loc) key(k string) *loc { return &loc{up: l, name: k, index: -1} }
func (l *loc) item(i int) *loc   { return &loc{up: l, index: i} }

func (l *loc) pointer() string {
	var toks []string
	for ; l != nil; l = l.up {
		if l.index < 0 {
			toks = append(toks, escapePointer(l.name))
		} else {
			toks = append(toks, strconv.Itoa(l.index))
		}
	}
	slices.Reverse(toks)
	if len(toks) == 0 {
		return ""
	}
	return "/" + strings.Join(toks, "/")
}

func (v *validator) stopped() bool {
	return (v.firstOnly && v.found > 0) || v.budget.exhausted
}

// passes reports whether x matches n, looking no further than the first
// violation.
func (v *validator) passes(n *node, x any, at *loc) bool {
	t := validator{firstOnly: true, budget: v.budget}
	t.check(n, x, at)
	return t.found == 0
}

func (v *validator) check(n *node, x any, at *loc) {
	if v.stopped() {
		return
	}
	if v.budget.left--; v.budget.left < 0 {
		v.budget.exhausted = true
		return
	}
	if n.always != nil {
		if !*n.always {
			v.fail(at, func() string { return "no value is allowed here, got " + describeJSON(x) })
		}
		return
	}
	if n.types != 0 && !admits(n.types, x) {
		v.fail(at, func() string { return "want " + expect(n) + ", got " + describeJSON(x) })
		return
	}
	if n.enum != nil && !slices.ContainsFunc(n.enum, func(e any) bool { return equal(e, x) }) {
		v.fail(at, func() string { return "want " + enumPhrase(n.enum) + ", got " + describeJSON(x) })
		return
	}
	if n.hasConst && !equal(n.constant, x) {
		v.fail(at, func() string { return "want " + show(n.constant) + ", got " + describeJSON(x) })
		return
	}
	switch x := x.(type) {
	case string:
		v.checkString(n, x, at)
	case json.Number:
		v.checkNumber(n, x, at)
	case map[string]any:
		v.checkObject(n, x, at)
	case []any:
		v.checkArray(n, x, at)
	}
	if n.target != nil {
		v.check(n.target, x, at)
	}
	for _, m := range n.allOf {
		v.check(m, x, at)
	}
	if n.anyOf != nil && !slices.ContainsFunc(n.anyOf, func(m *node) bool { return v.passes(m, x, at) }) {
		v.noneMatch(n.anyOf, "anyOf", x, at)
	}
	if n.oneOf != nil {
		v.checkOneOf(n.oneOf, x, at)
	}
	if n.not != nil && v.passes(n.not, x, at) {
		v.fail(at, func() string { return "want a value that is not " + expect(n.not) + ", got " + describeJSON(x) })
	}
	if n.ifs != nil {
		if v.passes(n.ifs, x, at) {
			if n.then != nil {
				v.check(n.then, x, at)
			}
		} else if n.els != nil {
			v.check(n.els, x, at)
		}
	}
}

func (v *validator) checkString(n *node, s string, at *loc) {
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := utf8.RuneCountInString(s)
		if (n.minLength >= 0 && l < n.minLength) || (n.maxLength >= 0 && l > n.maxLength) {
			v.fail(at, func() string {
				return fmt.Sprintf("want a string%s, got %s (%d characters)", lengthPhrase(n), show(s), l)
			})
		}
	}
	if n.pattern != nil && !n.pattern.re.MatchString(s) {
		v.fail(at, func() string { return "want a string matching " + n.pattern.source + ", got " + show(s) })
	}
	if n.format != "" && !formats[n.format].valid(s) {
		v.fail(at, func() string { return "want a string in format " + formatPhrase(n.format) + ", got " + show(s) })
	}
}

func (v *validator) checkNumber(n *node, x json.Number, at *loc) {
	if n.minimum == nil && n.maximum == nil && n.exclusiveMin == nil && n.exclusiveMax == nil && n.multipleOf == nil {
		return
	}
	r, ok := ratOf(x)
	if !ok {
		v.fail(at, func() string {
			return "want " + expect(n) + ", got " + clipped(string(x)) + " (a number too long, or too large or small, to compare)"
		})
		return
	}
	noun := "a number"
	if n.types == kInteger {
		noun = "an integer"
	}
	if (n.minimum != nil && r.Cmp(n.minimum.rat) < 0) || (n.exclusiveMin != nil && r.Cmp(n.exclusiveMin.rat) <= 0) ||
		(n.maximum != nil && r.Cmp(n.maximum.rat) > 0) || (n.exclusiveMax != nil && r.Cmp(n.exclusiveMax.rat) >= 0) {
		v.fail(at, func() string { return "want " + noun + rangePhrase(n) + ", got " + clipped(string(x)) })
	}
	if n.multipleOf != nil && !new(big.Rat).Quo(r, n.multipleOf.rat).IsInt() {
		v.fail(at, func() string { return "want a multiple of " + n.multipleOf.text + ", got " + clipped(string(x)) })
	}
}

func (v *validator) checkObject(n *node, m map[string]any, at *loc) {
	for _, r := range n.required {
		if _, ok := m[r]; !ok {
			v.fail(at, func() string { return fmt.Sprintf("missing required property %q", r) })
		}
	}
	for _, k := range n.order {
		if x, ok := m[k]; ok {
			v.check(n.properties[k], x, at.key(k))
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if v.stopped() {
			return
		}
		_, named := n.properties[k]
		matched := named
		for _, pp := range n.patternProps {
			if pp.re.re.MatchString(k) {
				matched = true
				v.check(pp.schema, m[k], at.key(k))
			}
		}
		if matched || n.additional == nil {
			continue
		}
		if a := n.additional; a.always != nil && !*a.always {
			v.fail(at, func() string { return fmt.Sprintf("unexpected property %q (%s)", k, allowedPhrase(n)) })
		} else {
			v.check(a, m[k], at.key(k))
		}
	}
	if pn := n.propertyNames; pn != nil {
		for _, k := range keys {
			if !v.passes(pn, k, at) {
				v.fail(at, func() string { return fmt.Sprintf("property name %q: want %s", k, expect(pn)) })
			}
		}
	}
	if (n.minProps >= 0 && len(m) < n.minProps) || (n.maxProps >= 0 && len(m) > n.maxProps) {
		v.fail(at, func() string {
			return fmt.Sprintf("want an object with %s, got %s", countPhrase(n.minProps, n.maxProps, "property", "properties"), plural(len(m), "property", "properties"))
		})
	}
	for _, d := range n.dependentRequired {
		if _, ok := m[d.name]; ok {
			for _, r := range d.required {
				if _, ok := m[r]; !ok {
					v.fail(at, func() string { return fmt.Sprintf("property %q requires property %q, which is missing", d.name, r) })
				}
			}
		}
	}
	for _, d := range n.dependentSchemas {
		if _, ok := m[d.name]; ok {
			v.check(d.schema, m, at)
		}
	}
}

func (v *validator) checkArray(n *node, a []any, at *loc) {
	if (n.minItems >= 0 && len(a) < n.minItems) || (n.maxItems >= 0 && len(a) > n.maxItems) {
		v.fail(at, func() string {
			return fmt.Sprintf("want an array of %s, got %s", countPhrase(n.minItems, n.maxItems, "item", "items"), plural(len(a), "item", "items"))
		})
	}
	for i, x := range a {
		if v.stopped() {
			return
		}
		switch {
		case i < len(n.prefixItems):
			v.check(n.prefixItems[i], x, at.item(i))
		case n.items == nil:
		case n.items.always != nil && !*n.items.always:
			v.fail(at, func() string {
				return fmt.Sprintf("want an array of at most %s, got %d", plural(len(n.prefixItems), "item", "items"), len(a))
			})
			return
		default:
			v.check(n.items, x, at.item(i))
		}
	}
	if n.uniqueItems {
	unique:
		for i := range a {
			for j := i + 1; j < len(a); j++ {
				if v.budget.left--; v.budget.left < 0 {
					v.budget.exhausted = true
					return
				}
				if equal(a[i], a[j]) {
					v.fail(at, func() string {
						return fmt.Sprintf("want unique items, got equal items at %d and %d: %s", i, j, show(a[i]))
					})
					break unique
				}
			}
		}
	}
	if n.contains != nil {
		matches := 0
		for i, x := range a {
			if v.passes(n.contains, x, at.item(i)) {
				matches++
			}
		}
		least := max(n.minContains, 0)
		if n.minContains < 0 {
			least = 1
		}
		if matches < least || (n.maxContains >= 0 && matches > n.maxContains) {
			most := ""
			if n.maxContains >= 0 {
				most = fmt.Sprintf(" and at most %d", n.maxContains)
			}
			v.fail(at, func() string {
				return fmt.Sprintf("want at least %d%s items that are %s, got %d", least, most, expect(n.contains), matches)
			})
		}
	}
}

func (v *validator) checkOneOf(alts []*node, x any, at *loc) {
	var passing []int
	for i, m := range alts {
		if v.passes(m, x, at) {
			if passing = append(passing, i); len(passing) == 2 {
				break
			}
		}
	}
	switch len(passing) {
	case 0:
		v.noneMatch(alts, "oneOf", x, at)
	case 2:
		v.fail(at, func() string {
			return fmt.Sprintf("want a value that matches exactly one alternative of oneOf, got one that matches #%d and #%d: %s",
				passing[0]+1, passing[1]+1, show(x))
		})
	}
}

// noneMatch reports a value that matches none of the alternatives alts.
// It reports the reasons of the alternative the value meant, when its
// kind shows which: a number given for a string-or-null field is told
// what it should have been; an object missing a property of the one
// object alternative is told which.
func (v *validator) noneMatch(alts []*node, keyword string, x any, at *loc) {
	if v.firstOnly { // only whether it passes matters
		v.found++
		return
	}
	var fits []int
	for i, m := range alts {
		if admits(m.kinds, x) {
			fits = append(fits, i)
		}
	}
	switch len(fits) {
	case 0:
		v.fail(at, func() string { return "want " + alternatives(alts) + ", got " + describeJSON(x) })
	case 1:
		v.check(alts[fits[0]], x, at)
	default:
		// The closest: the alternative with the fewest violations.
		var best *validator
		bestAt := 0
		for _, i := range fits {
			t := &validator{limit: v.limit, budget: v.budget}
			t.check(alts[i], x, at)
			if best == nil || t.found < best.found {
				best, bestAt = t, i
			}
		}
		note := fmt.Sprintf(" (matching none of the %d alternatives of %s; this is for #%d, the closest)", len(alts), keyword, bestAt+1)
		for _, w := range best.out {
			w.Reason += note
			v.record(w)
		}
		v.found += best.found - len(best.out)
	}
}

// admits reports whether a value of kind k may be x.
func admits(k kind, x any) bool {
	xk := kindOfValue(x)
	if xk == kNumber|kInteger {
		return k&(kNumber|kInteger) != 0
	}
	if xk == kNumber {
		return k&kNumber != 0
	}
	return k&xk != 0
}

// kindOfValue is x's kind; an integer number is both kNumber and kInteger.
func kindOfValue(x any) kind {
	switch x := x.(type) {
	case nil:
		return kNull
	case bool:
		return kBoolean
	case string:
		return kString
	case json.Number:
		if isInteger(x) {
			return kNumber | kInteger
		}
		return kNumber
	case map[string]any:
		return kObject
	case []any:
		return kArray
	}
	return 0
}

// equal is JSON equality: numbers by value (1 and 1.0 are equal).
func equal(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return false
		}
		if a == bn {
			return true
		}
		ra, oka := ratOf(a)
		rb, okb := ratOf(bn)
		if oka && okb {
			return ra.Cmp(rb) == 0
		}
		return a == bn
	case []any:
		ba, ok := b.([]any)
		if !ok || len(a) != len(ba) {
			return false
		}
		for i := range a {
			if !equal(a[i], ba[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, x := range a {
			y, ok := bm[k]
			if !ok || !equal(x, y) {
				return false
			}
		}
		return true
	}
	return false
}

// number is a numeric keyword: its exact value and its text.
type number struct {
	rat  *big.Rat
	text string
}

// ratOf is the exact value of a JSON number, unless its text is too long
// or its exponent too large to hold it at a cost in proportion to it.
func ratOf(n json.Number) (*big.Rat, bool) {
	s := string(n)
	if len(s) > maxNumberChars {
		return nil, false
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > maxExponent || e < -maxExponent {
			return nil, false
		}
	}
	return new(big.Rat).SetString(s)
}

// isInteger reports whether a JSON number has no fractional part, without
// the cost of its exact value where its text shows it.
func isInteger(n json.Number) bool {
	s := string(n)
	switch {
	case !strings.ContainsAny(s, ".eE"):
		return true
	case !strings.ContainsAny(s, "eE"):
		return strings.Trim(s[strings.IndexByte(s, '.')+1:], "0") == ""
	}
	r, ok := ratOf(n)
	return ok && r.IsInt()
}

// show is x as compact JSON, clipped for a message.
func show(x any) string { return clipped(marshal(x)) }

// marshal is x as compact JSON, with <, > and & as they are.
func marshal(x any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return fmt.Sprint(x)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func clipped(s string) string { return clip.Ellipsis(s, showBytes) }

// describeJSON is x shown with its kind: `12345 (a number)`.
func describeJSON(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case bool:
		return show(x) + " (a boolean)"
	case string:
		return show(x) + " (a string)"
	case json.Number:
		return show(x) + " (a number)"
	case map[string]any:
		return show(x) + " (an object)"
	case []any:
		return show(x) + " (an array)"
	}
	return show(x)
}

// expect says what n wants, for "want …": "a string matching ^a$",
// "an integer >= 1", `one of "F", "C"`, "an object with properties a, b".
func expect(n *node) string { return expectDepth(n, 0) }

func expectDepth(n *node, depth int) string {
	switch {
	case depth > 4:
		return "a value of the schema"
	case n.always != nil && *n.always:
		return "any value"
	case n.always != nil:
		return "no value"
	case n.hasConst:
		return show(n.constant)
	case n.enum != nil:
		return enumPhrase(n.enum)
	}
	types := n.types
	if types == 0 {
		switch {
		case n.target != nil:
			return expectDepth(n.target, depth+1)
		case n.anyOf != nil:
			return alternativesDepth(n.anyOf, depth+1)
		case n.oneOf != nil:
			return "exactly one of: " + alternativesDepth(n.oneOf, depth+1)
		case len(n.allOf) > 0:
			return expectDepth(n.allOf[0], depth+1) + " (and all of its allOf)"
		}
		if types = impliedKinds(n); types == 0 {
			return "a value of the schema"
		}
	}
	var phrases []string
	for _, kn := range kindNames {
		if types&kn.k == 0 || (kn.k == kInteger && types&kNumber != 0) {
			continue
		}
		switch kn.k {
		case kObject:
			p := "an object"
			if len(n.order) > 0 {
				p += " with properties " + nameList(n.order)
			}
			phrases = append(phrases, p)
		case kArray:
			p := "an array"
			if n.minItems >= 0 || n.maxItems >= 0 {
				p += " of " + countPhrase(n.minItems, n.maxItems, "item", "items")
			}
			phrases = append(phrases, p)
		case kString:
			p := "a string" + lengthPhrase(n)
			if n.pattern != nil {
				p += " matching " + n.pattern.source
			}
			if n.format != "" {
				p += " in format " + formatPhrase(n.format)
			}
			phrases = append(phrases, p)
		case kNumber, kInteger:
			p := "a number"
			if kn.k == kInteger {
				p = "an integer"
			}
			p += rangePhrase(n)
			if n.multipleOf != nil {
				p += " (a multiple of " + n.multipleOf.text + ")"
			}
			phrases = append(phrases, p)
		case kBoolean:
			phrases = append(phrases, "a boolean")
		case kNull:
			phrases = append(phrases, "null")
		}
	}
	return orList(phrases)
}

// impliedKinds are the kinds a schema is about: its types, or, without
// them, the kinds its keywords constrain ({"minLength": 1} is about
// strings, though it takes a number too).
func impliedKinds(n *node) kind {
	if n.types != 0 {
		return n.types
	}
	var k kind
	if n.minLength >= 0 || n.maxLength >= 0 || n.pattern != nil || n.format != "" {
		k |= kString
	}
	if n.minimum != nil || n.maximum != nil || n.exclusiveMin != nil || n.exclusiveMax != nil || n.multipleOf != nil {
		k |= kNumber
	}
	if n.minItems >= 0 || n.maxItems >= 0 || n.items != nil || n.prefixItems != nil || n.contains != nil || n.uniqueItems {
		k |= kArray
	}
	if n.order != nil || n.required != nil || n.additional != nil || n.patternProps != nil || n.propertyNames != nil ||
		n.minProps >= 0 || n.maxProps >= 0 || n.dependentRequired != nil {
		k |= kObject
	}
	return k
}

func alternatives(alts []*node) string { return alternativesDepth(alts, 0) }

func alternativesDepth(alts []*node, depth int) string {
	const most = 5
	var phrases []string
	for i, m := range alts {
		if i == most {
			phrases = append(phrases, fmt.Sprintf("one of %d more alternatives", len(alts)-most))
			break
		}
		phrases = append(phrases, expectDepth(m, depth+1))
	}
	return orList(phrases)
}

func orList(phrases []string) string {
	switch len(phrases) {
	case 0:
		return "nothing"
	case 1:
		return phrases[0]
	}
	return strings.Join(phrases[:len(phrases)-1], ", ") + " or " + phrases[len(phrases)-1]
}

func enumPhrase(values []any) string {
	const most = 20
	if len(values) == 1 {
		return show(values[0])
	}
	parts := make([]string, 0, min(len(values), most))
	for i, e := range values {
		if i == most {
			break
		}
		parts = append(parts, show(e))
	}
	s := "one of " + strings.Join(parts, ", ")
	if len(values) > most {
		s += fmt.Sprintf(", … (%d more)", len(values)-most)
	}
	return s
}

func lengthPhrase(n *node) string {
	if n.minLength < 0 && n.maxLength < 0 {
		return ""
	}
	return " of " + countPhrase(n.minLength, n.maxLength, "character", "characters")
}

func rangePhrase(n *node) string {
	var parts []string
	if n.minimum != nil {
		parts = append(parts, ">= "+n.minimum.text)
	}
	if n.exclusiveMin != nil {
		parts = append(parts, "> "+n.exclusiveMin.text)
	}
	if n.maximum != nil {
		parts = append(parts, "<= "+n.maximum.text)
	}
	if n.exclusiveMax != nil {
		parts = append(parts, "< "+n.exclusiveMax.text)
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " and ")
}

// countPhrase says a bound on a count: "at least 2 items", "1 to 3 items".
func countPhrase(least, most int, one, many string) string {
	switch {
	case least >= 0 && most >= 0 && least == most:
		return "exactly " + plural(least, one, many)
	case least >= 0 && most >= 0:
		return fmt.Sprintf("%d to %s", least, plural(most, one, many))
	case least >= 0:
		return "at least " + plural(least, one, many)
	default:
		return "at most " + plural(most, one, many)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// nameList lists property names, a bounded number of them.
func nameList(names []string) string {
	const most = 10
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:most], ", ") + fmt.Sprintf(", … (%d more)", len(names)-most)
}

// allowedPhrase says which properties an object that refuses others takes.
func allowedPhrase(n *node) string {
	var s string
	if len(n.order) == 0 {
		s = "this object takes no properties"
	} else {
		s = "this object takes " + nameList(n.order)
	}
	for _, pp := range n.patternProps {
		s += ", or names matching " + pp.re.source
	}
	return s
}
