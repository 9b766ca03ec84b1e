package recursion

import (
	"context"
	"fmt"
	"strings"

	"github.com/rlm-project/rlm/recursion/llm"
)

// A request's images (Request.Images) are offloaded like its documents:
// the root's model does not see them; its cells see their names in
// `images` and show them to the vision model (Config.VisionModel) with
// llm_query_image(prompt, i...), a plain call answered in words.

// imagesMessage tells the root's model about the request's images.
func imagesMessage(images []Image) string {
	if len(images) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n\nThe input has %d image(s), which you cannot see: `images` names them. Ask a model that sees images "+
		"with llm_query_image(prompt, i) (several: llm_query_image(prompt, 0, 1)); it answers in words.\n", len(images))
	for i, im := range images {
		fmt.Fprintf(&b, "- images[%d]: %s\n", i, im.Name)
	}
	return b.String()
}

// LLMQueryImage implements repl.ImageHost: one plain call of the vision
// model with the prompt and the images.
func (n *node) LLMQueryImage(ctx context.Context, prompt string, images []int) string {
	r := n.r
	if r.e.cfg.VisionModel == "" {
		return "error: llm_query_image: no model of this server takes images"
	}
	var urls []string
	for _, i := range images {
		if i < 0 || i >= len(r.images) {
			return fmt.Sprintf("error: llm_query_image: no image %d", i)
		}
		urls = append(urls, r.images[i].URL)
	}
	msg := llm.Message{Role: "user", Content: prompt, Images: urls}
	return n.subCallWith(ctx, prompt, r.e.cfg.VisionModel, []llm.Message{msg})
}
