package main

import "fmt"

func main() {
	a := make([]int, 3, 10)
	b := append(a, 4)
	c := append(a, 5)
	fmt.Println(a, b, c, len(a), cap(a))
	d := []int{1, 2, 3}
	e := d[:2]
	e = append(e, 99)
	fmt.Println(d, e)
	f := append([]int(nil), d...)
	f[0] = -1
	fmt.Println(d[0], f[0])
	var nilSlice []int
	fmt.Println(nilSlice == nil, len(nilSlice), append(nilSlice, 1))
}
