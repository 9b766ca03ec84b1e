module github.com/rlm-project/rlm

go 1.26

require github.com/traefik/yaegi v0.16.1 // indirect
