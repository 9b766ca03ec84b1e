module github.com/rlm-project/rlm

go 1.26.0

require golang.org/x/text v0.43.0
