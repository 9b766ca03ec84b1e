package jsonschema

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Schemas written after the examples of OpenAI's Structured Outputs and
// function calling guides: each must compile in strict mode.
var (
	weatherSchema = `{
		"type": "object",
		"properties": {
			"location": {"type": "string", "description": "Where to get the weather for"},
			"unit": {"type": ["string", "null"], "enum": ["F", "C"], "description": "Temperature unit"},
			"value": {"type": "number", "minimum": -130, "maximum": 130}
		},
		"additionalProperties": false,
		"required": ["location", "unit", "value"]
	}`
	userSchema = `{
		"type": "object",
		"properties": {
			"name": {"type": "string"},
			"username": {"type": "string", "pattern": "^@[a-zA-Z0-9_]+$", "description": "Starts with @"},
			"email": {"type": "string", "format": "email"}
		},
		"additionalProperties": false,
		"required": ["name", "username", "email"]
	}`
	mathSchema = `{
		"type": "object",
		"properties": {
			"steps": {"type": "array", "items": {"$ref": "#/$defs/step"}},
			"final_answer": {"type": "string"}
		},
		"$defs": {
			"step": {
				"type": "object",
				"properties": {"explanation": {"type": "string"}, "output": {"type": "string"}},
				"required": ["explanation", "output"],
				"additionalProperties": false
			}
		},
		"required": ["steps", "final_answer"],
		"additionalProperties": false
	}`
	itemSchema = `{
		"type": "object",
		"properties": {
			"item": {"anyOf": [
				{
					"type": "object", "description": "A user to insert",
					"properties": {"name": {"type": "string"}, "age": {"type": "number"}},
					"additionalProperties": false, "required": ["name", "age"]
				},
				{
					"type": "object", "description": "An address to insert",
					"properties": {"number": {"type": "string"}, "street": {"type": "string"}, "city": {"type": "string"}},
					"additionalProperties": false, "required": ["number", "street", "city"]
				}
			]}
		},
		"additionalProperties": false,
		"required": ["item"]
	}`
	uiSchema = `{
		"type": "object",
		"properties": {
			"type": {"type": "string", "enum": ["div", "button", "header", "section", "field", "form"]},
			"label": {"type": "string"},
			"children": {"type": "array", "description": "Nested components", "items": {"$ref": "#"}},
			"attributes": {
				"type": "array",
				"items": {
					"type": "object",
					"properties": {"name": {"type": "string"}, "value": {"type": "string"}},
					"additionalProperties": false,
					"required": ["name", "value"]
				}
			}
		},
		"required": ["type", "label", "children", "attributes"],
		"additionalProperties": false
	}`
	linkedListSchema = `{
		"type": "object",
		"properties": {"linked_list": {"$ref": "#/$defs/linked_list_node"}},
		"$defs": {
			"linked_list_node": {
				"type": "object",
				"properties": {
					"value": {"type": "number"},
					"next": {"anyOf": [{"$ref": "#/$defs/linked_list_node"}, {"type": "null"}]}
				},
				"additionalProperties": false,
				"required": ["next", "value"]
			}
		},
		"additionalProperties": false,
		"required": ["linked_list"]
	}`
	querySchema = `{
		"type": "object",
		"properties": {
			"table_name": {"type": "string", "enum": ["orders"]},
			"columns": {"type": "array", "items": {"type": "string", "enum": ["id", "status", "ordered_at"]}},
			"conditions": {
				"type": "array",
				"items": {
					"type": "object",
					"properties": {
						"column": {"type": "string"},
						"operator": {"type": "string", "enum": ["=", ">", "<", ">=", "<=", "!="]},
						"value": {"anyOf": [
							{"type": "string"}, {"type": "number"},
							{"type": "object", "properties": {"column_name": {"type": "string"}},
							 "required": ["column_name"], "additionalProperties": false}
						]}
					},
					"required": ["column", "operator", "value"],
					"additionalProperties": false
				}
			},
			"order_by": {"type": "string", "enum": ["asc", "desc"]}
		},
		"required": ["table_name", "columns", "conditions", "order_by"],
		"additionalProperties": false
	}`
)

// TestStrictAnnotations: strict mode ignores what only annotates: titles,
// defaults, $schema, keywords JSON Schema does not define, and a format on
// a schema of no string.
func TestStrictAnnotations(t *testing.T) {
	t.Parallel()
	schema := `{"$schema":"http://json-schema.org/draft-07/schema#","title":"T","x-extra":1,"type":"object",
		"properties":{"n":{"type":"integer","format":"int32","default":0,"examples":[1],"$comment":"c","deprecated":true}},
		"required":["n"],"additionalProperties":false}`
	if _, err := Compile([]byte(schema), true); err != nil {
		t.Error(err)
	}
}

func TestCompileOpenAIExamples(t *testing.T) {
	t.Parallel()
	for name, schema := range map[string]string{
		"weather": weatherSchema, "user": userSchema, "math": mathSchema, "item": itemSchema,
		"ui": uiSchema, "linked list": linkedListSchema, "query": querySchema,
	} {
		for _, strict := range []bool{true, false} {
			if _, err := Compile([]byte(schema), strict); err != nil {
				t.Errorf("%s (strict %v): %v", name, strict, err)
			}
		}
	}
}

// obj wraps properties in a strict object schema.
func obj(props string, required ...string) string {
	return fmt.Sprintf(`{"type":"object","properties":{%s},"required":[%s],"additionalProperties":false}`, props, quoteAll(required))
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ",")
}

// TestStrictRefusals: each schema is refused in strict mode with a
// problem at the given place whose reason holds the given text.
func TestStrictRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, schema  string
		where, reason string
	}{
		{"root not an object", `{"type":"array","items":{"type":"string"}}`, "", `requires the root to be an object`},
		{"root anyOf", `{"anyOf":[` + obj(`"a":{"type":"string"}`, "a") + `,` + obj(`"b":{"type":"string"}`, "b") + `]}`, "", "not anyOf"},
		{"root boolean", `true`, "", "requires the root to be an object"},
		{"no additionalProperties", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, "", "requires additionalProperties: false"},
		{"additionalProperties true", `{"type":"object","properties":{},"required":[],"additionalProperties":true}`, "additionalProperties", "requires additionalProperties: false"},
		{"additionalProperties schema", `{"type":"object","properties":{},"additionalProperties":{"type":"string"}}`, "additionalProperties", "requires additionalProperties: false"},
		{"nested no additionalProperties", obj(`"address":{"type":"object","properties":{"zip":{"type":"string"}},"required":["zip"]}`, "address"),
			"properties.address", "strict mode requires additionalProperties: false"},
		{"optional property", obj(`"a":{"type":"string"},"b":{"type":"string"}`, "a"), "", "every property in required (make one optional with a type that allows null); not in required: b"},
		{"required unknown", obj(`"a":{"type":"string"}`, "a", "zz"), "required", `names "zz", which is not in properties`},
		{"no type", obj(`"a":{"description":"anything"}`, "a"), "properties.a", "say what it takes"},
		{"array without items", obj(`"a":{"type":"array"}`, "a"), "properties.a", "requires items"},
		{"tuple items", obj(`"a":{"type":"array","items":[{"type":"string"}]}`, "a"), "properties.a.items", "one schema, not a list"},
		{"allOf", obj(`"a":{"allOf":[{"type":"string"}]}`, "a"), "properties.a.allOf", "does not support allOf (composition)"},
		{"oneOf", obj(`"a":{"oneOf":[{"type":"string"}]}`, "a"), "properties.a.oneOf", "does not support oneOf (composition; use anyOf)"},
		{"not", obj(`"a":{"type":"string","not":{"const":"x"}}`, "a"), "properties.a.not", "does not support not"},
		{"if", obj(`"a":{"type":"string","if":{"const":"x"},"then":{"minLength":2}}`, "a"), "properties.a.if", "does not support if"},
		{"dependentRequired", `{"type":"object","properties":{},"required":[],"additionalProperties":false,"dependentRequired":{"a":["b"]}}`,
			"dependentRequired", "does not support dependentRequired"},
		{"patternProperties", `{"type":"object","properties":{},"required":[],"additionalProperties":false,"patternProperties":{"^x":{"type":"string"}}}`,
			"patternProperties", "does not support patternProperties"},
		{"uniqueItems", obj(`"a":{"type":"array","items":{"type":"string"},"uniqueItems":true}`, "a"), "properties.a.uniqueItems", "does not support uniqueItems"},
		{"unknown format", obj(`"a":{"type":"string","format":"uri"}`, "a"), "properties.a.format", `does not support format "uri"; it supports date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid`},
		{"boolean subschema", obj(`"a":true`, "a"), "properties.a", "does not take a boolean schema"},
		{"boolean exclusiveMinimum", obj(`"a":{"type":"number","minimum":1,"exclusiveMinimum":true}`, "a"), "properties.a.exclusiveMinimum", "must be a number, got true (a boolean)"},
		{"anchor", obj(`"a":{"$anchor":"x","type":"string"}`, "a"), "properties.a.$anchor", "does not support $anchor"},
		{"unevaluatedProperties", `{"type":"object","properties":{},"required":[],"additionalProperties":false,"unevaluatedProperties":false}`,
			"unevaluatedProperties", "cannot be checked"},
	} {
		if _, err := Compile([]byte(tc.schema), true); !hasProblem(err, tc.where, tc.reason) {
			t.Errorf("%s: %v\nwant a problem at %q saying %q", tc.name, err, tc.where, tc.reason)
		}
	}
}

// hasProblem reports whether err is a *SchemaError with a problem at
// where ("*": anywhere) whose reason holds reason.
func hasProblem(err error, where, reason string) bool {
	var se *SchemaError
	if !errors.As(err, &se) {
		return false
	}
	for _, p := range se.Problems {
		if (where == "*" || p.Where == where) && strings.Contains(p.Reason, reason) {
			return true
		}
	}
	return false
}

// TestNonStrictAccepts: what strict mode refuses, a schema without it
// takes, as JSON Schema means it.
func TestNonStrictAccepts(t *testing.T) {
	t.Parallel()
	for _, schema := range []string{
		`{"type":"array","items":{"type":"string"}}`,
		`true`, `{}`,
		`{"type":"object","properties":{"a":{"type":"string"},"b":{}}}`,
		`{"type":"object","additionalProperties":{"type":"integer"}}`,
		`{"oneOf":[{"type":"string"},{"type":"number"}]}`,
		`{"allOf":[{"minLength":1},{"maxLength":3}],"not":{"const":"ab"}}`,
		`{"if":{"type":"string"},"then":{"minLength":1},"else":{"type":"number"}}`,
		`{"type":"object","patternProperties":{"^x-":{"type":"string"}},"propertyNames":{"maxLength":10},"minProperties":1,"maxProperties":3}`,
		`{"type":"object","dependentRequired":{"a":["b"]},"dependentSchemas":{"c":{"required":["d"]}},"dependencies":{"e":["f"],"g":{"required":["h"]}}}`,
		`{"type":"array","prefixItems":[{"type":"string"}],"items":false,"contains":{"type":"string"},"minContains":1,"maxContains":2,"uniqueItems":true}`,
		`{"type":"array","items":[{"type":"string"}],"additionalItems":{"type":"number"}}`,
		`{"type":"number","minimum":0,"exclusiveMinimum":true}`,
		`{"type":"string","format":"uri"}`,
		`{"$ref":"#/components/schemas/Pet","components":{"schemas":{"Pet":{"type":"object"}}}}`,
		`{"$id":"https://example.com/s.json","$ref":"https://example.com/s.json#/$defs/a","$defs":{"a":{"type":"string"}}}`,
		`{"$ref":"#pet","$defs":{"pet":{"$anchor":"pet","type":"object"}}}`,
		`{"$defs":{"a/b":{"type":"string"},"c~d":{"type":"number"}},"anyOf":[{"$ref":"#/$defs/a~1b"},{"$ref":"#/$defs/c~0d"}]}`,
		`{"properties":{"a b":{"type":"string"},"c":{"$ref":"#/properties/a%20b"}}}`,
		`{"x-vendor":{"anything":true},"type":"string"}`,
	} {
		if _, err := Compile([]byte(schema), false); err != nil {
			t.Errorf("%s: %v", schema, err)
		}
	}
}

// TestRefusedInAnyMode: what no mode can check is refused, at its place.
func TestRefusedInAnyMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		schema, where, reason string
	}{
		{`not json`, "", "not JSON"},
		{`{"type":"object"} {}`, "", "not JSON: data after the JSON value"},
		{`[1,2]`, "", "a schema must be a JSON object or a boolean"},
		{`{"type":"strin"}`, "type", `unknown type "strin"`},
		{`{"type":[]}`, "type", "non-empty list"},
		{`{"enum":[]}`, "enum", "non-empty list"},
		{`{"minLength":-1}`, "minLength", "non-negative integer"},
		{`{"maxItems":1.5}`, "maxItems", "non-negative integer"},
		{`{"multipleOf":0}`, "multipleOf", "greater than 0"},
		{`{"minimum":"1"}`, "minimum", `must be a number, got "1" (a string)`},
		{`{"maximum":1e5000}`, "maximum", "out of the range"},
		{`{"pattern":"(?=a)b"}`, "pattern", "Go's RE2 regular expressions refuse it"},
		{`{"pattern":"(a)\\1"}`, "pattern", "Go's RE2"},
		{`{"required":"a"}`, "required", "list of property names"},
		{`{"properties":[]}`, "properties", "object of schemas"},
		{`{"anyOf":{}}`, "anyOf", "non-empty list of schemas"},
		{`{"properties":{"a":5}}`, "properties.a", "a schema must be a JSON object or a boolean, got 5 (a number)"},
		{`{"$ref":"other.json#/a"}`, "$ref", "refers to another document"},
		{`{"$ref":"#/$defs/missing"}`, "$ref", "points at nothing"},
		{`{"$ref":"#/items/5","items":[]}`, "$ref", "points at nothing"},
		{`{"$ref":"#nowhere"}`, "$ref", "names no $anchor"},
		{`{"$ref":"#"}`, "", "refers back to itself"},
		{`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`, "*", "refers back to itself"},
		{`{"unevaluatedItems":false}`, "unevaluatedItems", "cannot be checked"},
		{`{"$dynamicRef":"#x"}`, "$dynamicRef", "use $ref"},
		{`{"$recursiveRef":"#"}`, "$recursiveRef", "use $ref"},
		{strings.Repeat(`{"items":`, 600) + `{}` + strings.Repeat(`}`, 600), "", "nested more than"},
	} {
		if _, err := Compile([]byte(tc.schema), false); !hasProblem(err, tc.where, tc.reason) {
			t.Errorf("%.60s: %v\nwant a problem at %q saying %q", tc.schema, err, tc.where, tc.reason)
		}
	}
}

// TestStrictLimits: OpenAI's documented limits hold at the limit and are
// refused one past it.
func TestStrictLimits(t *testing.T) {
	t.Parallel()
	props := func(n int) string { // n properties over objects of 100
		var objs []string
		for i := 0; i < n; i += 100 {
			var ps, names []string
			for j := i; j < min(i+100, n); j++ {
				ps = append(ps, fmt.Sprintf(`"p%d":{"type":"integer"}`, j))
				names = append(names, fmt.Sprintf("p%d", j))
			}
			objs = append(objs, fmt.Sprintf(`"o%d":%s`, i, obj(strings.Join(ps, ","), names...)))
		}
		var names []string
		for i := 0; i < n; i += 100 {
			names = append(names, fmt.Sprintf("o%d", i))
		}
		return obj(strings.Join(objs, ","), names...)
	}
	nested := func(levels int) string { // levels objects, one in the other
		s := obj(`"leaf":{"type":"string"}`, "leaf")
		for i := 1; i < levels; i++ {
			s = obj(`"in":`+s, "in")
		}
		return s
	}
	enum := func(n, size int) string {
		values := make([]string, n)
		for i := range values {
			v := fmt.Sprintf("v%d", i)
			values[i] = fmt.Sprintf("%q", v+strings.Repeat("x", max(size-len(v), 0)))
		}
		return obj(`"e":{"type":"string","enum":[`+strings.Join(values, ",")+`]}`, "e")
	}
	enums := func(n int) string { // n enum values over properties of 100
		var ps, names []string
		for i := 0; i < n; i += 100 {
			values := make([]string, min(100, n-i))
			for j := range values {
				values[j] = fmt.Sprint(j)
			}
			ps = append(ps, fmt.Sprintf(`"e%d":{"type":"integer","enum":[%s]}`, i, strings.Join(values, ",")))
			names = append(names, fmt.Sprintf("e%d", i))
		}
		return obj(strings.Join(ps, ","), names...)
	}
	longNames := func(total int) string {
		var ps, names []string
		for i := 0; total > 0; i++ {
			name := fmt.Sprintf("n%d_", i)
			name += strings.Repeat("x", min(1000, total)-len(name))
			total -= len(name)
			ps = append(ps, fmt.Sprintf(`%q:{"type":"string"}`, name))
			names = append(names, name)
		}
		return obj(strings.Join(ps, ","), names...)
	}
	for _, tc := range []struct {
		name, ok, over, reason string
	}{
		// props(n) has n properties and one per hundred holding them.
		{"properties", props(4900), props(4960), "at most 5000 object properties in all; this schema has 5010"},
		{"nesting", nested(10), nested(11), "objects nested at most 10 levels deep"},
		{"enum values", enums(1000 - 1), enums(1001), "at most 1000 enum values in all; this schema has 1001"},
		{"large enum", enum(251, 59), enum(251, 60), "at most 15000 characters of values in an enum of more than 250 values; this one has 15060"},
		{"small enum may be long", enum(250, 100), enum(251, 60), "enum of more than 250"},
		{"characters", longNames(119_990), longNames(120_500), "at most 120000 characters"},
	} {
		if _, err := Compile([]byte(tc.ok), true); err != nil {
			t.Errorf("%s: at the limit: %v", tc.name, err)
		}
		_, err := Compile([]byte(tc.over), true)
		if err == nil || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%s: past the limit: err = %v, want %q", tc.name, err, tc.reason)
		}
		if _, err := Compile([]byte(tc.over), false); err != nil {
			t.Errorf("%s: without strict mode: %v", tc.name, err)
		}
	}
}

// TestSchemaErrorListsProblems: a schema wrong in many places is told all
// of them, up to a bound, in one error.
func TestSchemaErrorListsProblems(t *testing.T) {
	t.Parallel()
	var ps []string
	for i := 0; i < 30; i++ {
		ps = append(ps, fmt.Sprintf(`"p%d":{"type":"array"}`, i))
	}
	_, err := Compile([]byte(`{"type":"object","properties":{`+strings.Join(ps, ",")+`}}`), true)
	var se *SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v", err)
	}
	if len(se.Problems) != maxSchemaProblems {
		t.Errorf("%d problems, want %d", len(se.Problems), maxSchemaProblems)
	}
	if want := "properties.p0: strict mode requires items for an array"; se.Problems[0].String() != want {
		t.Errorf("first problem %q, want %q", se.Problems[0], want)
	}
	if !strings.HasPrefix(err.Error(), "invalid schema: properties.p0: ") || !strings.Contains(err.Error(), "more problems)") {
		t.Errorf("error %q", err)
	}
}
