package jsonschema

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func mustCompile(t testing.TB, schema string, strict bool) *Schema {
	t.Helper()
	s, err := Compile([]byte(schema), strict)
	if err != nil {
		t.Fatalf("Compile(%.80s): %v", schema, err)
	}
	return s
}

// violations is what Validate found, as "path: reason" lines; nil for a
// value that matches.
func violations(t *testing.T, s *Schema, value string) []string {
	t.Helper()
	err := s.Validate([]byte(value))
	if err == nil {
		return nil
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Validate(%s): %v, want a *ValidationError", value, err)
	}
	var out []string
	for _, v := range ve.Violations {
		out = append(out, v.String())
	}
	return out
}

// TestValidate: each value against its schema gives exactly these
// violations, in this order.
func TestValidate(t *testing.T) {
	t.Parallel()
	address := obj(`"street":{"type":"string"},"zip":{"type":"string","pattern":"^[0-9]{5}$"}`, "street", "zip")
	person := obj(`"name":{"type":"string"},"address":`+address, "name", "address")
	for _, tc := range []struct {
		name   string
		schema string
		strict bool
		value  string
		want   []string
	}{
		{"weather ok", weatherSchema, true, `{"location":"Paris","unit":"C","value":21.5}`, nil},
		{"weather null unit", weatherSchema, true, `{"location":"Paris","unit":null,"value":-130}`, nil},
		{"weather wrong", weatherSchema, true, `{"location":5,"unit":"K","value":131,"wind":3}`, []string{
			`/location: want a string, got 5 (a number)`,
			`/unit: want one of "F", "C", null, got "K" (a string)`,
			`/value: want a number >= -130 and <= 130, got 131`,
			`(root): unexpected property "wind" (this object takes location, unit, value)`,
		}},
		{"weather missing", weatherSchema, true, `{"location":"Paris"}`, []string{
			`(root): missing required property "unit"`,
			`(root): missing required property "value"`,
		}},
		{"weather not an object", weatherSchema, true, `[1]`, []string{
			`(root): want an object with properties location, unit, value, got [1] (an array)`,
		}},
		{"nested pattern", person, true, `{"name":"Ann","address":{"street":"Main","zip":12345}}`, []string{
			`/address/zip: want a string matching ^[0-9]{5}$, got 12345 (a number)`,
		}},
		{"nested pattern string", person, true, `{"name":"Ann","address":{"street":"Main","zip":"1234"}}`, []string{
			`/address/zip: want a string matching ^[0-9]{5}$, got "1234"`,
		}},
		{"user", userSchema, true, `{"name":"Ann","username":"ann","email":"ann@"}`, []string{
			`/username: want a string matching ^@[a-zA-Z0-9_]+$, got "ann"`,
			`/email: want a string in format email (like name@example.com), got "ann@"`,
		}},
		{"defs", mathSchema, true, `{"steps":[{"explanation":"a","output":"b"},{"explanation":"c"}],"final_answer":"x"}`, []string{
			`/steps/1: missing required property "output"`,
		}},
		{"recursion", uiSchema, true,
			`{"type":"div","label":"","attributes":[],"children":[{"type":"form","label":"f","attributes":[{"name":"id"}],"children":[{"type":"p"}]}]}`, []string{
				// in the schema's order: children, then attributes
				`/children/0/children/0: missing required property "label"`,
				`/children/0/children/0: missing required property "children"`,
				`/children/0/children/0: missing required property "attributes"`,
				`/children/0/children/0/type: want one of "div", "button", "header", "section", "field", "form", got "p" (a string)`,
				`/children/0/attributes/0: missing required property "value"`,
			}},
		{"linked list ok", linkedListSchema, true, `{"linked_list":{"value":1,"next":{"value":2,"next":null}}}`, nil},
		{"linked list", linkedListSchema, true, `{"linked_list":{"value":1,"next":{"value":"2","next":5}}}`, []string{
			`/linked_list/next/value: want a number, got "2" (a string)`,
			`/linked_list/next/next: want an object with properties value, next or null, got 5 (a number)`,
		}},
		// anyOf: the alternative the value's kind points at reports.
		{"anyOf one fits", querySchema, true,
			`{"table_name":"orders","columns":["id"],"order_by":"asc","conditions":[{"column":"id","operator":"=","value":{"column":"x"}}]}`, []string{
				`/conditions/0/value: missing required property "column_name"`,
				`/conditions/0/value: unexpected property "column" (this object takes column_name)`,
			}},
		{"anyOf none fits", querySchema, true,
			`{"table_name":"orders","columns":["id"],"order_by":"up","conditions":[{"column":"id","operator":"~","value":true}]}`, []string{
				`/conditions/0/operator: want one of "=", ">", "<", ">=", "<=", "!=", got "~" (a string)`,
				`/conditions/0/value: want a string, a number or an object with properties column_name, got true (a boolean)`,
				`/order_by: want one of "asc", "desc", got "up" (a string)`,
			}},
		{"anyOf closest", itemSchema, true, `{"item":{"number":"1","street":"Main"}}`, []string{
			`/item: missing required property "city" (matching none of the 2 alternatives of anyOf; this is for #2, the closest)`,
		}},
		// Numbers: exact, 1.0 is an integer, multipleOf in decimal.
		{"integer", `{"type":"integer","minimum":1,"exclusiveMaximum":10}`, false, `1.0`, nil},
		{"integer fraction", `{"type":"integer"}`, false, `1.5`, []string{`(root): want an integer, got 1.5 (a number)`}},
		{"integer range", `{"type":"integer","minimum":1,"exclusiveMaximum":10}`, false, `10`, []string{`(root): want an integer >= 1 and < 10, got 10`}},
		{"exclusive minimum", `{"type":"number","exclusiveMinimum":0}`, false, `0`, []string{`(root): want a number > 0, got 0`}},
		{"draft 4 exclusive minimum", `{"type":"number","minimum":0,"exclusiveMinimum":true}`, false, `0`, []string{`(root): want a number > 0, got 0`}},
		{"multipleOf decimal", `{"type":"number","multipleOf":0.01}`, false, `0.07`, nil},
		{"multipleOf decimal big", `{"type":"number","multipleOf":0.01}`, false, `19.99`, nil},
		{"multipleOf", `{"type":"number","multipleOf":0.5}`, false, `1.25`, []string{`(root): want a multiple of 0.5, got 1.25`}},
		{"huge number", `{"type":"number","maximum":10}`, false, `1e5000`, []string{
			`(root): want a number <= 10, got 1e5000 (a number too long, or too large or small, to compare)`,
		}},
		{"exponent", `{"type":"integer","maximum":1e3}`, false, `1E3`, nil},
		// Strings count characters, not bytes.
		{"length", `{"type":"string","minLength":2,"maxLength":3}`, false, `"日本語"`, nil},
		{"too short", `{"type":"string","minLength":2,"maxLength":3}`, false, `"日"`, []string{`(root): want a string of 2 to 3 characters, got "日" (1 characters)`}},
		{"pattern unanchored", `{"type":"string","pattern":"b+"}`, false, `"abbc"`, nil},
		{"pattern \\u", `{"type":"string","pattern":"^\\u00e9$"}`, false, `"é"`, nil},
		{"enum numbers by value", `{"enum":[1,"a",null,[1,2],{"k":1}]}`, false, `1.0`, nil},
		{"enum object", `{"enum":[1,"a",null,[1,2],{"k":1}]}`, false, `{"k":1.0}`, nil},
		{"enum miss", `{"enum":[1,"a"]}`, false, `[1]`, []string{`(root): want one of 1, "a", got [1] (an array)`}},
		{"const", `{"const":"circle"}`, false, `"square"`, []string{`(root): want "circle", got "square" (a string)`}},
		{"enum without null in type", `{"type":"string","enum":["a"]}`, false, `null`, []string{`(root): want "a", got null`}},
		// Objects without strict mode.
		{"optional and extra", `{"type":"object","properties":{"a":{"type":"string"}}}`, false, `{"b":1}`, nil},
		{"additional schema", `{"type":"object","properties":{"a":{}},"additionalProperties":{"type":"integer"}}`, false, `{"a":"x","b":"y"}`, []string{
			`/b: want an integer, got "y" (a string)`,
		}},
		{"pattern properties", `{"type":"object","patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`, false, `{"x-a":"1","x-b":2,"c":3}`, []string{
			// properties not named by the schema in sorted order
			`(root): unexpected property "c" (this object takes no properties, or names matching ^x-)`,
			`/x-b: want a string, got 2 (a number)`,
		}},
		{"property names", `{"type":"object","propertyNames":{"maxLength":3}}`, false, `{"abcd":1,"ab":2}`, []string{
			`(root): property name "abcd": want a string of at most 3 characters`,
		}},
		{"property names typed", `{"type":"object","propertyNames":{"type":"string","pattern":"^[a-z]+$"}}`, false, `{"a1":1}`, []string{
			`(root): property name "a1": want a string matching ^[a-z]+$`,
		}},
		{"min properties", `{"type":"object","minProperties":2}`, false, `{"a":1}`, []string{`(root): want an object with at least 2 properties, got 1 property`}},
		{"dependentRequired", `{"dependentRequired":{"card":["billing"]}}`, false, `{"card":1}`, []string{
			`(root): property "card" requires property "billing", which is missing`,
		}},
		{"dependencies", `{"dependencies":{"card":["billing"],"x":{"required":["y"]}}}`, false, `{"card":1,"billing":2,"x":3}`, []string{
			`(root): missing required property "y"`,
		}},
		// Arrays.
		{"items count", obj(`"a":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2}`, "a"), true, `{"a":[]}`, []string{
			`/a: want an array of 1 to 2 items, got 0 items`,
		}},
		{"items", `{"type":"array","items":{"type":"string"}}`, false, `["a",1,"b",null]`, []string{
			`/1: want a string, got 1 (a number)`,
			`/3: want a string, got null`,
		}},
		{"prefixItems", `{"prefixItems":[{"type":"string"},{"type":"number"}],"items":false}`, false, `["a",1,2]`, []string{
			`(root): want an array of at most 2 items, got 3`,
		}},
		{"legacy tuple", `{"items":[{"type":"string"}],"additionalItems":{"type":"number"}}`, false, `["a",1,"b"]`, []string{
			`/2: want a number, got "b" (a string)`,
		}},
		{"uniqueItems", `{"uniqueItems":true}`, false, `[1,{"a":[2]},1.0]`, []string{`(root): want unique items, got equal items at 0 and 2: 1`}},
		{"uniqueItems distinct", `{"uniqueItems":true}`, false, `[1,"1",[1],{"a":1},{"a":2},true,null]`, nil},
		{"contains", `{"contains":{"type":"string"},"maxContains":1}`, false, `["a","b",1]`, []string{
			`(root): want at least 1 and at most 1 items that are a string, got 2`,
		}},
		{"contains none", `{"contains":{"type":"string"}}`, false, `[1]`, []string{`(root): want at least 1 items that are a string, got 0`}},
		{"minContains 0", `{"contains":{"type":"string"},"minContains":0}`, false, `[1]`, nil},
		// Composition without strict mode.
		{"allOf", `{"allOf":[{"type":"string"},{"minLength":2}]}`, false, `"a"`, []string{`(root): want a string of at least 2 characters, got "a" (1 characters)`}},
		{"oneOf none", `{"oneOf":[{"type":"string"},{"type":"integer"}]}`, false, `1.5`, []string{`(root): want a string or an integer, got 1.5 (a number)`}},
		{"oneOf both", `{"oneOf":[{"type":"number"},{"type":"integer"}]}`, false, `2`, []string{
			`(root): want a value that matches exactly one alternative of oneOf, got one that matches #1 and #2: 2`,
		}},
		{"not", `{"type":"string","not":{"const":"x"}}`, false, `"x"`, []string{`(root): want a value that is not "x", got "x" (a string)`}},
		{"if then", `{"if":{"properties":{"kind":{"const":"a"}}},"then":{"required":["a"]},"else":{"required":["b"]}}`, false, `{"kind":"a"}`, []string{
			`(root): missing required property "a"`,
		}},
		{"if else", `{"if":{"properties":{"kind":{"const":"a"}}},"then":{"required":["a"]},"else":{"required":["b"]}}`, false, `{"kind":"z"}`, []string{
			`(root): missing required property "b"`,
		}},
		{"false", `{"properties":{"a":false}}`, false, `{"a":1}`, []string{`/a: no value is allowed here, got 1 (a number)`}},
		{"pointer escapes", `{"properties":{"a/b":{"type":"string"},"c~d":{"type":"string"}}}`, false, `{"a/b":1,"c~d":2}`, []string{
			`/a~1b: want a string, got 1 (a number)`,
			`/c~0d: want a string, got 2 (a number)`,
		}},
		{"openapi ref", `{"$ref":"#/components/schemas/Pet","components":{"schemas":{"Pet":{"type":"object","required":["name"]}}}}`, false, `{}`, []string{
			`(root): missing required property "name"`,
		}},
		{"anchor", `{"$ref":"#pet","$defs":{"pet":{"$anchor":"pet","type":"string"}}}`, false, `1`, []string{`(root): want a string, got 1 (a number)`}},
		{"unknown format is an annotation", `{"type":"string","format":"uri"}`, false, `"not a uri"`, nil},
		{"long value clipped", `{"type":"integer"}`, false, `"` + strings.Repeat("x", 200) + `"`, []string{
			`(root): want an integer, got "` + strings.Repeat("x", 76) + `… (a string)`,
		}},
	} {
		s := mustCompile(t, tc.schema, tc.strict)
		if got := violations(t, s, tc.value); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got\n\t%s\nwant\n\t%s", tc.name, strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
		}
	}
}

func TestValidateNotJSON(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, weatherSchema, true)
	for _, v := range []string{``, `{`, `{"a":1} {}`, `map[a:1]`, `{"a":1}]`} {
		err := s.Validate([]byte(v))
		if !errors.Is(err, ErrNotJSON) {
			t.Errorf("Validate(%q) = %v, want ErrNotJSON", v, err)
		}
	}
}

// TestViolationsBounded: a value wrong everywhere lists the first
// violations and counts the rest.
func TestViolationsBounded(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"array","items":{"type":"string"}}`, false)
	err := s.Validate([]byte(`[` + strings.TrimSuffix(strings.Repeat("1,", 30), ",") + `]`))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v", err)
	}
	if len(ve.Violations) != maxViolations || ve.Omitted != 30-maxViolations {
		t.Errorf("%d violations and %d omitted, want %d and %d", len(ve.Violations), ve.Omitted, maxViolations, 30-maxViolations)
	}
	if !strings.HasSuffix(err.Error(), "(and 10 more)") || !strings.HasPrefix(err.Error(), "value does not match the schema: /0: want a string") {
		t.Errorf("error %q", err)
	}
}

// TestValidateBudget: alternatives that each recur on the value would take
// time exponential in its depth; the check stops at its budget, and says so.
func TestValidateBudget(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"anyOf":[{"type":"array","items":{"$ref":"#"}},{"type":"array","items":{"$ref":"#"},"minItems":1}]}`, false)
	value := strings.Repeat("[", 60) + "1" + strings.Repeat("]", 60)
	start := time.Now()
	got := violations(t, s, value)
	if len(got) == 0 || got[len(got)-1] != fmt.Sprintf("(root): the value could not be checked in full: it took more than %d checks against this schema", maxChecks) {
		t.Errorf("got %q", got)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestValidateConcurrent: a Schema is used by many goroutines at once
// (the race detector checks it).
func TestValidateConcurrent(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, querySchema, true)
	done := make(chan error)
	for i := 0; i < 8; i++ {
		go func() {
			done <- s.Validate([]byte(`{"table_name":"orders","columns":["x"],"conditions":[],"order_by":"asc"}`))
		}()
	}
	want := `value does not match the schema: /columns/0: want one of "id", "status", "ordered_at", got "x" (a string)`
	for i := 0; i < 8; i++ {
		if err := <-done; err == nil || err.Error() != want {
			t.Errorf("err = %v, want %s", err, want)
		}
	}
}

// BenchmarkValidate: a tool call's arguments, as a model writes them,
// against one of OpenAI's example schemas; valid, and wrong in places.
func BenchmarkValidate(b *testing.B) {
	s := mustCompile(b, querySchema, true)
	for _, bc := range []struct{ name, value string }{
		{"valid", `{"table_name":"orders","columns":["id","status"],"order_by":"asc",
			"conditions":[{"column":"status","operator":"=","value":"shipped"},{"column":"id","operator":">","value":{"column_name":"x"}}]}`},
		{"invalid", `{"table_name":"order","columns":["id",7],"order_by":"up",
			"conditions":[{"column":"status","operator":"~","value":true},{"column":"id","operator":">","value":{"column":"x"}}]}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				s.Validate([]byte(bc.value))
			}
		})
	}
}

func BenchmarkCompile(b *testing.B) {
	for b.Loop() {
		if _, err := Compile([]byte(querySchema), true); err != nil {
			b.Fatal(err)
		}
	}
}
