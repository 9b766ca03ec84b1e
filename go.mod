module github.com/rlm-project/rlm

go 1.26.0

require (
	github.com/sashabaranov/go-openai v1.43.0
	github.com/traefik/yaegi v0.16.1
	golang.org/x/sys v0.49.0
)
