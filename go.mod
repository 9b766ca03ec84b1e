module github.com/rlm-project/rlm

go 1.26.0

require (
	golang.org/x/sys v0.49.0
	golang.org/x/text v0.43.0
	gonum.org/v1/gonum v0.17.0
)
