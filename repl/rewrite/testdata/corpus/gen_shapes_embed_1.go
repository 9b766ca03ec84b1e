package main

import "fmt"

type Base struct {
	ID   int
	Name string
}

func (b Base) Describe() string { return fmt.Sprintf("#%d %s", b.ID, b.Name) }

type Item struct {
	Base
	Price float64
	Qty   int
}

func (it *Item) Total() float64 { return it.Price * float64(it.Qty) }

func main() {
	items := []*Item{
		{Base{1, "pen"}, 1.5, 3},
		{Base{2, "book"}, 2.5, 1},
	}
	sum := 0.0
	for _, it := range items {
		it.Qty++
		sum += it.Total()
		fmt.Println(it.Describe(), it.Name, it.Qty, it.Total())
	}
	fmt.Printf("%.2f\n", sum)
	f := items[0].Total
	items[0].Qty = 10
	fmt.Println(f())
}
