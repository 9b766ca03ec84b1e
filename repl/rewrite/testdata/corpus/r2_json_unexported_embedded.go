package main

// encoding/json of structs declared with unexported and embedded fields:
// unexported ones skipped, an embedded struct's fields promoted (an outer
// field of the same key wins, tags rename), nested in slices, maps and
// pointers; Unmarshal into existing values keeps what json does not set.

import (
	"encoding/json"
	"fmt"
)

type base struct {
	ID      int    `json:"id"`
	Created string `json:"created,omitempty"`
	secret  string
}

type Tag struct {
	Name  string `json:"name"`
	count int
}

type Doc struct {
	base
	Title string         `json:"title"`
	Tags  []Tag          `json:"tags"`
	ByKey map[string]Tag `json:"by_key,omitempty"`
	Main  *Tag           `json:"main"`
	ID    string         `json:"doc_id"`
	note  string
	Extra any `json:"extra,omitempty"`
}

type Wrapper struct {
	Docs  []Doc `json:"docs"`
	Total int
}

func main() {
	d := Doc{base: base{ID: 1, secret: "s"}, Title: "t", Tags: []Tag{{"a", 1}, {"b", 2}},
		ByKey: map[string]Tag{"x": {"x", 3}}, Main: &Tag{"m", 4}, ID: "d1", note: "n"}
	b, err := json.Marshal(d)
	fmt.Println(string(b), err)
	b, _ = json.MarshalIndent(Wrapper{Docs: []Doc{d}, Total: 1}, "", " ")
	fmt.Println(string(b))
	var back Doc
	back.note = "kept"
	back.Tags = []Tag{{"old", 9}}
	err = json.Unmarshal([]byte(`{"id":5,"title":"u","tags":[{"name":"p"}],"main":{"name":"q"},"doc_id":"d2","created":"now"}`), &back)
	fmt.Println(err, back.base.ID, back.Created, back.Title, len(back.Tags), back.Tags[0].Name, back.Tags[0].count, back.Main.Name, back.ID, back.note)
	var ws []Wrapper
	err = json.Unmarshal([]byte(`[{"docs":[{"title":"z","id":3}],"Total":2}]`), &ws)
	fmt.Println(err, len(ws), ws[0].Total, ws[0].Docs[0].Title, ws[0].Docs[0].base.ID)
	var m map[string]Tag
	fmt.Println(json.Unmarshal([]byte(`{"k":{"name":"v"}}`), &m), m["k"].Name)
	err = json.Unmarshal([]byte(`{"title": 5}`), &back)
	fmt.Println(err != nil, back.Title)
}
