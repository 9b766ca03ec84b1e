module github.com/rlm-project/rlm

go 1.26

require github.com/sashabaranov/go-openai v1.43.0
