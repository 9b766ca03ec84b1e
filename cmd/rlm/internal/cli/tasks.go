package cli

import (
	"flag"
	"strings"

	"github.com/rlm-project/rlm/eval"
)

// TaskOptionFlags declares on fs the task options rlm eval and rlm train rl
// share, writing into o.
func TaskOptionFlags(fs *flag.FlagSet, o *eval.TaskOptions) {
	fs.BoolVar(&o.UUIDValues, "uuid", false, "sniah: needle values are UUIDs instead of 7-digit numbers")
	fs.IntVar(&o.Keys, "keys", 1, "sniah: needles with distinct keys; more than 1 is the multi-key variant")
	fs.StringVar(&o.Phrasings, "phrasings", "", "question wordings of sniah, records and label-count: \"in\" (held-in set), \"out\" (held-out set) or empty (each task's original); docs: the half of its sources, needle forms and wordings (empty: out)")
	fs.StringVar(&o.Source, "source", "", "docs: kind of haystack, one of "+strings.Join(eval.DocSources, ", ")+" (empty: a random one per instance)")
}

// ParseTasks reads a comma-separated task list: built-in task names, made
// with opts, and custom:FILE.jsonl.
func ParseTasks(list string, opts eval.TaskOptions) ([]eval.Task, error) {
	var ts []eval.Task
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		var t eval.Task
		var err error
		if file, ok := strings.CutPrefix(name, "custom:"); ok {
			t, err = eval.LoadCustom(file)
		} else {
			t, err = eval.NewTask(name, opts)
		}
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}
