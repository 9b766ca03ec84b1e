package main

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
)

func isPrime(n int) bool {
	if n < 2 {
		return false
	}
	for d := 2; d*d <= n; d++ {
		if n%d == 0 {
			return false
		}
	}
	return true
}

func main() {
	n := 7
	fmt.Println(math.Sqrt(float64(n)), math.Pow(2, float64(n%20)), math.Log2(float64(n)))
	fmt.Println(strconv.FormatInt(int64(n), 2), strconv.FormatInt(int64(n), 16), bits.OnesCount(uint(n)))
	var primes []int
	for i := 0; i <= n && len(primes) < 10; i++ {
		if isPrime(i) {
			primes = append(primes, i)
		}
	}
	fmt.Println(primes)
	fmt.Printf("%.3f %8.2f|%-8d|%08b %x %X %o\n", math.Pi*float64(n), float64(n)/3, n, n%256, n, n, n)
	fmt.Println(math.MaxInt64, math.Inf(1), -math.Inf(1), math.MaxUint32)
}
