package main

import (
	"fmt"
	"math"
)

func main() {
	var a int8 = 127
	a++
	var b uint8 = 0
	b--
	var c int32 = math.MaxInt32
	c += 10
	var u uint64 = math.MaxUint64
	fmt.Println(a, b, c, u, u+1)
	x := math.MaxInt64
	x++
	fmt.Println(x == math.MinInt64, -7/2, -7%2, 7>>1, -7>>1)
}
