package main

import (
	"bufio"
	"fmt"
	"strings"
)

func main() {
	sc := bufio.NewScanner(strings.NewReader("k\tv\nx\t1\ny\t2\n"))
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		fmt.Printf("%2d %-12s %d\n", n, line, len(line))
	}
	if err := sc.Err(); err != nil {
		fmt.Println(err)
	}
	ws := bufio.NewScanner(strings.NewReader("k\tv\nx\t1\ny\t2\n"))
	ws.Split(bufio.ScanWords)
	words := 0
	for ws.Scan() {
		words++
	}
	fmt.Println("words", words)
}
