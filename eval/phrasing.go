package eval

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Question phrasings. A task's questions come in two disjoint sets of
// wordings: held-in ones, which training data may use, and held-out ones,
// kept for evaluation, so that a score on held-out phrasings measures
// whether a model understood the question rather than memorized its words.
const (
	// PhrasingsDefault is the task's one original wording (RULER's
	// question for sniah); it belongs to the held-in set.
	PhrasingsDefault = ""
	PhrasingsHeldIn  = "in"
	PhrasingsHeldOut = "out"
)

// phrasingSet is a task's question templates. Templates name their slots
// in braces ({key}, {kind}, ...), filled by fillTemplate.
type phrasingSet struct {
	in, out []string // in[0] is the default wording
}

// pick returns the template of one instance: in[0] for the default set, else
// one drawn from the set named. It draws from r only for a named set, so
// that instances of the default set stay what they were before phrasing
// sets existed.
func (p phrasingSet) pick(r *rand.Rand, set string) (string, error) {
	switch set {
	case PhrasingsDefault:
		return p.in[0], nil
	case PhrasingsHeldIn:
		return p.in[r.IntN(len(p.in))], nil
	case PhrasingsHeldOut:
		return p.out[r.IntN(len(p.out))], nil
	}
	return "", fmt.Errorf("phrasings %q: want %q (held-in) or %q (held-out)", set, PhrasingsHeldIn, PhrasingsHeldOut)
}

// CheckPhrasings reports whether set names a phrasing set.
func CheckPhrasings(set string) error {
	_, err := phrasingSet{in: []string{""}, out: []string{""}}.pick(rand.New(rand.NewPCG(0, 0)), set)
	return err
}

// fillTemplate replaces each {name} in t with vars[name].
func fillTemplate(t string, vars map[string]string) string {
	pairs := make([]string, 0, 2*len(vars))
	for k, v := range vars {
		pairs = append(pairs, "{"+k+"}", v)
	}
	return strings.NewReplacer(pairs...).Replace(t)
}

// sniahPhrasings ask for the value of one key; {kind} is "number" or
// "uuid". Every wording names the key as it appears in the needle.
var sniahPhrasings = phrasingSet{
	in: []string{
		"What is the special magic {kind} for {key} mentioned in the provided text? Answer with the {kind} itself.",
		"Find the special magic {kind} for {key} in the text and report it.",
		"The document contains a special magic {kind} for {key}. What is it?",
		"Which special magic {kind} does the text give for {key}?",
		"Read the text and tell me the special magic {kind} for {key}.",
		"Report the special magic {kind} that the document lists for {key}.",
		"{key}: which special magic {kind} does the text give it?",
		"Tell me the special magic {kind} listed under {key}.",
		"There is a special magic {kind} with the key {key} in the document. Which one is it?",
		"Give me {key}'s special magic {kind} from the text.",
		"Search the document for the special magic {kind} paired with {key} and answer with it.",
		"Key {key} has a special magic {kind} in the text. Report it.",
	},
	out: []string{
		"Somewhere in the attached text there is a special magic {kind} belonging to {key}; what is that {kind}?",
		"Look up the special magic {kind} of {key} in the document and return only its value.",
		"I need the special magic {kind} associated with {key}. What does the text say it is?",
		"Quote the special magic {kind} that the provided text assigns to {key}.",
	},
}

// recordsCountPhrasings ask how many records have a field value; {field}
// is the field's name and {value} its value, always in single quotes.
var recordsCountPhrasings = phrasingSet{
	in: []string{
		"How many records have {field} '{value}'? Give your final answer in the form 'Answer: number'.",
		"Count the records whose {field} is '{value}'. Give your final answer in the form 'Answer: number'.",
		"What is the number of records with {field} '{value}'? Give your final answer in the form 'Answer: number'.",
		"In the records, how often does the {field} '{value}' occur? Give your final answer in the form 'Answer: number'.",
	},
	out: []string{
		"Tell me how many of the listed records show '{value}' as their {field}. Give your final answer in the form 'Answer: number'.",
		"Among all records, determine the count of those with the {field} '{value}'. Give your final answer in the form 'Answer: number'.",
		"For how many records is the {field} equal to '{value}'? Give your final answer in the form 'Answer: number'.",
	},
}

// recordsExtractPhrasings ask for one field of the record with a given ID.
var recordsExtractPhrasings = phrasingSet{
	in: []string{
		"What is the {field} of the record with ID {id}? Give your final answer in the form 'Answer: value'.",
		"Find record {id} and report its {field}. Give your final answer in the form 'Answer: value'.",
		"Which {field} does record {id} have? Give your final answer in the form 'Answer: value'.",
		"Look at the record whose ID is {id}: what is its {field}? Give your final answer in the form 'Answer: value'.",
	},
	out: []string{
		"Return the {field} stored in record number {id}. Give your final answer in the form 'Answer: value'.",
		"The records include one with ID {id}. Tell me the value of its {field}. Give your final answer in the form 'Answer: value'.",
		"I am looking for the {field} listed for ID {id} in the records. Give your final answer in the form 'Answer: value'.",
	},
}

// labelCountPhrasings ask how many comments carry a sentiment label, which
// code alone cannot tell: the comments must be read (by llm_query on
// chunks) and the labels counted.
var labelCountPhrasings = phrasingSet{
	in: []string{
		"How many of the comments have the sentiment label '{label}'? Give your final answer in the form 'Answer: number'.",
		"Count the comments whose sentiment is '{label}'. Give your final answer in the form 'Answer: number'.",
		"What is the number of comments with the sentiment label '{label}'? Give your final answer in the form 'Answer: number'.",
		"Determine how many comments are '{label}' in sentiment. Give your final answer in the form 'Answer: number'.",
	},
	out: []string{
		"Of all the customer comments, how many would be labelled '{label}'? Give your final answer in the form 'Answer: number'.",
		"Tell me the total count of comments that carry the sentiment '{label}'. Give your final answer in the form 'Answer: number'.",
		"How often is a comment's sentiment '{label}' in the text? Give your final answer in the form 'Answer: number'.",
	},
}
