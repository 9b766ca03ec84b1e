package eval

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The fields of Records. Values are drawn uniformly, so that a count over
// a long input is large and an exact answer needs every line.
var (
	recordFirstNames = []string{"Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivan", "Julia",
		"Kofi", "Lena", "Mateo", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq", "Uma", "Viktor", "Wen", "Yara"}
	recordLastNames = []string{"Novak", "Silva", "Okafor", "Larsen", "Moreau", "Tanaka", "Haddad", "Kowalski", "Nguyen",
		"Fischer", "Rossi", "Mensah", "Ivanova", "Costa", "Berg", "Sato", "Dubois", "Khan", "Horvat", "Lindqvist"}
	recordCities = []string{"Lisbon", "Nairobi", "Osaka", "Lima", "Oslo", "Tunis", "Quito", "Hanoi", "Krakow",
		"Dakar", "Perth", "Bergen", "Porto", "Cusco", "Izmir", "Leeds"}
	recordProducts = oolongItems
)

const recordsHeader = "The following lines are order records, one per line. Each line has a record ID, then the fields name, city, product and quantity, separated by ' | '.\n"

// Records is a counting and extraction task over structured lines such as
// "ID: 104233 | name: Alice Novak | city: Lisbon | product: kettle |
// quantity: 3". Even instances ask how many records have a city or
// product; odd ones ask for one field of the record with a given ID. Code
// answers both exactly (split, filter, count); reading the text does not
// scale to millions of lines.
type Records struct {
	// Phrasings is the set of question wordings (PhrasingsHeldIn or
	// PhrasingsHeldOut); empty is each question kind's first wording.
	Phrasings string
}

// Name implements Task.
func (t Records) Name() string {
	if t.Phrasings != "" {
		return "records[phrasings=" + t.Phrasings + "]"
	}
	return "records"
}

// Generate implements Task.
func (t Records) Generate(ctx context.Context, w io.Writer, spec Spec) (Instance, error) {
	if spec.Tokens <= 0 {
		return Instance{}, fmt.Errorf("records: length %d tokens: must be positive", spec.Tokens)
	}
	r := newRand(t.Name(), spec)
	count := spec.Index%2 == 0
	// The question is drawn before the records so that its answer can be
	// taken while they stream.
	countField, countValue := "city", recordCities[r.IntN(len(recordCities))]
	if r.IntN(2) == 1 {
		countField, countValue = "product", recordProducts[r.IntN(len(recordProducts))]
	}
	extractField := []string{"name", "city", "product", "quantity"}[r.IntN(4)]
	target := int64(spec.Tokens) * CharsPerToken
	pickAt := int64(r.Float64() * float64(target))
	phr := recordsCountPhrasings
	if !count {
		phr = recordsExtractPhrasings
	}
	template, err := phr.pick(r, t.Phrasings)
	if err != nil {
		return Instance{}, fmt.Errorf("records: %w", err)
	}

	cw := newCountWriter(w)
	cw.WriteString(recordsHeader)
	id := 100000 + r.IntN(400000)
	var (
		records, matches int
		pickedID, lastID int
		picked, last     map[string]string
		line             strings.Builder
	)
	for cw.err == nil {
		if records%(1<<14) == 0 && ctx.Err() != nil {
			return Instance{}, ctx.Err()
		}
		fields := map[string]string{
			"name":     recordFirstNames[r.IntN(len(recordFirstNames))] + " " + recordLastNames[r.IntN(len(recordLastNames))],
			"city":     recordCities[r.IntN(len(recordCities))],
			"product":  recordProducts[r.IntN(len(recordProducts))],
			"quantity": strconv.Itoa(1 + r.IntN(40)),
		}
		line.Reset()
		fmt.Fprintf(&line, "ID: %d | name: %s | city: %s | product: %s | quantity: %s\n",
			id, fields["name"], fields["city"], fields["product"], fields["quantity"])
		if cw.n+int64(line.Len()) > target && records > 0 {
			break
		}
		if picked == nil && cw.n+int64(line.Len()) > pickAt {
			picked, pickedID = fields, id
		}
		cw.WriteString(line.String())
		last, lastID = fields, id
		records++
		if fields[countField] == countValue {
			matches++
		}
		id += 1 + r.IntN(3) // increasing, so every ID is unique
	}
	if err := cw.Flush(); err != nil {
		return Instance{}, fmt.Errorf("records: write records: %w", err)
	}
	if picked == nil { // the pick fell in the tail that no whole line fills
		picked, pickedID = last, lastID
	}
	inst := Instance{Task: t.Name(), Tokens: spec.Tokens, Index: spec.Index, Seed: spec.Seed, Scorer: "oolong", Bytes: cw.n,
		Meta: map[string]string{"records": strconv.Itoa(records)}}
	if count {
		inst.Question = fillTemplate(template, map[string]string{"field": countField, "value": countValue})
		inst.Answer = strconv.Itoa(matches)
		inst.Meta["kind"], inst.Meta["field"], inst.Meta["value"] = "count", countField, countValue
	} else {
		inst.Question = fillTemplate(template, map[string]string{"field": extractField, "id": strconv.Itoa(pickedID)})
		inst.Answer = picked[extractField]
		inst.Meta["kind"], inst.Meta["field"], inst.Meta["id"] = "extract", extractField, strconv.Itoa(pickedID)
	}
	return inst, nil
}

// LabelCount is the sub-call task: how many of the customer comments of
// the OOLONG-style records carry a sentiment label. The comments are
// written so that no keyword gives their label away, so code alone cannot
// answer; the way through is to send chunks of lines to llm_query, have the
// sub-model label each comment, and count the labels in code.
type LabelCount struct {
	// Phrasings is the set of question wordings (PhrasingsHeldIn or
	// PhrasingsHeldOut); empty is the first wording.
	Phrasings string
}

// Name implements Task.
func (t LabelCount) Name() string {
	if t.Phrasings != "" {
		return "label-count[phrasings=" + t.Phrasings + "]"
	}
	return "label-count"
}

// Generate implements Task.
func (t LabelCount) Generate(ctx context.Context, w io.Writer, spec Spec) (Instance, error) {
	if spec.Tokens <= 0 {
		return Instance{}, fmt.Errorf("label-count: length %d tokens: must be positive", spec.Tokens)
	}
	r := newRand(t.Name(), spec)
	label := r.IntN(len(oolongLabels))
	template, err := labelCountPhrasings.pick(r, t.Phrasings)
	if err != nil {
		return Instance{}, fmt.Errorf("label-count: %w", err)
	}
	st, n, err := writeOolong(ctx, w, r, int64(spec.Tokens)*CharsPerToken, func(int) bool { return true })
	if err != nil {
		return Instance{}, fmt.Errorf("label-count: write records: %w", err)
	}
	return Instance{
		Task: t.Name(), Tokens: spec.Tokens, Index: spec.Index, Seed: spec.Seed,
		Question: fillTemplate(template, map[string]string{"label": oolongLabels[label]}),
		Answer:   strconv.Itoa(st.total[label]),
		Scorer:   "oolong",
		Bytes:    n,
		Meta: map[string]string{"label": oolongLabels[label], "records": strconv.Itoa(st.records),
			"counts": fmt.Sprintf("positive=%d negative=%d neutral=%d", st.total[0], st.total[1], st.total[2])},
	}, nil
}
