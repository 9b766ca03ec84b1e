// Package jsonschema checks JSON values against the JSON Schemas that
// OpenAI-compatible clients send: the parameters of function tools and the
// schema of a json_schema response format (Structured Outputs). It
// compiles a schema (Compile), validates a value against it with errors a
// model can act on (Validate: every violation, up to a bound, each at its
// JSON pointer), describes it for a model's prompt (Describe), and reads
// the JSON out of a REPL's FINAL answer (ExtractJSON, JSONObject).
//
// # Strict mode
//
// Compile(schema, true) accepts what OpenAI's strict mode accepts, as its
// Structured Outputs guide lists it under "Supported schemas"
// (platform.openai.com/docs/guides/structured-outputs, since moved to
// developers.openai.com/api/docs/guides/structured-outputs), in the version
// with the limits raised in 2025 that was current when this was written
// (November 2026; read from a copy of the page dated 2025-11-30 and checked
// against later quotations of the live page):
//
//   - types string, number, integer, boolean, object, array and null, alone
//     or as a list (["string", "null"] is how an optional field is written),
//     enum, const and anyOf, except at the root;
//   - the root is an object (type "object", or a $ref to one), not anyOf;
//   - every object sets additionalProperties: false and lists every one of
//     its properties in required;
//   - every array has items;
//   - strings: pattern, format (date-time, time, date, duration, email,
//     hostname, ipv4, ipv6, uuid), and minLength and maxLength (the guide
//     lists these as unsupported only for fine-tuned models);
//   - numbers: minimum, maximum, exclusiveMinimum, exclusiveMaximum,
//     multipleOf; arrays: minItems, maxItems;
//   - $ref to "#" (the root: recursive schemas), to $defs or definitions,
//     or to any other place in the document by JSON pointer;
//   - at most 5000 object properties in all, objects nested at most 10
//     levels deep (the root object is level 1; arrays add none), at most
//     1000 enum values in all, at most 120,000 characters of property
//     names, definition names and string enum and const values, and at
//     most 15,000 characters of values in one string enum of more than 250.
//
// Strict mode refuses the keywords the guide says are unsupported (allOf,
// not, if, then, else, dependentRequired, dependentSchemas) and those of
// the same families it does not list (oneOf, patternProperties,
// propertyNames, minProperties, maxProperties, prefixItems, contains,
// uniqueItems and the like), each with an error naming its place in the
// schema. Annotations (title, description, default, examples, $comment)
// and keywords JSON Schema does not define are ignored.
//
// # Without strict mode
//
// Compile(schema, false), for function tools that are not strict, takes
// the keywords of draft 2020-12 that validate a value (types, enum, const;
// string, number, object and array constraints; allOf, anyOf, oneOf, not,
// if/then/else, dependentRequired, dependentSchemas; $ref, $defs, $anchor)
// and the older spellings clients still send (definitions, items as a
// list with additionalItems, dependencies, a boolean exclusiveMinimum).
// additionalProperties defaults to allowing any property, and required to
// none. It refuses only what it cannot check: unevaluatedProperties,
// unevaluatedItems, $dynamicRef and $recursiveRef, a $ref to another
// document, and a pattern Go's RE2 cannot compile (lookaround,
// backreferences). A format it does not know is an annotation, as draft
// 2020-12 says. The $id of a subschema does not change how a $ref below it
// resolves: references are resolved against the document.
//
// In both modes, a schema whose type lists null takes null even when its
// enum does not list it: that is how OpenAI's guide writes an optional
// enum field ({"type": ["string", "null"], "enum": ["F", "C"]}).
//
// Patterns are ECMA-262 regular expressions run by Go's regexp (RE2),
// with \uXXXX escapes translated; a $ref loop that never descends into the
// value (a schema that is its own allOf) is refused in both modes.
package jsonschema

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// OpenAI's documented limits on a strict schema.
const (
	maxProperties     = 5000    // object properties, in all
	maxObjectDepth    = 10      // levels of nested objects
	maxEnumValues     = 1000    // enum values, in all
	maxSchemaChars    = 120_000 // property and definition names, string enum and const values
	largeEnumValues   = 250     // a string enum with more values than this…
	maxLargeEnumChars = 15_000  // …may hold this many characters of values
	maxSchemaProblems = 20      // problems one SchemaError lists
)

// Schema is a compiled JSON Schema. It is immutable, and safe for
// concurrent use.
type Schema struct {
	root *node
}

// A SchemaError is a schema Compile refused: every problem found, up to a
// bound, each at its place in the schema.
type SchemaError struct {
	Problems []Problem
}

// A Problem is one reason a schema was refused.
type Problem struct {
	// Where is the place in the schema, its keywords joined by dots, with
	// list indexes in brackets: "properties.address.anyOf[1]". It is ""
	// for the root, and for the document itself when that is not JSON.
	Where  string
	Reason string
}

func (p Problem) String() string {
	if p.Where == "" {
		return "(root): " + p.Reason
	}
	return p.Where + ": " + p.Reason
}

func (e *SchemaError) Error() string {
	var b strings.Builder
	b.WriteString("invalid schema: ")
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// kind is a set of JSON value kinds: a schema's types.
type kind uint8

const (
	kNull kind = 1 << iota
	kBoolean
	kObject
	kArray
	kNumber  // every number
	kInteger // numbers with no fractional part
	kString

	kAny = kNull | kBoolean | kObject | kArray | kNumber | kInteger | kString
)

var kindNames = []struct {
	k    kind
	name string
}{
	{kObject, "object"}, {kArray, "array"}, {kString, "string"}, {kNumber, "number"},
	{kInteger, "integer"}, {kBoolean, "boolean"}, {kNull, "null"},
}

func kindNamed(name string) kind {
	for _, kn := range kindNames {
		if kn.name == name {
			return kn.k
		}
	}
	return 0
}

// node is one compiled schema.
type node struct {
	where  string // its place, as in Problem.Where
	always *bool  // a boolean schema: true takes anything, false nothing

	types    kind // 0: any
	enum     []any
	hasConst bool
	constant any

	minLength, maxLength int // -1: no bound
	pattern              *pattern
	format               string // one this package checks, or ""

	minimum, maximum           *number
	exclusiveMin, exclusiveMax *number
	multipleOf                 *number

	properties         map[string]*node
	order              []string // property names as the schema lists them
	required           []string
	additional         *node // nil: any other property is allowed
	patternProps       []patternProperty
	propertyNames      *node
	minProps, maxProps int // -1: no bound
	dependentRequired  []dependency
	dependentSchemas   []dependentSchema

	prefixItems              []*node
	items                    *node
	minItems, maxItems       int // -1: no bound
	uniqueItems              bool
	contains                 *node
	minContains, maxContains int // -1: no bound (minContains defaults to 1)

	allOf, anyOf, oneOf []*node
	not, ifs, then, els *node

	ref    string
	target *node

	title, description string
	kinds              kind // the kinds of value it could take, worked out once compiled
	kindsDone          bool
}

// bound is the field of an integer keyword.
func (n *node) bound(keyword string) *int {
	switch keyword {
	case "minLength":
		return &n.minLength
	case "maxLength":
		return &n.maxLength
	case "minItems":
		return &n.minItems
	case "maxItems":
		return &n.maxItems
	case "minProperties":
		return &n.minProps
	case "maxProperties":
		return &n.maxProps
	case "minContains":
		return &n.minContains
	case "maxContains":
		return &n.maxContains
	}
	panic("jsonschema: bound of " + keyword)
}

// pattern is a compiled pattern and its text as the schema wrote it.
type pattern struct {
	re     *regexp.Regexp
	source string
}

type patternProperty struct {
	re     *pattern
	schema *node
}

type dependency struct {
	name     string
	required []string
}

type dependentSchema struct {
	name   string
	schema *node
}

// Compile parses a JSON Schema. With strict, it accepts only what OpenAI's
// strict mode accepts (see the package doc). The error is a *SchemaError.
func Compile(schema []byte, strict bool) (*Schema, error) {
	doc, err := decodeOrdered(schema)
	if err != nil {
		return nil, &SchemaError{Problems: []Problem{{Reason: "not JSON: " + err.Error()}}}
	}
	c := &compiler{strict: strict, doc: doc, nodes: map[string]*node{}, anchors: map[string]*node{}}
	if o, ok := doc.(*object); ok {
		if id, ok := o.vals["$id"].(string); ok {
			c.rootID = strings.TrimSuffix(id, "#")
		}
	}
	root := c.compile(doc, "", "", 0)
	c.resolve()
	if strict {
		c.checkRoot(root)
		c.checkTotals()
	}
	if len(c.problems) == 0 {
		c.checkLoops()
	}
	if len(c.problems) > 0 {
		if c.dropped > 0 {
			c.problems[len(c.problems)-1].Reason += fmt.Sprintf(" (and %d more problems)", c.dropped)
		}
		return nil, &SchemaError{Problems: c.problems}
	}
	for _, n := range c.all {
		kindsOf(n, map[*node]bool{})
	}
	return &Schema{root: root}, nil
}

type compiler struct {
	strict   bool
	doc      any
	rootID   string
	nodes    map[string]*node // by JSON pointer
	anchors  map[string]*node
	all      []*node
	refs     []*node // nodes with a $ref yet to resolve
	problems []Problem
	dropped  int

	properties, enumValues, chars int
}

func (c *compiler) problem(where, format string, args ...any) {
	if len(c.problems) >= maxSchemaProblems {
		c.dropped++
		return
	}
	c.problems = append(c.problems, Problem{Where: where, Reason: fmt.Sprintf(format, args...)})
}

// strictUnsupported are keywords strict mode refuses, with the reason: the
// guide's unsupported list, and the keywords of the same families it does
// not list as supported.
var strictUnsupported = map[string]string{
	"allOf": "composition", "not": "composition", "oneOf": "composition; use anyOf",
	"if": "composition", "then": "composition", "else": "composition",
	"dependentRequired": "composition", "dependentSchemas": "composition", "dependencies": "composition",
	"patternProperties": "an object keyword", "propertyNames": "an object keyword",
	"minProperties": "an object keyword", "maxProperties": "an object keyword",
	"prefixItems": "an array keyword", "additionalItems": "an array keyword", "contains": "an array keyword",
	"minContains": "an array keyword", "maxContains": "an array keyword", "uniqueItems": "an array keyword",
	"$anchor": "a reference keyword",
}

// unsupported are keywords no mode can check here.
var unsupported = map[string]string{
	"unevaluatedProperties": "it needs the annotations of every applicator, which this validator does not collect",
	"unevaluatedItems":      "it needs the annotations of every applicator, which this validator does not collect",
	"$dynamicRef":           "dynamic references are not supported; use $ref",
	"$recursiveRef":         "dynamic references are not supported; use $ref",
}

// compile compiles the schema v found at JSON pointer ptr. depth is the
// number of object schemas enclosing it, for strict mode's nesting limit.
func (c *compiler) compile(v any, ptr, where string, depth int) *node {
	if n, ok := c.nodes[ptr]; ok {
		return n
	}
	n := &node{where: where, minLength: -1, maxLength: -1, minProps: -1, maxProps: -1,
		minItems: -1, maxItems: -1, minContains: -1, maxContains: -1}
	c.nodes[ptr] = n
	c.all = append(c.all, n)
	if b, ok := v.(bool); ok {
		if c.strict && ptr != "" {
			c.problem(where, "strict mode does not take a boolean schema; write the schema out")
		}
		n.always = &b
		return n
	}
	o, ok := v.(*object)
	if !ok {
		c.problem(where, "a schema must be a JSON object or a boolean, got %s", describeJSON(plain(v)))
		return n
	}

	// The kinds first, for the checks below that depend on them.
	if t, ok := o.get("type"); ok {
		n.types = c.types(t, where)
	}
	isObject := n.types&kObject != 0
	if isObject {
		depth++
		if c.strict && depth > maxObjectDepth {
			c.problem(where, "strict mode allows objects nested at most %d levels deep", maxObjectDepth)
		}
	}
	at := func(k string) string { return join(where, k) }
	sub := func(k string, x any) *node { return c.compile(x, ptr+"/"+escapePointer(k), at(k), depth) }
	list := func(k string, x any) []*node {
		a, ok := x.([]any)
		if !ok || len(a) == 0 {
			c.problem(at(k), "must be a non-empty list of schemas")
			return nil
		}
		ns := make([]*node, len(a))
		for i, s := range a {
			ns[i] = c.compile(s, fmt.Sprintf("%s/%s/%d", ptr, escapePointer(k), i), fmt.Sprintf("%s[%d]", at(k), i), depth)
		}
		return ns
	}
	schemas := func(k string, x any, count bool) ([]string, map[string]*node) {
		m, ok := x.(*object)
		if !ok {
			c.problem(at(k), "must be an object of schemas")
			return nil, nil
		}
		ns := make(map[string]*node, len(m.keys))
		for _, name := range m.keys {
			if count {
				c.chars += len([]rune(name))
			}
			ns[name] = c.compile(m.vals[name], ptr+"/"+escapePointer(k)+"/"+escapePointer(name), at(k)+"."+name, depth)
		}
		return m.keys, ns
	}
	var exclusiveMinFlag, exclusiveMaxFlag bool // draft 4's boolean forms

	for _, k := range o.keys {
		x := o.vals[k]
		if why, ok := unsupported[k]; ok {
			c.problem(at(k), "%s cannot be checked: %s", k, why)
			continue
		}
		if why, ok := strictUnsupported[k]; ok && c.strict {
			c.problem(at(k), "strict mode does not support %s (%s)", k, why)
			continue
		}
		switch k {
		case "type":
			// done above
		case "enum":
			a, ok := x.([]any)
			if !ok || len(a) == 0 {
				c.problem(at(k), "must be a non-empty list")
				continue
			}
			c.enumValues += len(a)
			chars := 0
			for _, e := range a {
				if s, ok := e.(string); ok {
					chars += len([]rune(s))
				}
				n.enum = append(n.enum, plain(e))
			}
			c.chars += chars
			if c.strict && len(a) > largeEnumValues && chars > maxLargeEnumChars {
				c.problem(at(k), "strict mode allows at most %d characters of values in an enum of more than %d values; this one has %d",
					maxLargeEnumChars, largeEnumValues, chars)
			}
		case "const":
			n.hasConst, n.constant = true, plain(x)
			if s, ok := x.(string); ok {
				c.chars += len([]rune(s))
			}
		case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains":
			i, ok := count(x)
			if !ok {
				c.problem(at(k), "must be a non-negative integer, got %s", describeJSON(plain(x)))
				continue
			}
			*n.bound(k) = i
		case "pattern":
			s, ok := x.(string)
			if !ok {
				c.problem(at(k), "must be a string")
				continue
			}
			n.pattern = c.regexp(at(k), s)
		case "format":
			s, ok := x.(string)
			if !ok {
				c.problem(at(k), "must be a string")
				continue
			}
			if _, known := formats[s]; known {
				n.format = s
			} else if c.strict && (n.types == 0 || n.types&kString != 0) {
				// On a schema of no string, a format (OpenAPI's int32) is
				// an annotation.
				c.problem(at(k), "strict mode does not support format %q; it supports %s", s, strings.Join(formatNames(), ", "))
			}
		case "minimum", "maximum", "multipleOf":
			r := c.number(at(k), x)
			switch k {
			case "minimum":
				n.minimum = r
			case "maximum":
				n.maximum = r
			default:
				if r != nil && r.rat.Sign() <= 0 {
					c.problem(at(k), "must be greater than 0")
					r = nil
				}
				n.multipleOf = r
			}
		case "exclusiveMinimum", "exclusiveMaximum":
			if b, ok := x.(bool); ok && !c.strict {
				if k == "exclusiveMinimum" {
					exclusiveMinFlag = b
				} else {
					exclusiveMaxFlag = b
				}
				continue
			}
			r := c.number(at(k), x)
			if k == "exclusiveMinimum" {
				n.exclusiveMin = r
			} else {
				n.exclusiveMax = r
			}
		case "properties":
			n.order, n.properties = schemas(k, x, true)
			c.properties += len(n.order)
		case "required":
			n.required = c.names(at(k), x)
		case "additionalProperties":
			if c.strict {
				if x != false {
					c.problem(at(k), "strict mode requires additionalProperties: false")
				}
				n.additional = &node{where: at(k), always: new(false), kindsDone: true}
				continue
			}
			n.additional = sub(k, x)
		case "patternProperties":
			m, ok := x.(*object)
			if !ok {
				c.problem(at(k), "must be an object of schemas")
				continue
			}
			for _, p := range m.keys {
				re := c.regexp(at(k)+"."+p, p)
				s := c.compile(m.vals[p], ptr+"/"+escapePointer(k)+"/"+escapePointer(p), at(k)+"."+p, depth)
				if re != nil {
					n.patternProps = append(n.patternProps, patternProperty{re, s})
				}
			}
		case "propertyNames":
			n.propertyNames = sub(k, x)
		case "dependentRequired", "dependentSchemas", "dependencies":
			m, ok := x.(*object)
			if !ok {
				c.problem(at(k), "must be an object")
				continue
			}
			for _, name := range m.keys {
				d := m.vals[name]
				if _, isList := d.([]any); isList && k != "dependentSchemas" {
					n.dependentRequired = append(n.dependentRequired, dependency{name, c.names(at(k)+"."+name, d)})
				} else if k != "dependentRequired" {
					s := c.compile(d, ptr+"/"+escapePointer(k)+"/"+escapePointer(name), at(k)+"."+name, depth)
					n.dependentSchemas = append(n.dependentSchemas, dependentSchema{name, s})
				} else {
					c.problem(at(k)+"."+name, "must be a list of property names")
				}
			}
		case "items":
			if _, isList := x.([]any); isList {
				if c.strict {
					c.problem(at(k), "strict mode requires items to be one schema, not a list")
					continue
				}
				n.prefixItems = list(k, x) // draft 2019-09 and before
				if ai, ok := o.get("additionalItems"); ok {
					n.items = c.compile(ai, ptr+"/additionalItems", at("additionalItems"), depth)
				}
				continue
			}
			if c.strict {
				if _, isBool := x.(bool); isBool {
					c.problem(at(k), "strict mode requires items to be a schema")
					continue
				}
			}
			n.items = sub(k, x)
		case "additionalItems":
			// read with a list of items; draft 2020-12 ignores it otherwise
		case "prefixItems":
			n.prefixItems = list(k, x)
		case "uniqueItems":
			b, ok := x.(bool)
			if !ok {
				c.problem(at(k), "must be true or false")
			}
			n.uniqueItems = b
		case "contains":
			n.contains = sub(k, x)
		case "allOf":
			n.allOf = list(k, x)
		case "anyOf":
			n.anyOf = list(k, x)
		case "oneOf":
			n.oneOf = list(k, x)
		case "not":
			n.not = sub(k, x)
		case "if":
			n.ifs = sub(k, x)
		case "then":
			n.then = sub(k, x)
		case "else":
			n.els = sub(k, x)
		case "$ref":
			s, ok := x.(string)
			if !ok {
				c.problem(at(k), "must be a string")
				continue
			}
			n.ref = s
			c.refs = append(c.refs, n)
		case "$defs", "definitions":
			schemas(k, x, true)
		case "$anchor":
			if s, ok := x.(string); ok {
				c.anchors[s] = n
			}
		case "title":
			n.title, _ = x.(string)
		case "description":
			n.description, _ = x.(string)
		}
	}
	if exclusiveMinFlag {
		n.exclusiveMin, n.minimum = n.minimum, nil
	}
	if exclusiveMaxFlag {
		n.exclusiveMax, n.maximum = n.maximum, nil
	}
	if n.types&kNull != 0 && n.enum != nil && !slices.Contains(n.enum, nil) {
		// OpenAI's guide writes an optional enum field as a type that
		// lists null beside an enum that does not, and means null to be
		// allowed; JSON Schema alone would refuse it.
		n.enum = append(n.enum, nil)
	}
	if _, ok := o.get("if"); !ok {
		n.then, n.els = nil, nil // then and else without if do nothing
	}
	if n.minContains >= 0 && n.contains == nil {
		n.minContains = -1
	}
	if c.strict {
		c.checkStrict(n, o, where, isObject)
	}
	return n
}

// checkStrict applies strict mode's rules on one schema's shape.
func (c *compiler) checkStrict(n *node, o *object, where string, isObject bool) {
	has := func(k string) bool { _, ok := o.get(k); return ok }
	if !has("type") && !has("enum") && !has("const") && !has("anyOf") && !has("$ref") {
		c.problem(where, "strict mode requires every schema to say what it takes: type, enum, const, anyOf or $ref")
	}
	if isObject {
		if !has("additionalProperties") {
			c.problem(where, "strict mode requires additionalProperties: false")
		}
		var missing []string
		for _, p := range n.order {
			if !slices.Contains(n.required, p) {
				missing = append(missing, p)
			}
		}
		if len(missing) > 0 {
			c.problem(where, "strict mode requires every property in required (make one optional with a type that allows null); not in required: %s",
				strings.Join(missing, ", "))
		}
		for _, r := range n.required {
			if _, ok := n.properties[r]; !ok {
				c.problem(join(where, "required"), "names %q, which is not in properties", r)
			}
		}
	}
	if n.types&kArray != 0 && !has("items") {
		c.problem(where, "strict mode requires items for an array")
	}
}

// checkRoot applies strict mode's rule on the root: an object, not anyOf.
func (c *compiler) checkRoot(root *node) {
	r := root
	for i := 0; i < 100 && r.target != nil && r.types == 0; i++ { // a loop of references is refused later
		r = r.target
	}
	if root.anyOf != nil {
		c.problem("", "strict mode requires the root to be an object, not anyOf")
	} else if r.always != nil || r.types != kObject {
		c.problem("", `strict mode requires the root to be an object (type: "object")`)
	}
}

func (c *compiler) checkTotals() {
	if c.properties > maxProperties {
		c.problem("", "strict mode allows at most %d object properties in all; this schema has %d", maxProperties, c.properties)
	}
	if c.enumValues > maxEnumValues {
		c.problem("", "strict mode allows at most %d enum values in all; this schema has %d", maxEnumValues, c.enumValues)
	}
	if c.chars > maxSchemaChars {
		c.problem("", "strict mode allows at most %d characters of property names, definition names, enum and const values; this schema has %d",
			maxSchemaChars, c.chars)
	}
}

// resolve points every $ref at its schema, compiling what a reference
// reaches that the walk did not (a schema under a keyword this package
// does not know, as OpenAPI's "#/components/schemas/X").
func (c *compiler) resolve() {
	for i := 0; i < len(c.refs); i++ { // compiling may add references
		n := c.refs[i]
		where := join(n.where, "$ref")
		ref := n.ref
		if c.rootID != "" && strings.HasPrefix(ref, c.rootID+"#") {
			ref = ref[len(c.rootID):]
		}
		if !strings.HasPrefix(ref, "#") {
			c.problem(where, "%q refers to another document; only references within the schema (starting with #) are supported", n.ref)
			continue
		}
		frag, err := url.PathUnescape(ref[1:])
		if err != nil {
			c.problem(where, "%q is not a valid reference: %v", n.ref, err)
			continue
		}
		if frag != "" && !strings.HasPrefix(frag, "/") {
			if a, ok := c.anchors[frag]; ok && !c.strict {
				n.target = a
			} else {
				c.problem(where, "%q names no $anchor of this schema", n.ref)
			}
			continue
		}
		v, ptr, ok := lookup(c.doc, frag)
		if !ok {
			c.problem(where, "%q points at nothing in this schema", n.ref)
			continue
		}
		n.target = c.compile(v, ptr, pointerWhere(frag), 0)
	}
}

// checkLoops refuses a schema whose references go round without
// descending into the value: checking it would never end.
func (c *compiler) checkLoops() {
	const (
		unseen = iota
		active
		done
	)
	state := map[*node]int{}
	var visit func(n *node) bool
	visit = func(n *node) bool {
		switch state[n] {
		case active:
			c.problem(n.where, "this schema refers back to itself (through $ref, allOf, anyOf, oneOf, not or if) without descending into the value")
			return false
		case done:
			return true
		}
		state[n] = active
		ok := true
		for _, m := range inPlace(n) {
			if ok && !visit(m) {
				ok = false
			}
		}
		state[n] = done
		return ok
	}
	for _, n := range c.all {
		if !visit(n) {
			return
		}
	}
}

// inPlace lists the schemas n applies to the same value.
func inPlace(n *node) []*node {
	var ns []*node
	if n.target != nil {
		ns = append(ns, n.target)
	}
	ns = append(ns, n.allOf...)
	ns = append(ns, n.anyOf...)
	ns = append(ns, n.oneOf...)
	for _, m := range []*node{n.not, n.ifs, n.then, n.els} {
		if m != nil {
			ns = append(ns, m)
		}
	}
	for _, d := range n.dependentSchemas {
		ns = append(ns, d.schema)
	}
	return ns
}

// kindsOf works out the kinds of value n could take (more than it takes,
// never fewer), so that a failed anyOf can tell which alternative the
// value meant.
func kindsOf(n *node, seen map[*node]bool) kind {
	if n.kindsDone {
		return n.kinds
	}
	if seen[n] {
		return kAny
	}
	seen[n] = true
	k := kAny
	if n.always != nil && !*n.always {
		k = 0
	}
	if n.types != 0 {
		k = n.types
		if k&kNumber != 0 {
			k |= kInteger
		}
	}
	if n.enum != nil {
		var e kind
		for _, v := range n.enum {
			e |= kindOfValue(v)
		}
		k &= e
	}
	if n.hasConst {
		k &= kindOfValue(n.constant)
	}
	if n.target != nil {
		k &= kindsOf(n.target, seen)
	}
	for _, m := range n.allOf {
		k &= kindsOf(m, seen)
	}
	for _, alts := range [][]*node{n.anyOf, n.oneOf} {
		if alts != nil {
			var u kind
			for _, m := range alts {
				u |= kindsOf(m, seen)
			}
			k &= u
		}
	}
	n.kinds, n.kindsDone = k, true
	return k
}

func (c *compiler) types(t any, where string) kind {
	where = join(where, "type")
	var names []string
	switch t := t.(type) {
	case string:
		names = []string{t}
	case []any:
		for _, x := range t {
			s, ok := x.(string)
			if !ok {
				c.problem(where, "must list type names")
				return 0
			}
			names = append(names, s)
		}
	}
	if len(names) == 0 {
		c.problem(where, "must be a type name or a non-empty list of them")
		return 0
	}
	var k kind
	for _, name := range names {
		nk := kindNamed(name)
		if nk == 0 {
			c.problem(where, "unknown type %q (want object, array, string, number, integer, boolean or null)", name)
		}
		k |= nk
	}
	return k
}

func (c *compiler) names(where string, x any) []string {
	a, ok := x.([]any)
	if !ok {
		c.problem(where, "must be a list of property names")
		return nil
	}
	names := make([]string, 0, len(a))
	for _, v := range a {
		s, ok := v.(string)
		if !ok {
			c.problem(where, "must be a list of property names")
			return nil
		}
		names = append(names, s)
	}
	return names
}

func (c *compiler) number(where string, x any) *number {
	num, ok := x.(json.Number)
	if !ok {
		c.problem(where, "must be a number, got %s", describeJSON(plain(x)))
		return nil
	}
	r, ok := ratOf(num)
	if !ok {
		c.problem(where, "number %s is out of the range this package checks", clipped(string(num)))
		return nil
	}
	return &number{rat: r, text: string(num)}
}

func (c *compiler) regexp(where, source string) *pattern {
	re, err := regexp.Compile(translatePattern(source))
	if err != nil {
		c.problem(where, "pattern %q cannot be checked: Go's RE2 regular expressions refuse it (no lookaround or backreferences): %v",
			clipped(source), err)
		return nil
	}
	return &pattern{re: re, source: source}
}

// translatePattern rewrites the ECMA-262 escapes RE2 spells differently:
// \uXXXX becomes \x{XXXX}.
func translatePattern(p string) string {
	if !strings.Contains(p, `\u`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			if p[i+1] == 'u' && i+6 <= len(p) && isHex(p[i+2:i+6]) {
				b.WriteString(`\x{` + p[i+2:i+6] + `}`)
				i += 5
				continue
			}
			b.WriteString(p[i : i+2])
			i++
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return true
}

// count reads a non-negative integer keyword value.
func count(x any) (int, bool) {
	num, ok := x.(json.Number)
	if !ok {
		return 0, false
	}
	r, ok := ratOf(num)
	if !ok || !r.IsInt() || r.Sign() < 0 {
		return 0, false
	}
	if !r.Num().IsInt64() || r.Num().Int64() > 1<<31 {
		return 1 << 31, true
	}
	return int(r.Num().Int64()), true
}

// lookup finds the value at JSON pointer frag in doc, and its canonical
// pointer (each token escaped, as compile keys nodes).
func lookup(doc any, frag string) (any, string, bool) {
	if frag == "" {
		return doc, "", true
	}
	v, ptr := doc, ""
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case *object:
			next, ok := x.vals[tok]
			if !ok {
				return nil, "", false
			}
			v = next
		case []any:
			i, err := indexToken(tok)
			if err != nil || i >= len(x) {
				return nil, "", false
			}
			v = x[i]
		default:
			return nil, "", false
		}
		ptr += "/" + escapePointer(tok)
	}
	return v, ptr, true
}

func indexToken(tok string) (int, error) {
	if tok == "" || (len(tok) > 1 && tok[0] == '0') || len(tok) > 9 {
		return 0, fmt.Errorf("bad index %q", tok)
	}
	i := 0
	for _, r := range tok {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("bad index %q", tok)
		}
		i = i*10 + int(r-'0')
	}
	return i, nil
}

// pointerWhere writes a JSON pointer as a Problem.Where.
func pointerWhere(frag string) string {
	if frag == "" {
		return ""
	}
	toks := strings.Split(frag[1:], "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return strings.Join(toks, ".")
}

func escapePointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

func join(where, k string) string {
	if where == "" {
		return k
	}
	return where + "." + k
}
