package main

import "fmt"

func work(n int) (result int) {
	defer func() {
		result *= 2
		fmt.Println("deferred, result", result)
	}()
	for i := 0; i < n; i++ {
		defer fmt.Print(i, " ")
	}
	return n
}

func safeDiv(a, b int) (q int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	return a / b, nil
}

func main() {
	fmt.Println(work(10))
	fmt.Println(safeDiv(10, 0))
	fmt.Println(safeDiv(10, 2))
}
