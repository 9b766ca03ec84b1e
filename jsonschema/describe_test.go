package jsonschema

import (
	"fmt"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		schema string
		strict bool
		want   string
	}{
		{"weather", weatherSchema, true, `{
  location: string, // Where to get the weather for
  unit: "F" | "C" | null, // Temperature unit
  value: number, // >= -130 and <= 130
}
`},
		{"user", userSchema, true, `{
  name: string,
  username: string, // (matching ^@[a-zA-Z0-9_]+$) Starts with @
  email: string, // format email (like name@example.com)
}
`},
		// A definition used once is written in place.
		{"math", mathSchema, true, `{
  steps: {
    explanation: string,
    output: string,
  }[],
  final_answer: string,
}
`},
		// Alternatives keep their descriptions, after their braces.
		{"item", itemSchema, true, `{
  item: { // A user to insert
    name: string,
    age: number,
  } | { // An address to insert
    number: string,
    street: string,
    city: string,
  },
}
`},
		// Recursion through the root: the root is named, and written once.
		{"ui", uiSchema, true, `type Root = {
  type: "div" | "button" | "header" | "section" | "field" | "form",
  label: string,
  children: Root[], // Nested components
  attributes: {
    name: string,
    value: string,
  }[],
}
`},
		// Recursion through a definition: written once, after the root.
		{"linked list", linkedListSchema, true, `{
  linked_list: linked_list_node,
}

type linked_list_node = {
  value: number,
  next: linked_list_node | null,
}
`},
		{"query", querySchema, true, `{
  table_name: "orders",
  columns: ("id" | "status" | "ordered_at")[],
  conditions: {
    column: string,
    operator: "=" | ">" | "<" | ">=" | "<=" | "!=",
    value: string | number | {
      column_name: string,
    },
  }[],
  order_by: "asc" | "desc",
}
`},
		// Without strict mode: optional properties, maps, tuples, a
		// definition used twice written once under its name.
		{"loose", `{
			"type": "object", "description": "A pet.\nSecond line.",
			"properties": {
				"name": {"type": "string", "minLength": 1},
				"tags": {"type": "array", "items": {"type": ["string", "integer"]}, "maxItems": 5, "uniqueItems": true},
				"first name": {"$ref": "#/$defs/n"},
				"last": {"$ref": "#/$defs/n"},
				"meta": {"type": "object", "additionalProperties": {"type": "number"}},
				"pair": {"prefixItems": [{"type": "string"}, {"type": "number"}], "items": false},
				"any": {},
				"kind": {"oneOf": [{"const": "a"}, {"const": "b"}]},
				"age": {"type": "integer", "exclusiveMinimum": 0, "multipleOf": 1}
			},
			"required": ["name"],
			"$defs": {"n": {"type": "string", "description": "A name"}}
		}`, false, `{ // A pet. Second line.
  name: string, // at least 1 character
  tags?: (string | integer)[], // at most 5 items; unique items
  "first name"?: n, // A name
  last?: n, // A name
  meta?: {
    [key: string]: number,
  },
  pair?: [string, number],
  any?: any,
  kind?: "a" | "b", // exactly one of the alternatives
  age?: integer, // > 0; a multiple of 1
}

// A name
type n = string
`},
		{"not an object", `{"type":["array","null"],"items":{"enum":[1,2]},"minItems":1}`, false, "// at least 1 item\n(1 | 2)[] | null\n"},
		{"composition", `{"allOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"anyOf":[{"required":["a"]},{"type":"object"}]}]}`, false,
			"{\n  a?: string,\n} & (object | object)\n"},
		{"boolean", `true`, false, "any\n"},
	} {
		s := mustCompile(t, tc.schema, tc.strict)
		if got := s.Describe(); got != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

// TestDescribeBounded: a schema of thousands of properties is outlined in
// a bounded text that says it was cut.
func TestDescribeBounded(t *testing.T) {
	t.Parallel()
	var ps, names []string
	for i := 0; i < 2000; i++ {
		ps = append(ps, fmt.Sprintf(`"p%d":{"type":"string","description":%q}`, i, strings.Repeat("d", 300)))
		names = append(names, fmt.Sprintf("p%d", i))
	}
	got := mustCompile(t, obj(strings.Join(ps, ","), names...), true).Describe()
	const note = "… (cut at 8000 bytes: the schema is larger than this outline)\n"
	if len(got) > describeBytes+len(note) || !strings.HasSuffix(got, note) {
		t.Errorf("%d bytes, ending %q", len(got), got[max(len(got)-100, 0):])
	}
	// Each description is clipped, and each line whole.
	for _, line := range strings.Split(strings.TrimSuffix(got, note), "\n") {
		if strings.HasPrefix(line, "  p") && (!strings.HasSuffix(line, "…") || len(line) > 20+describeTextBytes) {
			t.Errorf("line %q", line)
			break
		}
	}
	// A long enum is cut too.
	values := make([]string, 100)
	for i := range values {
		values[i] = fmt.Sprint(i)
	}
	got = mustCompile(t, obj(`"e":{"type":"integer","enum":[`+strings.Join(values, ",")+`]}`, "e"), true).Describe()
	if !strings.Contains(got, "| 19 | … (80 more),") {
		t.Errorf("long enum: %s", got)
	}
}

// TestDescribeNamesOnce: a definition used from many places, or by
// itself, is written once; two definitions of one name are told apart.
func TestDescribeNamesOnce(t *testing.T) {
	t.Parallel()
	schema := `{
		"type": "object",
		"properties": {
			"a": {"$ref": "#/$defs/node"}, "b": {"$ref": "#/$defs/node"}, "c": {"type": "array", "items": {"$ref": "#/$defs/node"}},
			"d": {"$ref": "#/definitions/node"}, "e": {"$ref": "#/definitions/node"}
		},
		"$defs": {"node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
		"definitions": {"node": {"type": "string"}}
	}`
	got := mustCompile(t, schema, false).Describe()
	want := `{
  a?: node,
  b?: node,
  c?: node[],
  d?: node2,
  e?: node2,
}

type node = {
  kids?: node[],
}

type node2 = string
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
