package jsonschema_test

import (
	"errors"
	"fmt"

	"github.com/rlm-project/rlm/jsonschema"
)

const weather = `{
	"type": "object",
	"properties": {
		"location": {"type": "string", "description": "City name"},
		"unit": {"type": ["string", "null"], "enum": ["C", "F"]},
		"days": {"type": "integer", "minimum": 1, "maximum": 7}
	},
	"required": ["location", "unit", "days"],
	"additionalProperties": false
}`

func ExampleCompile() {
	// Strict mode wants every property required and no others allowed.
	_, err := jsonschema.Compile([]byte(`{
		"type": "object",
		"properties": {"address": {"type": "object", "properties": {"zip": {"type": "string"}}}}
	}`), true)
	var se *jsonschema.SchemaError
	if errors.As(err, &se) {
		for _, p := range se.Problems {
			fmt.Println(p)
		}
	}
	// Output:
	// properties.address: strict mode requires additionalProperties: false
	// properties.address: strict mode requires every property in required (make one optional with a type that allows null); not in required: zip
	// (root): strict mode requires additionalProperties: false
	// (root): strict mode requires every property in required (make one optional with a type that allows null); not in required: address
}

func ExampleSchema_Validate() {
	s, err := jsonschema.Compile([]byte(weather), true)
	if err != nil {
		panic(err)
	}
	err = s.Validate([]byte(`{"location": "Paris", "unit": "K", "days": 10, "hourly": true}`))
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		for _, v := range ve.Violations {
			fmt.Println(v)
		}
	}
	fmt.Println(s.Validate([]byte(`{"location": "Paris", "unit": null, "days": 3}`)))
	// Output:
	// /unit: want one of "C", "F", null, got "K" (a string)
	// /days: want an integer >= 1 and <= 7, got 10
	// (root): unexpected property "hourly" (this object takes location, unit, days)
	// <nil>
}

func ExampleSchema_Describe() {
	s, err := jsonschema.Compile([]byte(weather), true)
	if err != nil {
		panic(err)
	}
	fmt.Print(s.Describe())
	// Output:
	// {
	//   location: string, // City name
	//   unit: "C" | "F" | null,
	//   days: integer, // >= 1 and <= 7
	// }
}

func ExampleExtractJSON() {
	// What FINAL(v) gives for a map v, and for the JSON string of it.
	for _, answer := range []string{`map[city:Paris temp:21]`, `{"city":"Paris","temp":21}`} {
		value, err := jsonschema.ExtractJSON(answer)
		fmt.Printf("%s %v\n", value, err)
	}
	// Output:
	//  not JSON: the answer is a Go map printed with %v (map[city:Paris temp:21]); FINAL its JSON instead: b, _ := json.Marshal(v); FINAL(string(b))
	// {"city":"Paris","temp":21} <nil>
}

func ExampleJSONObject() {
	fmt.Println(jsonschema.JSONObject([]byte(`{"ok": true}`)))
	fmt.Println(jsonschema.JSONObject([]byte(`[1, 2]`)))
	// Output:
	// <nil>
	// value does not match the schema: (root): want a JSON object, got [1,2] (an array)
}
