package main

import "fmt"

type HTTPError struct {
	Code int
	Msg  string
}

func (e *HTTPError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Msg) }

func get(path string) error {
	if path == "/" {
		return nil
	}
	return &HTTPError{404, "not found: " + path}
}

func main() {
	for _, p := range []string{"/", "/x"} {
		if err := get(p); err != nil {
			fmt.Println("error:", err)
			fmt.Printf("%v | %s\n", err, err)
			continue
		}
		fmt.Println("ok", p)
	}
}
