package main

import (
	"bytes"
	"fmt"
	"strings"
)

func main() {
	var buf bytes.Buffer
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&buf, "line %d\n", i)
	}
	buf.WriteString("end")
	fmt.Println(buf.Len(), strings.Count(buf.String(), "\n"))
	b := []byte("Hello, Gophers")
	fmt.Println(bytes.ToUpper(b), string(bytes.ToUpper(b)), bytes.Contains(b, []byte("Go")))
	fields := bytes.Fields([]byte(" a b  c "))
	fmt.Println(len(fields), string(bytes.Join(fields, []byte("+"))))
}
