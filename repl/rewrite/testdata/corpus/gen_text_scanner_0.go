package main

import (
	"bufio"
	"fmt"
	"strings"
)

func main() {
	sc := bufio.NewScanner(strings.NewReader("name,age\nalice,30\nbob,25\n\"smith, john\",40\n"))
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		fmt.Printf("%2d %-12s %d\n", n, line, len(line))
	}
	if err := sc.Err(); err != nil {
		fmt.Println(err)
	}
	ws := bufio.NewScanner(strings.NewReader("name,age\nalice,30\nbob,25\n\"smith, john\",40\n"))
	ws.Split(bufio.ScanWords)
	words := 0
	for ws.Scan() {
		words++
	}
	fmt.Println("words", words)
}
