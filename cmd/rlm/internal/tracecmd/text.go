package tracecmd

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rlm-project/rlm/tracing"
)

// Plain-text renderings of trajectories, for terminals (rlm traces list
// and show).

// writeList writes a page of trajectory summaries as a table, one run a
// row, and the cursor of the next page when there is one.
func writeList(w io.Writer, p tracing.Page) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tMODEL\tSTATUS\tSTOP\tNODES\tSUB-CALLS\tTOKENS\tDURATION\tREWARD\tQUESTION")
	for _, s := range p.Data {
		reward := "-"
		if s.Reward != nil {
			reward = strconv.FormatFloat(s.Reward.Score, 'g', 4, 64)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\n", s.ID, s.Started.Local().Format("2006-01-02 15:04:05"),
			modelName(s.Model, s.Models), s.Status, orDash(string(s.StopReason)), s.Nodes, s.SubCalls, s.Usage.TotalTokens, fmtMS(s.DurationMS), reward,
			orDash(oneLine(s.Question, 60)))
	}
	tw.Flush()
	if p.HasMore {
		fmt.Fprintf(w, "more: --cursor %s\n", p.NextCursor)
	}
}

// oneLine folds whitespace runs (newlines included) to one space and clips
// s to max runes, so that a question fits a table row.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// modelName shows a run's model as the caller named it, followed by the
// upstream models that answered when those are other names (a gateway
// alias): "rlm (gpt-5-mini)".
func modelName(model string, upstream []string) string {
	var other []string
	for _, m := range upstream {
		if m != model {
			other = append(other, m)
		}
	}
	if len(other) == 0 {
		return orDash(model)
	}
	return orDash(model) + " (" + strings.Join(other, ", ") + ")"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func fmtMS(ms float64) string {
	return (time.Duration(ms * float64(time.Millisecond))).Round(time.Millisecond).String()
}

// writeTree draws a run's recursion tree: one line per node with its
// status, stop reason, turns, tokens and duration, its llm_query calls
// summed up on the line below it.
func writeTree(w io.Writer, t *tracing.Trajectory) {
	fmt.Fprintf(w, "%s  %s", t.ID, t.Status)
	if t.StopReason != "" {
		fmt.Fprintf(w, " (%s)", t.StopReason)
	}
	fmt.Fprintf(w, "  model %s  %d nodes  %d sub-calls  %d llm calls  %d tokens  %s\n",
		modelName(t.Model, t.Models), len(t.Nodes), t.Used.SubCalls, t.Used.LLMCalls, t.Used.Usage.TotalTokens, fmtMS(t.DurationMS))
	if t.Error != "" {
		fmt.Fprintf(w, "error: %s\n", t.Error)
	}
	tw := treeWriter{w: w, children: map[string][]*tracing.Node{}, ids: map[string]bool{}}
	for _, n := range t.Nodes {
		tw.ids[n.ID] = true
	}
	var roots []*tracing.Node
	for _, n := range t.Nodes {
		if n.ParentID == "" || !tw.ids[n.ParentID] {
			roots = append(roots, n)
		} else {
			tw.children[n.ParentID] = append(tw.children[n.ParentID], n)
		}
	}
	for _, c := range tw.children {
		sort.SliceStable(c, func(i, j int) bool { return c[i].Started.Before(c[j].Started) })
	}
	for _, r := range roots {
		tw.node(r, "", true, true)
	}
	if t.Answer != "" {
		fmt.Fprintf(w, "answer: %s\n", oneLine(t.Answer, 200))
	}
}

// treeWriter draws the nodes of one trajectory.
type treeWriter struct {
	w        io.Writer
	children map[string][]*tracing.Node // by parent, in start order
	ids      map[string]bool            // the nodes the trajectory holds
}

func (tw treeWriter) node(n *tracing.Node, prefix string, last, top bool) {
	branch, next := "├─ ", "│  "
	if last {
		branch, next = "└─ ", "   "
	}
	if top {
		branch, next = "", ""
	}
	stop := string(n.StopReason)
	if stop == "" {
		stop = "-"
	}
	fmt.Fprintf(tw.w, "%s%snode %s  depth %d  %s/%s  %d turns  %d tokens  %s", prefix, branch, n.ID, n.Depth, n.Status, stop,
		len(n.Turns), n.Usage.TotalTokens, fmtMS(n.DurationMS))
	if n.Answer != "" {
		fmt.Fprintf(tw.w, "  answer %q", oneLine(n.Answer, 40))
	}
	fmt.Fprintln(tw.w)
	inner := prefix + next
	kids := tw.children[n.ID]
	tw.llmCalls(n, inner, len(kids) > 0)
	for i, c := range kids {
		tw.node(c, inner, i == len(kids)-1, false)
	}
}

// llmCalls sums up a node's sub-calls that are not child nodes of the tree
// on one line.
func (tw treeWriter) llmCalls(n *tracing.Node, prefix string, kids bool) {
	var calls, failed, tokens int
	var slowest float64
	for _, tu := range n.Turns {
		for _, c := range tu.Cells {
			for _, sc := range c.SubCalls {
				if sc.Kind == "rlm" && tw.ids[sc.ChildID] {
					continue
				}
				calls++
				tokens += sc.Usage.TotalTokens
				slowest = max(slowest, sc.DurationMS)
				if sc.Status != tracing.StatusCompleted {
					failed++
				}
			}
		}
	}
	if calls == 0 {
		return
	}
	pipe := "   "
	if kids {
		pipe = "│  "
	}
	fmt.Fprintf(tw.w, "%s%sllm_query ×%d  %d tokens  slowest %s", prefix, pipe, calls, tokens, fmtMS(slowest))
	if failed > 0 {
		fmt.Fprintf(tw.w, "  %d not completed", failed)
	}
	fmt.Fprintln(tw.w)
}
